// What became of a tool call whose own terminal event never came, read from
// everything else the stream says about it (issue 31): its permission
// request denied -> "denied by <who>" (with the guidance text where the
// capture ceiling kept it), timed out -> "not answered; the agent decided",
// otherwise "no outcome reported". Some agents send no post-tool hook for a
// denied call, so only the request's answer tells. The stream
// itself is left as it is (AEP-faithful: no tool.denied is invented); only
// the views (`timeline`, `tail`) say this.
import { effectsOf, isRefusal, type Effects } from '../kernel/option-effects.ts';
import type { AepEvent } from './projection/common.ts';
import type { SessionNode } from './session-node.ts';

/** How one attention request (asked about the call) ended. */
export interface AskFate {
  kind?: string;
  /** answered, dismissed, auto, timeout, or undefined when nothing closed it */
  outcome?: string;
  option?: string;
  text?: string;
  by?: string;
  via?: string;
  /** What the request's (and the answer's) vendor option ids mean. */
  effects?: Effects;
}

export interface Answer {
  option?: string;
  text?: string;
  by?: string;
  via?: string;
  /** The vendor option id the answer names, with its meaning (the answered event's hookmapeffects attribute). */
  effects?: Effects;
}

/** The answer an attention.answered event carries (what survived the ceiling). */
export function answerOf(ev: AepEvent): Answer {
  const d = (ev.data ?? {}) as { answer?: { option?: unknown; text?: unknown }; by?: unknown; via?: unknown };
  const s = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const effects = effectsOf(ev);
  return { option: s(d.answer?.option), text: s(d.answer?.text), by: s(d.by), via: s(d.via), ...(Object.keys(effects).length ? { effects } : {}) };
}

/** An attention node's fate, with its answer (from the attention.answered event) when there was one. */
export function askFate(n: SessionNode, answer?: Answer): AskFate {
  const a = n.attrs;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    kind: str(a.kind),
    outcome: n.closedBy ? undefined : n.outcome,
    option: answer?.option ?? str(a['answer.option']),
    text: answer?.text,
    by: answer?.by ?? str(a.answered_by),
    via: answer?.via ?? str(a.via),
    effects: { ...n.effects, ...answer?.effects },
  };
}

/** A refusal: the kernel's reading (an option whose effect is deny or never; guidance text with no option on a permission). */
export function isDenial(f: Pick<AskFate, 'kind' | 'option' | 'text' | 'effects'>): boolean {
  return isRefusal(f, { kind: f.kind, effects: f.effects });
}

/** ` by owner`, ` in the agent's own dialog`, or nothing when the stream does not say. */
const by = (f: AskFate) =>
  f.by?.startsWith('rule:')
    ? ` by rule ${f.by.slice(5)} (hookmap rules show ${f.by.slice(5)})`
    : f.by
      ? ` by ${f.by}`
      : f.via === 'oob'
        ? " in the agent's own dialog"
        : '';
const guidance = (f: AskFate) => (f.text !== undefined ? `: ${JSON.stringify(f.text)}` : '');

/** An answer in words: `deny by owner: "use the test database"`, `allow by alex`. */
export function answerWords(f: AskFate): string {
  return `${f.option ?? (isDenial(f) ? 'deny' : 'text')}${by(f)}${guidance(f)}`;
}

/** What a call with no terminal event of its own came to, from the requests asked about it (oldest first). */
export function unreportedCall(asks: AskFate[]): string {
  const last = asks[asks.length - 1];
  if (!last) return 'no outcome reported';
  if (last.outcome === 'timeout') return 'not answered; the agent decided';
  if (last.option !== undefined || last.text !== undefined) {
    if (isDenial(last)) return `denied${by(last)}${guidance(last)}`;
    return `${answerWords(last)}; no outcome reported`;
  }
  return 'no outcome reported';
}
