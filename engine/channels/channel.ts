// What every chat channel is to `hookmap up`: a sink of the moments
// (moments.ts) that also starts, stops, sends a test message and says how
// it is doing (doctor, `hookmap channels test`), with the shared answer path
// (engine/push/answer-as.ts) and a way to say a problem once.
import type { AnswerDeps } from '../push/answer-as.ts';
import type { Moment, MomentSink, Moments } from './moments.ts';

export interface ChannelDeps {
  answer: AnswerDeps;
  moments: Moments;
  /** A one-time action credential for this request, held by this channel (what its action URLs carry: POST /push/action). */
  credential: (m: Moment) => string;
  /** A line on up's stderr. */
  say: (line: string) => void;
}

export interface Channel extends MomentSink {
  start(): Promise<void>;
  close(): Promise<void>;
  /** Send a test message; resolves with what happened, in words. */
  test(): Promise<{ ok: boolean; detail: string }>;
}

/** Say each distinct problem once (a channel down for an hour is one line, not thousands). */
export function onceSayer(say: (line: string) => void, prefix: string): (key: string, line: string) => void {
  const said = new Set<string>();
  return (key, line) => {
    if (said.has(key)) return;
    if (said.size > 500) said.clear();
    said.add(key);
    say(`${prefix}: ${line}`);
  };
}
