// What watchers see of a routed command (AEP-0004 §4: the target gets the
// command byte-identical; every other subscriber gets a copy so it can see
// who commanded what). A command's content is a client's raw input: a
// free-text answer (`answer.text`), form `values`, a vendor command's
// fields. Issue 10: that copy used to be fanned out verbatim and unlabelled
// (so counted as `metadata`), reaching `metadata` subscribers unredacted.
//
// The relay is a redacting re-emitter here (AEP-0001 §8.2(e)): the copy
// passes the AEP-0003 §9.4 pipeline (hookmap's rule table, the same
// Redactor the daemons use) and is labelled `capture: redacted`:
//   - fields the payload schema gates at `redacted` (answer.text) are
//     redacted, fields gated higher (and every field of a type without a
//     schema, e.g. x.<vendor>.control.*) are dropped;
//   - `answer.values` (schema-gated `metadata` as a whole, per-key free
//     text inside, AEP-0006) has every string redacted.
// Subscribers below `redacted` then get the ordinary down-level of that
// copy (engine/core/capture/gate.ts: text dropped, only number/boolean values
// kept). A command that declares `metadata` or `none` is held to it.
import type { Redactor } from '../../core/capture/redact.ts';
import { downLevelEvent, gateData } from '../../core/capture/gate.ts';
import type { AepEvent, Held } from './store.ts';

type Obj = Record<string, unknown>;

export function watcherCopy(held: Held, skip: object, redactor: Redactor): Held {
  const ev = held.ev;
  if (ev.data === undefined) return { ...held, skip };
  const declared = ev.capture;
  if (declared === 'none' || declared === 'metadata') {
    // held to what it declares (AEP-0001 §8.2(a)); never up-leveled
    const low = downLevelEvent({ ...ev, capture: 'redacted' }, declared) as AepEvent;
    return { ev: low, raw: JSON.stringify(low), skip };
  }
  let data = gateData(ev.type, ev.data as Obj, { ceiling: 'redacted', redactor, mint: false, agent: ev.agent, subject: ev.subject }) ?? {};
  const answer = data.answer as Obj | undefined;
  if (answer && answer.values !== undefined) data = { ...data, answer: { ...answer, values: redactor.deep(answer.values) } };
  const copy = { ...ev, capture: 'redacted', data } as AepEvent;
  return { ev: copy, raw: JSON.stringify(copy), skip };
}
