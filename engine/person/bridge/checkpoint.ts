// A live bridge's checkpoint: the positions of every event whose output was
// delivered (or given up on, and reported) plus the target's own state (the
// open spans of the trace projection), written atomically after each batch.
// A restart resumes from it: the relay replays, delivered events are skipped,
// open spans close when their terminal events arrive.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { PositionMap } from './positions.ts';
import { ensureParent } from '../../core/io/paths.ts';

export interface Checkpoint {
  version: 1;
  target: string;
  positions: PositionMap;
  target_state: unknown;
  saved_at: string;
}

export function loadCheckpoint(path: string): Checkpoint | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const v = JSON.parse(text); // a corrupt checkpoint is an error the operator must see, not a silent restart
  if (!v || v.version !== 1 || typeof v.positions !== 'object') throw new Error(`${path}: not a hookmap bridge checkpoint`);
  return v as Checkpoint;
}

export function saveCheckpoint(path: string, cp: Omit<Checkpoint, 'version' | 'saved_at'>): void {
  ensureParent(path);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ version: 1, ...cp, saved_at: new Date().toISOString() }), { mode: 0o600 });
  renameSync(tmp, path); // atomic: a crash leaves the previous checkpoint, never a torn one
}
