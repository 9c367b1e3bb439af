// What became of each thing the fold (fold.ts) holds, read from the events it
// gathered: the one reading `timeline`, `tail`, the OTLP trace, the inbox,
// `held` and `answer` render. An answer's meaning is its option's effect
// (option-effects.ts: allow, deny, always, never), never guessed from an id.
// The stream is left as it is: a call denied only by its request's answer
// is `refused`, no tool.denied is invented. Browser-safe.
import { fateOf, runEnd, type RunEnd } from '../lifecycle.ts';
import { effectOf, isRefusal, type OptionEffect } from '../option-effects.ts';
import type { CallStory, FoldEvent, RequestStory, RunStory } from './story.ts';

/**
 * A request's fate: `open` (nothing settled it yet), `answered` (an answer that
 * does not refuse), `refused` (an answer whose option's effect is deny or
 * never, or guidance text on a permission), `timed-out` (nobody answered; the
 * agent's own dialog decided), `dismissed` / `resolved` (closed with no answer
 * on the stream), `unanswered` (its session ended first).
 */
export type RequestFate = 'open' | 'answered' | 'refused' | 'timed-out' | 'dismissed' | 'resolved' | 'unanswered';

/**
 * A call's fate: its own terminal (`completed`, `failed`, `denied`), else what
 * its last request came to (`refused`, `timed-out`), else `unreported` once
 * its run or session ended, `waiting` while a request about it is open,
 * `running` otherwise.
 */
export type CallFate = 'running' | 'waiting' | 'completed' | 'failed' | 'denied' | 'refused' | 'timed-out' | 'unreported';

/** A run's fate: its terminal's (finished, failed, cancelled), `ended` when its session ended first, else `running`. */
export type RunFate = RunEnd | 'ended' | 'running';

/** An answer as the stream says it, with what its option means. */
export interface AnswerFacts {
  option?: string;
  effect?: OptionEffect;
  refuses: boolean;
  text?: string;
  values?: unknown;
  by?: string;
  via?: string;
  /** Answered in the agent's own dialog (via `oob`), not through hookmap. */
  inAgentDialog: boolean;
  event: FoldEvent;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The answer a request got, when the stream carries it. */
export function answerOf(q: RequestStory): AnswerFacts | undefined {
  const ev = q.answered;
  if (!ev) return undefined;
  const d = ev.data ?? {};
  const a = d.answer && typeof d.answer === 'object' ? d.answer : {};
  const option = str(a.option);
  return {
    option,
    effect: effectOf(option, q.effects),
    refuses: isRefusal(a, { kind: q.req?.data?.kind, effects: q.effects }),
    text: str(a.text),
    values: a.values,
    by: str(d.by),
    via: str(d.via),
    inAgentDialog: d.via === 'oob',
    event: ev,
  };
}

export function requestFate(q: RequestStory): RequestFate {
  if (q.timeout) return 'timed-out';
  const a = answerOf(q);
  if (a) return a.refuses ? 'refused' : 'answered';
  const resolution = q.resolved?.data?.resolution;
  if (q.resolved) return resolution === 'answered' ? 'answered' : resolution === 'dismissed' ? 'dismissed' : 'resolved';
  return q.closedBy ? 'unanswered' : 'open';
}

/** Whether a request is settled (no answer is taken any more). */
export const isSettled = (q: RequestStory): boolean => requestFate(q) !== 'open';

/** The request whose answer tells what became of a call with no terminal of its own: the last one asked about it. */
export const lastRequest = <E extends FoldEvent>(c: CallStory<E>): RequestStory<E> | undefined => c.requests[c.requests.length - 1];

export function callFate(c: CallStory): CallFate {
  if (c.end) {
    const f = fateOf(c.end.type)?.fate;
    if (f === 'completed') return c.end.data?.status === 'error' ? 'failed' : 'completed';
    return f === 'failed' ? 'failed' : 'denied';
  }
  const q = lastRequest(c);
  const rf = q ? requestFate(q) : undefined;
  if (rf === 'refused' || rf === 'timed-out') return rf;
  if (c.closedBy) return 'unreported';
  return rf === 'open' ? 'waiting' : 'running';
}

export function runFate(r: RunStory): RunFate {
  if (r.end) return runEnd(r.end.type) ?? 'cancelled';
  return r.closedBy ? 'ended' : 'running';
}
