// Where a daemon keeps its durable state: `$HOOKMAP_HOME` (default
// ~/.hookmap) / logs / <agent> / <session file>.jsonl. Session ids come from
// the agent's payload and are untrusted: the file name is a safe slug of the
// id plus a short hash of the RAW id, so no id can escape the folder
// (`../x`, `/etc`, NUL) and two ids that slug alike (`a/b`, `a:b`) never share
// a file. Every writer under the home creates what it writes into with
// ensureDir (owner-only, 0700, the home itself included when it does not
// exist yet).
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** ~/.hookmap: the home when nothing names another. */
export function defaultHome(): string {
  return join(homedir(), '.hookmap');
}

/**
 * A folder hookmap writes into (the home, or one under it), created with every
 * missing parent owner-only (0700) before the first write; an existing one is
 * left as it is. Returns the folder.
 */
export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** ensureDir for the folder a file goes into; returns the file. */
export function ensureParent(file: string): string {
  ensureDir(dirname(file));
  return file;
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
  const slug =
    session
      .normalize('NFKC')
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._-]+/, '')
      .slice(0, MAX_SLUG) || 'session';
  const hash = createHash('sha256').update(session, 'utf8').digest('hex').slice(0, 12);
  return `${slug}-${hash}.jsonl`;
}
