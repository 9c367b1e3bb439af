// The restart generation of one agent's daemon (AEP-0001 §7 rule 2): read,
// bump, persist BEFORE the daemon emits anything, so no two runs ever share
// an epoch even when the previous run was SIGKILLed. Written atomically
// (temp file + fsync + rename) so a crash mid-write leaves the old value,
// which the next start bumps past anyway.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../io/atomic.ts';
import { ensureDir } from '../io/paths.ts';

export const EPOCH_FILE = 'epoch';

export function readEpoch(dir: string): number | undefined {
  const p = join(dir, EPOCH_FILE);
  if (!existsSync(p)) return undefined;
  const n = Number(readFileSync(p, 'utf8').trim());
  if (!Number.isSafeInteger(n) || n < 0)
    throw new Error(
      `${p} is corrupt (${JSON.stringify(readFileSync(p, 'utf8').slice(0, 40))}); remove it only if no consumer resumes from this agent's positions`,
    );
  return n;
}

/** The epoch this run uses: 0 on first start, previous + 1 after. */
export function bumpEpoch(dir: string): number {
  ensureDir(dir);
  const prev = readEpoch(dir);
  const next = prev === undefined ? 0 : prev + 1;
  writeAtomic(join(dir, EPOCH_FILE), `${next}\n`);
  return next;
}

export { writeAtomic };
