// The AEP event (AEP-0001 §5): the one event type of hookmap, generated from
// schemas/aep/aep-event.schema.json (generated/aep-types.ts, `npx hookmap
// codegen`). The engine (map, relay, bridge, validate) and the web inbox read
// it from here. Browser-safe: no `node:` import, nothing from the engine.
import type { AepEnvelope } from './generated/aep-types.ts';

/** An AEP event: the envelope type generated from the AEP schema. */
export type AepEvent = AepEnvelope;

/** The declared attributes of the event (its extension-attribute index signature dropped). */
export type Declared<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/** An event read loosely: the declared attributes, the payload read per type where it is shown (the web inbox). */
export type LooseEvent = Omit<Declared<AepEvent>, 'data'> & { data?: Record<string, any> };

/** The AEP version this kernel speaks (AEP-0001 §5.1). */
export const AEP_VERSION: AepEvent['aep'] = '0.1';

/** Dedupe key (AEP-0001 §7.4): delivery is at-least-once, the pair (source, id) is the identity. */
export const keyOf = (e: { source: string; id: string }): string => `${e.source}\u0000${e.id}`;

/** A sequenced, session-scoped event: it has a resumable position. */
export const isPositioned = (e: { session?: unknown; seq?: unknown }): boolean => typeof e.session === 'string' && typeof e.seq === 'number';

const VENDOR_COMMAND = /^x\.[a-z0-9_-]+\.control\./;

/** A command (routed, never buffered; AEP-0004 §2), as opposed to an ack, which is an ordinary sequenced event. */
export function isCommand(type: string): boolean {
  if (VENDOR_COMMAND.test(type)) return true;
  return type.startsWith('control.') && type !== 'control.accepted' && type !== 'control.rejected';
}

/**
 * The answer of a control query (AEP-0004 §3: a control.accepted whose `data.result` answers an `x.hookmap.control.*`
 * question, engine/runtime/daemon/door.ts): for the control principal who asked, never part of the session's story. The
 * relay hands it to control subscribers only, the history does not index it, timeline and tail do not show it.
 */
export function isQueryAnswer(ev: { type: string; data?: unknown }): boolean {
  return ev.type === 'control.accepted' && typeof ev.data === 'object' && ev.data !== null && 'result' in ev.data;
}

/** hookmap's own emitter identity (`agent: hookmap`): the operator sessions of `up` (engine/runtime/daemon/operator-log.ts). */
export const OPERATOR_AGENT = 'hookmap';

/** Whether an event is a record of an operator session (this up's or another of the fleet's), not an agent's. */
export const isOperatorRecord = (ev: { agent?: unknown; session?: unknown }): boolean =>
  ev.agent === OPERATOR_AGENT && String(ev.session ?? '').startsWith('operator@');
