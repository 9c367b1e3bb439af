// What became of a tool call, and of a request about it, in the words of
// `timeline` and `tail`: the fate is the kernel fold's (engine/core/kernel/fold/:
// its own terminal, else its permission request's answer, a refusal "denied by
// <who>" with the guidance text where the capture ceiling kept it, a timeout
// "not answered; the agent decided", else "no outcome reported"); this module
// only says it. Some agents send no post-tool hook for a denied call, so only
// the request's answer tells. The stream itself is left as it is
// (AEP-faithful: no tool.denied is invented).
import { answerOf as foldAnswer, callFate, lastRequest, type CallStory, type RequestStory } from '../../core/kernel/fold/index.ts';
import { effectsOf, isRefusal, type Effects } from '../../core/kernel/option-effects.ts';
import type { AepEvent } from './projection/common.ts';

/** An answer as the words need it. */
export interface AnswerWords {
  kind?: string;
  option?: string;
  text?: string;
  by?: string;
  via?: string;
  effects?: Effects;
}

/** The answer an attention.answered event carries (what survived the ceiling), read alone (`tail`, event by event). */
export function answerOf(ev: AepEvent): AnswerWords {
  const d = (ev.data ?? {}) as { answer?: { option?: unknown; text?: unknown }; by?: unknown; via?: unknown };
  const s = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const effects = effectsOf(ev);
  return { option: s(d.answer?.option), text: s(d.answer?.text), by: s(d.by), via: s(d.via), ...(Object.keys(effects).length ? { effects } : {}) };
}

/** A request's answer from the fold, as the words need it (undefined: none on the stream). */
export function requestAnswer(q: RequestStory): AnswerWords | undefined {
  const a = foldAnswer(q);
  if (!a || (a.option === undefined && a.text === undefined)) return undefined;
  return { kind: q.req?.data?.kind, option: a.option, text: a.text, by: a.by, via: a.via, effects: q.effects };
}

/** A refusal: the kernel's reading (an option whose effect is deny or never; guidance text with no option on a permission). */
export function isDenial(f: AnswerWords): boolean {
  return isRefusal(f, { kind: f.kind, effects: f.effects });
}

/** ` by owner`, ` in the agent's own dialog`, or nothing when the stream does not say. */
const by = (f: AnswerWords) =>
  f.by?.startsWith('rule:')
    ? ` by rule ${f.by.slice(5)} (hookmap rules show ${f.by.slice(5)})`
    : f.by
      ? ` by ${f.by}`
      : f.via === 'oob'
        ? " in the agent's own dialog"
        : '';
const guidance = (f: AnswerWords) => (f.text !== undefined ? `: ${JSON.stringify(f.text)}` : '');

/** An answer in words: `deny by owner: "use the test database"`, `allow by alex`. */
export function answerWords(f: AnswerWords): string {
  return `${f.option ?? (isDenial(f) ? 'deny' : 'text')}${by(f)}${guidance(f)}`;
}

/** What a call with no terminal event of its own came to, from the fold's reading of the requests asked about it. */
export function unreportedCall(c: CallStory | undefined): string {
  const q = c && lastRequest(c);
  if (!c || !q) return 'no outcome reported';
  const fate = callFate(c);
  if (fate === 'timed-out') return 'not answered; the agent decided';
  const a = requestAnswer(q);
  if (!a) return 'no outcome reported';
  if (fate === 'refused') return `denied${by(a)}${guidance(a)}`;
  return `${answerWords(a)}; no outcome reported`;
}

/** A request's answer in words, when it has one. */
export function requestWords(q: RequestStory | undefined): string | undefined {
  const a = q && requestAnswer(q);
  return a ? answerWords(a) : undefined;
}
