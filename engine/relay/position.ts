// A position in a session's stream (AEP-0001 §7: (epoch, seq) orders a
// session's events) and its comparison, shared by the relay's store
// (store.ts), its buffers (session-buffer.ts, memory-store.ts) and the
// fleet backplane's mirror. Moved out of store.ts.
import type { AepEvent } from './store.ts';

export interface Position {
  epoch: number;
  seq: number;
}

export function comparePos(a: Position, b: Position): number {
  return a.epoch - b.epoch || a.seq - b.seq;
}

export function positionOf(ev: AepEvent): Position {
  return { epoch: ev.epoch ?? 0, seq: ev.seq ?? 0 };
}
