// Where a daemon keeps its durable state: `$HOOKMAP_HOME` (default
// ~/.hookmap) / logs / <agent> / <session file>.jsonl. Session ids come from
// the agent's payload and are untrusted: the file name is a safe slug of the
// id plus a short hash of the RAW id, so no id can escape the folder
// (`../x`, `/etc`, NUL) and two ids that slug alike (`a/b`, `a:b`) never share
// a file.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** ~/.hookmap: the home when nothing names another. */
export function defaultHome(): string {
  return join(homedir(), '.hookmap');
}

/** $HOOKMAP_HOME in an environment the caller holds (the CLI edge resolves it once: engine/cli/config.ts). */
export function hookmapHome(env: Readonly<Record<string, string | undefined>>): string {
  return env.HOOKMAP_HOME || defaultHome();
}

/** The per-agent log folder under a home. */
export function agentLogDir(home: string, agent: string): string {
  return join(home, 'logs', agentSlug(agent));
}

function agentSlug(agent: string): string {
  // descriptor vendors are already [a-z0-9-]; this only guards a path given by hand
  return agent.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || '_';
}

const MAX_SLUG = 64;

/** `<slug>-<12 hex of sha256(raw)>.jsonl`: readable, bounded, collision-free in practice. */
export function sessionFileName(session: string): string {
  const slug = session
    .normalize('NFKC')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+/, '')
    .slice(0, MAX_SLUG) || 'session';
  const hash = createHash('sha256').update(session, 'utf8').digest('hex').slice(0, 12);
  return `${slug}-${hash}.jsonl`;
}
