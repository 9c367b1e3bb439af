// A position in a session's stream (AEP-0001 §7: (epoch, seq) orders a
// session's events; AEP-0003 §5 resumes from one) and its order: the one
// definition the relay, its resuming client, the validator and the web inbox
// share. Browser-safe.

export interface Position {
  epoch: number;
  seq: number;
}

/** Lexicographic (epoch, seq) order (AEP-0001 §7 rule 3). */
export function comparePositions(a: Position, b: Position): number {
  return a.epoch - b.epoch || a.seq - b.seq;
}

/** An event's position, absent attributes read as 0 (a sequenced event as the relay holds it). */
export function positionOf(ev: { epoch?: number; seq?: number }): Position {
  return { epoch: ev.epoch ?? 0, seq: ev.seq ?? 0 };
}

/** The event's (epoch, seq) position when it carries a well-formed one (non-negative safe integers), else undefined. */
export function wellFormedPosition(ev: Record<string, unknown>): Position | undefined {
  const epoch = ev.epoch ?? 0;
  if (!Number.isSafeInteger(ev.seq) || (ev.seq as number) < 0 || !Number.isSafeInteger(epoch) || (epoch as number) < 0) return undefined;
  return { epoch: epoch as number, seq: ev.seq as number };
}

/** `a` at or before `b`. */
export const atOrBefore = (a: Position, b: Position): boolean => comparePositions(a, b) <= 0;

export function showPosition(p: Position): string {
  return `seq ${p.seq} (epoch ${p.epoch})`;
}

/** Insert `ev` into `events` (kept in position order). Events nearly always arrive in order: the common case is one comparison and a push. */
export function insertSorted<E extends { epoch?: number; seq?: number }>(events: E[], ev: E): void {
  const p = positionOf(ev);
  const n = events.length;
  if (n === 0 || comparePositions(positionOf(events[n - 1]), p) <= 0) {
    events.push(ev);
    return;
  }
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePositions(positionOf(events[mid]), p) <= 0) lo = mid + 1;
    else hi = mid;
  }
  events.splice(lo, 0, ev);
}
