// hookmap's home holds its secrets (the owner token, the hook key, rules,
// channel secrets, push keys) and what agents did (logs, history.db): nobody
// else on the machine may read any of it. Every process that writes there
// runs with umask 077 (engine/cli/main.ts), so what it creates is 0600/0700
// whatever the user's umask; a home made by an older hookmap, or by hand,
// is tightened when `up` starts, and `doctor` names what is still open.
// Issue 40 "files and logs".
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sweepShimIo } from './shim-scratch.ts';

/** Entries looked at, at most (a home with more is checked in part, and says so). */
const MAX_ENTRIES = 50_000;
/** How often `up` sweeps the shims' scratch. */
const SWEEP_EVERY_MS = 10 * 60_000;

export interface LooseEntry {
  path: string;
  mode: number;
  dir: boolean;
}

/** The home and what it holds with a group or other permission bit (symlinks are not followed). */
export function looseModes(home: string, limit = MAX_ENTRIES): { loose: LooseEntry[]; seen: number; partial: boolean } {
  const loose: LooseEntry[] = [];
  const stack = [home];
  let seen = 0;
  while (stack.length) {
    const p = stack.pop()!;
    if (++seen > limit) return { loose, seen: seen - 1, partial: true };
    let st;
    try {
      st = lstatSync(p);
    } catch {
      continue; // gone meanwhile
    }
    if (st.isSymbolicLink()) continue;
    if (st.mode & 0o077) loose.push({ path: p, mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory())
      try {
        for (const n of readdirSync(p)) stack.push(join(p, n));
      } catch {
        // unreadable: left as it is
      }
  }
  return { loose, seen, partial: false };
}

/** Take the group and other bits off the home and everything in it; returns how many entries changed. */
export function tightenHome(home: string): { changed: number; partial: boolean } {
  const { loose, partial } = looseModes(home);
  let changed = 0;
  for (const e of loose) {
    try {
      chmodSync(e.path, e.mode & 0o700);
      changed++;
    } catch {
      // not ours to change (another owner): doctor names it
    }
  }
  return { changed, partial };
}

/** tightenHome off the caller's path (`up`'s start), saying what it changed. */
/**
 * `up`'s care of its home: tightened soon after start (a home made by an older hookmap or by hand), and the
 * sh shims' scratch swept then and every few minutes (engine/core/io/shim-scratch.ts). Returns the stop.
 */
export function keepHome(home: string, say: (line: string) => void): () => void {
  setImmediate(() => {
    sweepShimIo(home);
    const { changed, partial } = tightenHome(home);
    if (changed)
      say(`home ${home}: group and other permissions taken off ${changed} entries (it holds tokens, keys and logs)${partial ? ' (checked in part)' : ''}`);
  }).unref();
  const sweep = setInterval(() => sweepShimIo(home), SWEEP_EVERY_MS);
  sweep.unref();
  return () => clearInterval(sweep);
}
