// Per-session state is keyed by (source, session), never by bare session:
// session names are unique only within their emitter (AEP-0001 §5.2).

// Positions and their order are the kernel's (engine/core/kernel/position.ts).
import { wellFormedPosition, type Position } from '../kernel/position.ts';

export { comparePositions, showPosition, type Position } from '../kernel/position.ts';

const SEP = '\u0000';

export function sessionKey(ev: Record<string, unknown>): string | undefined {
  return typeof ev.source === 'string' && typeof ev.session === 'string' ? ev.source + SEP + ev.session : undefined;
}

export function subKey(sk: string, id: string): string {
  return sk + SEP + id;
}

/** The Event's (epoch, seq) position, when it carries a well-formed one. */
export const positionOf = (ev: Record<string, unknown>): Position | undefined => wellFormedPosition(ev);
