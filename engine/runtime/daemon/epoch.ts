// The restart generation of one agent's daemon (AEP-0001 §7 rule 2): read,
// bump, persist BEFORE the daemon emits anything, so no two runs ever share
// an epoch even when the previous run was SIGKILLed. Written atomically
// (temp file + fsync + rename) so a crash mid-write leaves the old value,
// which the next start bumps past anyway.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic, writeAtomicAsync } from '../../core/io/atomic.ts';
import { ensureDir } from '../../core/io/paths.ts';
import { acquireLock } from './lock.ts';

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

const nextEpoch = (dir: string): number => {
  ensureDir(dir);
  const prev = readEpoch(dir);
  return prev === undefined ? 0 : prev + 1;
};

/** The epoch this run uses: 0 on first start, previous + 1 after. */
export function bumpEpoch(dir: string): number {
  const next = nextEpoch(dir);
  writeAtomic(join(dir, EPOCH_FILE), `${next}\n`);
  return next;
}

/** bumpEpoch, resolved once the new epoch is on disk (so many daemons' epochs are flushed at once: `hookmap up`). */
export async function bumpEpochAsync(dir: string): Promise<number> {
  const next = nextEpoch(dir);
  await writeAtomicAsync(join(dir, EPOCH_FILE), `${next}\n`);
  return next;
}

/** A log folder taken by one daemon: its lock held, its epoch bumped and durable (what it holds before it emits anything). */
export interface Claim {
  epoch: number;
  release: () => void;
}

/** Take `dir` (lock) and bump its epoch; with `async`, the promise resolves only once the epoch is durable. */
export function claimFolder(dir: string, what: string): Claim;
export function claimFolder(dir: string, what: string, async: true): Promise<Claim>;
export function claimFolder(dir: string, what: string, async?: true): Claim | Promise<Claim> {
  ensureDir(dir);
  const release = acquireLock(dir, what);
  const failed = (e: unknown): never => {
    release();
    throw e;
  };
  if (!async) {
    try {
      return { epoch: bumpEpoch(dir), release };
    } catch (e) {
      return failed(e);
    }
  }
  return bumpEpochAsync(dir).then((epoch) => ({ epoch, release }), failed);
}

export { writeAtomic };
