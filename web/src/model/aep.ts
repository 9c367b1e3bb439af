// The slice of the AEP envelope (AEP-0001 §5) the inbox reads, positions
// and their order (AEP-0001 §7, AEP-0003 §7), and command envelopes as a
// foreign emitter sends them (AEP-0004 §2: no `seq`, the envelope id is the
// idempotency key). Browser-side twin of engine/relay/client.ts makeCommand.
import type { AepEnvelope } from '../../../engine/generated/aep-types.ts';

/** The declared attributes of a generated type (its extension-attribute index signature dropped). */
type Declared<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/**
 * An event as the inbox reads it: the envelope's attributes as generated
 * from the AEP schema (engine/generated/aep-types.ts, `hookmap codegen`); the
 * payload is read loosely, per type, where it is shown.
 */
export type Ev = Omit<Declared<AepEnvelope>, 'data'> & { data?: Record<string, any> };

export interface Position {
  epoch: number;
  seq: number;
}

export const AEP_VERSION: AepEnvelope['aep'] = '0.1';

export const posOf = (e: Ev): Position => ({ epoch: e.epoch ?? 0, seq: e.seq ?? 0 });

export function comparePos(a: Position, b: Position): number {
  return a.epoch - b.epoch || a.seq - b.seq;
}

/** Dedupe key (AEP-0001 §7.4): delivery is at-least-once, the pair (source, id) is the identity. */
export const keyOf = (e: Ev): string => `${e.source}\u0000${e.id}`;

/** A sequenced, session-scoped event: it has a resumable position. */
export const isPositioned = (e: Ev): boolean => typeof e.session === 'string' && typeof e.seq === 'number';

/** A command (routed, never buffered) as opposed to an ack, which is an ordinary sequenced event. */
export function isCommand(type: string): boolean {
  if (/^x\.[a-z0-9_-]+\.control\./.test(type)) return true;
  return type.startsWith('control.') && type !== 'control.accepted' && type !== 'control.rejected';
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID (48-bit time, 80 random bits): sortable and unique enough to be an idempotency key. */
export function newId(now = Date.now()): string {
  let t = now;
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const rnd = new Uint8Array(16);
  crypto.getRandomValues(rnd);
  let r = '';
  for (let i = 0; i < 16; i++) r += CROCKFORD[rnd[i] % 32];
  return time + r;
}

export interface CommandParts {
  session: string;
  subject?: string;
  run?: string;
  cause?: string;
  data: Record<string, unknown>;
}

/** A command envelope from the inbox: `agent` names the sender (AEP-0004 §2.2), no `seq`. */
export function makeCommand(type: string, parts: CommandParts, host: string, instance: string): Ev {
  const ev: Ev = {
    aep: AEP_VERSION,
    id: newId(),
    type,
    time: new Date().toISOString(),
    source: `aep://${host}/agent/hookmap-inbox/${encodeURIComponent(instance)}`,
    agent: 'hookmap-inbox',
    session: parts.session,
    data: parts.data,
  };
  if (parts.subject) ev.subject = parts.subject;
  if (parts.run) ev.run = parts.run;
  if (parts.cause) ev.cause = parts.cause;
  return ev;
}

/** Events nearly always arrive in order: the common case is one comparison and a push. */
export function insertSorted(events: Ev[], ev: Ev): void {
  const p = posOf(ev);
  const n = events.length;
  if (n === 0 || comparePos(posOf(events[n - 1]), p) <= 0) {
    events.push(ev);
    return;
  }
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePos(posOf(events[mid]), p) <= 0) lo = mid + 1;
    else hi = mid;
  }
  events.splice(lo, 0, ev);
}
