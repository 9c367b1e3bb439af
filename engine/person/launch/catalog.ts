// What a surface may offer before it starts anything (GET /launch): each agent
// this up runs that has a `launch` block, how it can run (headless, in a
// terminal a person can attach to, continuing a session), the options a
// person may choose from the descriptor's closed list, and the allowed
// projects it is wired for, by folder name only (a remote surface names a
// project from this list and never sends a path; pickProject resolves the
// name). Nothing here starts a run: the launcher checks everything again.
import { basename, resolve } from 'node:path';
import { realpathSync } from 'node:fs';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { readWirings } from '../../runtime/setup/wirings.ts';
import { allowedProjects } from './projects.ts';

export interface CatalogOption {
  name: string;
  /** The closed list, when the descriptor gives one; else a pattern the value must match. */
  values?: string[];
  pattern?: string;
  doc?: string;
}

export interface CatalogAgent {
  agent: string;
  name: string;
  /** A headless run with a prompt (always, for an agent with a launch block). */
  headless: boolean;
  /** An interactive run in a named tmux session a person can attach to. */
  tmux: boolean;
  /** Continuing one of its sessions by the agent's own id. */
  resume: boolean;
  options: CatalogOption[];
  /** The allowed projects (folder names) this agent is wired for. */
  projects: string[];
}

export interface Catalog {
  agents: CatalogAgent[];
  /** Every allowed project, by folder name (a name two allowed folders share is listed once and refused as ambiguous). */
  projects: string[];
}

const real = (p: string): string | undefined => {
  try {
    return realpathSync(resolve(p));
  } catch {
    return undefined;
  }
};

export function launchCatalog(descriptors: readonly Descriptor[], home: string, configured: readonly string[] = []): Catalog {
  const allowed = allowedProjects(home, configured);
  const wirings = readWirings(home);
  const names = (dirs: readonly string[]) => [...new Set(dirs.map((d) => basename(d)))].sort();
  const agents: CatalogAgent[] = [];
  for (const d of [...descriptors].sort((a, b) => (a.vendor < b.vendor ? -1 : a.vendor > b.vendor ? 1 : 0))) {
    const spec = d.launch;
    if (!spec) continue;
    const mine = wirings.filter((w) => w.agent === d.vendor);
    const everywhere = mine.some((w) => w.scope === 'user');
    const wiredDirs = new Set(mine.flatMap((w) => (w.dir ? [real(w.dir)] : [])).filter((x): x is string => Boolean(x)));
    agents.push({
      agent: d.vendor,
      name: d.name,
      headless: Boolean(spec.headless),
      tmux: Boolean(spec.interactive),
      resume: Boolean(spec.resume),
      options: Object.entries(spec.options ?? {}).map(([name, o]) => ({
        name,
        ...(o.values ? { values: [...o.values] } : {}),
        ...(o.pattern ? { pattern: o.pattern } : {}),
        ...(o.doc ? { doc: o.doc } : {}),
      })),
      projects: names(everywhere ? allowed : allowed.filter((dir) => wiredDirs.has(dir))),
    });
  }
  return { agents, projects: names(allowed) };
}
