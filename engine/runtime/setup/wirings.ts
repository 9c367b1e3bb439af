// What `hookmap setup` wired, remembered in $HOOKMAP_HOME/wirings.json so
// that `hookmap doctor` checks every wiring wherever it is run from: a
// project wired with `setup <agent> --project --dir P` is found from any
// folder (issue 31 item 4). The agent's own config stays the truth; this is
// only the list of places to look. Best effort: a record that cannot be
// written never fails a setup that succeeded.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Scope } from './spec.ts';

export const WIRINGS_FILE = 'wirings.json';

export interface Wiring {
  agent: string;
  scope: Scope;
  /** The config file (or directory) setup wrote. */
  path: string;
  /** The project folder, for the project scope. */
  dir?: string;
  /** When setup last wrote or confirmed it (ISO). */
  at: string;
}

const MAX = 500;

function file(home: string): string {
  return join(home, WIRINGS_FILE);
}

export function readWirings(home: string): Wiring[] {
  try {
    const v = JSON.parse(readFileSync(file(home), 'utf8'));
    if (!Array.isArray(v?.wirings)) return [];
    return v.wirings.filter(
      (w: Partial<Wiring>) =>
        w &&
        typeof w.agent === 'string' &&
        (w.scope === 'user' || w.scope === 'project') &&
        typeof w.path === 'string' &&
        typeof w.at === 'string' &&
        (w.dir === undefined || typeof w.dir === 'string'),
    );
  } catch {
    return [];
  }
}

function write(home: string, list: Wiring[]): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const tmp = `${file(home)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ v: 1, wirings: list.slice(-MAX) }, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file(home));
}

const same = (a: Pick<Wiring, 'agent' | 'scope' | 'path'>, b: Pick<Wiring, 'agent' | 'scope' | 'path'>) =>
  a.agent === b.agent && a.scope === b.scope && resolve(a.path) === resolve(b.path);

/** Remembers (or refreshes) one wiring; the newest last. */
export function recordWiring(home: string, w: Omit<Wiring, 'at'>, now = new Date()): void {
  try {
    const list = readWirings(home).filter((x) => !same(x, w));
    list.push({ agent: w.agent, scope: w.scope, path: resolve(w.path), ...(w.dir ? { dir: resolve(w.dir) } : {}), at: now.toISOString() });
    write(home, list);
  } catch {
    // best effort (see the header)
  }
}

/** Forgets one wiring (setup --uninstall). */
export function forgetWiring(home: string, w: Pick<Wiring, 'agent' | 'scope' | 'path'>): void {
  try {
    const list = readWirings(home);
    const kept = list.filter((x) => !same(x, w));
    if (kept.length !== list.length) write(home, kept);
  } catch {
    // best effort
  }
}
