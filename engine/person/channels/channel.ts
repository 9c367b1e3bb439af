// What every chat channel is to `hookmap up`: a sink of the moments
// (moments.ts) that also starts, stops, sends a test message and says how
// it is doing (doctor, `hookmap channels test`), with the shared answer path
// (engine/person/push/answer-as.ts) and a way to say a problem once.
import type { AnswerDeps } from '../push/answer-as.ts';
import type { ChatLaunch } from './chat-launch.ts';
import type { Moment, MomentSink, Moments } from '../push/moments.ts';

export interface ChannelDeps {
  answer: AnswerDeps;
  moments: Moments;
  /** A one-time action credential for this request, held by this channel (what its action URLs carry: POST /push/action). */
  credential: (m: Moment) => string;
  /** Someone saw the request here ("I'm on it"): an x.hookmap.attention.seen on the stream (false: not pending, or the operator session is not open). */
  seen?: (request: string, by: string, via: string) => boolean;
  /** A line on up's stderr. */
  say: (line: string) => void;
  /** Starting agent sessions (`/new`), where up has a launcher. */
  launch?: ChatLaunch;
}

export interface Channel extends MomentSink {
  start(): Promise<void>;
  close(): Promise<void>;
  /** Send a test message; resolves with what happened, in words. */
  test(): Promise<{ ok: boolean; detail: string }>;
  /** Its last problem, for /healthz and doctor. */
  readonly health: ChannelHealth;
}

/** A channel's problems: each distinct one said once (a channel down for an hour is one line, not thousands), the last one kept for doctor. */
export class ChannelHealth {
  private readonly said = new Set<string>();
  last?: { at: string; problem: string };

  constructor(
    private readonly say: (line: string) => void,
    private readonly prefix: string,
  ) {}

  problem(key: string, line: string): void {
    this.last = { at: new Date().toISOString(), problem: line };
    this.note(key, line);
  }

  /** Said once, but not a problem of the channel (someone not allowed pressed a button). */
  note(key: string, line: string): void {
    if (this.said.has(key)) return;
    if (this.said.size > 500) this.said.clear();
    this.said.add(key);
    this.say(`${this.prefix}: ${line}`);
  }

  view(): { ok: boolean; problem?: string; at?: string } {
    return this.last ? { ok: false, ...this.last } : { ok: true };
  }
}
