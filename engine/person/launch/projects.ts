// Where `hookmap run` may start an agent: a folder from an allow-list (the
// project folders `hookmap setup --project` recorded in $HOOKMAP_HOME, and the
// up config's `launch.projects`), never a free path a remote surface sends.
// A folder is named by its path (the CLI's) or by its name (the last segment,
// when only one allowed folder has it); either resolves to the allowed
// folder itself. The agent must be wired for it too: `hookmap setup` recorded
// the agent at user scope, or at project scope for that folder.
import { realpathSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { readWirings } from '../../runtime/setup/wirings.ts';
import { LaunchError } from './argv.ts';

const real = (p: string): string | undefined => {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
};

/** Every allowed folder, resolved (a folder that no longer exists is left out). */
export function allowedProjects(home: string, configured: readonly string[] = []): string[] {
  const dirs = [...readWirings(home).flatMap((w) => (w.scope === 'project' && w.dir ? [w.dir] : [])), ...configured];
  return [...new Set(dirs.map((d) => real(resolve(d))).filter((d): d is string => Boolean(d)))].sort();
}

/** The allowed folder `asked` names (a path or a folder name), else a refusal that says what is allowed. */
export function pickProject(asked: unknown, allowed: readonly string[]): string {
  if (typeof asked !== 'string' || !asked || asked.length > 4096) throw new LaunchError('bad-request', 'name the project: a folder path or name', 400);
  const hint = allowed.length
    ? `allowed: ${allowed.map((d) => basename(d)).join(', ')}`
    : 'none is allowed yet: `hookmap setup <agent> --project --dir D` records one, or list it under launch.projects in the up config';
  if (isAbsolute(asked)) {
    const r = real(asked);
    if (r && allowed.includes(r)) return r;
  } else {
    const named = allowed.filter((d) => basename(d) === asked);
    if (named.length === 1) return named[0];
    if (named.length > 1) throw new LaunchError('project-ambiguous', `${named.length} allowed folders are named ${asked}: give its path`, 409);
  }
  throw new LaunchError('project-refused', `${asked} is not an allowed project (${hint})`, 403);
}

/** Refused unless `hookmap setup` wired `agent` for `dir` (user scope, or this project). */
export function assertWired(home: string, agent: string, dir: string): void {
  const ok = readWirings(home).some((w) => w.agent === agent && (w.scope === 'user' || (w.dir !== undefined && real(resolve(w.dir)) === dir)));
  if (!ok)
    throw new LaunchError(
      'not-wired',
      `${agent} is not wired for ${dir}: its hooks would not reach hookmap (run: hookmap setup ${agent}, or hookmap setup ${agent} --project --dir ${dir})`,
      409,
    );
}
