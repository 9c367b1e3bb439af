// Per-session state is keyed by (source, session), never by bare session:
// session names are unique only within their emitter (AEP-0001 §5.2).

export interface Position {
  epoch: number;
  seq: number;
}

const SEP = '\u0000';

export function sessionKey(ev: Record<string, unknown>): string | undefined {
  return typeof ev.source === 'string' && typeof ev.session === 'string' ? ev.source + SEP + ev.session : undefined;
}

export function subKey(sk: string, id: string): string {
  return sk + SEP + id;
}

/** The Event's (epoch, seq) position, when it carries a well-formed one. */
export function positionOf(ev: Record<string, unknown>): Position | undefined {
  const epoch = ev.epoch ?? 0;
  if (!Number.isSafeInteger(ev.seq) || (ev.seq as number) < 0 || !Number.isSafeInteger(epoch) || (epoch as number) < 0) return undefined;
  return { epoch: epoch as number, seq: ev.seq as number };
}

/** Lexicographic (epoch, seq) order (AEP-0001 §7 rule 3). */
export function comparePositions(a: Position, b: Position): number {
  return a.epoch - b.epoch || a.seq - b.seq;
}

export function showPosition(p: Position): string {
  return `seq ${p.seq} (epoch ${p.epoch})`;
}
