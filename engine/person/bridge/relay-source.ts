// The bridges' live input: the relay's SSE stream (engine/runtime/relay/client.ts
// readSse), as an async iterable with bounded memory. What was already
// received is tracked by the relay client's ResumeState (dedupe on
// (source, id) and on (epoch, seq) per session, AEP-0001 §7.4, AEP-0003 §7),
// as for `hookmap tail`; a dropped or closed stream reconnects with backoff
// and replays the relay's buffer (replay-all, AEP-0003 §5) minus what was
// received, so nothing is lost or doubled (sessions that started while
// disconnected included). When the consumer falls behind (a slow or failing sink), the
// source stops reading at `highWater` buffered events until it drains to
// `lowWater`: the stream stays open and TCP carries the backpressure to the
// relay, whose slow-consumer bound (close with positions, AEP-0003 §8.4)
// applies from there; a close is one more reconnect. Memory here is bounded.
import { ResumeState, type SseTrust } from '../../runtime/relay/client.ts';
import { followSse } from '../../runtime/relay/client-sse-follow.ts';
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import type { AepEvent } from './projection/common.ts';
import { Positions } from './positions.ts';

export interface RelaySourceOptions {
  url: string;
  token?: string;
  /** Extra trust for an https relay (our own `up --tls-*` certificate, pinned). */
  tls?: SseTrust;
  filter?: Record<string, unknown>;
  /** Asked of the relay (AEP-0003 §6.4); the bridge's projection enforces it again. */
  capture?: CaptureLevel;
  /** Positions already delivered (restored from the checkpoint): never emitted again. */
  positions?: Positions;
  /** First start without positions: `all` exports what the relay holds, `live` only what arrives from now. */
  start?: 'all' | 'live';
  highWater?: number;
  lowWater?: number;
  say?: (line: string) => void;
  /** Fatal refusals (401/403/400): the source ends with this error. */
  onFatal?: (err: Error) => void;
}

export interface RelaySourceStats {
  received: number;
  duplicates: number;
  connects: number;
  pauses: number;
  exhausted: number;
  maxBuffered: number;
}

export class RelaySource implements AsyncIterable<AepEvent> {
  readonly stats: RelaySourceStats = { received: 0, duplicates: 0, connects: 0, pauses: 0, exhausted: 0, maxBuffered: 0 };
  /** What was received so far (ahead of what was delivered while a batch is in flight). */
  readonly received: ResumeState;
  private buffer: AepEvent[] = [];
  private wake?: () => void;
  private drained?: () => void;
  private readonly stop = new AbortController();
  private ended = false;
  private error?: Error;
  private readonly highWater: number;
  private readonly lowWater: number;

  constructor(private readonly o: RelaySourceOptions) {
    const known = Object.fromEntries(Object.entries(o.positions?.toJSON() ?? {}).map(([session, [epoch, seq]]) => [session, { epoch, seq }]));
    // a `live` start never exports what predates it, even when a reconnect replays the buffer
    this.received = new ResumeState({ history: o.start !== 'live', positions: known });
    this.highWater = o.highWater ?? 1000;
    this.lowWater = o.lowWater ?? Math.floor(this.highWater / 4);
    void this.pump();
  }

  close(): void {
    this.stop.abort();
    this.ended = true;
    this.wake?.();
  }

  /** Closed (or refused) and nothing left to read. */
  get finished(): boolean {
    return this.ended && this.buffer.length === 0;
  }

  get buffered(): number {
    return this.buffer.length;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AepEvent> {
    for (;;) {
      const ev = await this.next();
      if (ev === undefined) {
        if (this.error) throw this.error;
        return;
      }
      yield ev;
    }
  }

  /** The next event, or undefined once closed. */
  async next(): Promise<AepEvent | undefined> {
    while (this.buffer.length === 0) {
      if (this.ended) return undefined;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
    const ev = this.buffer.shift()!;
    if (this.buffer.length <= this.lowWater) this.drained?.();
    return ev;
  }

  /** Resolves when an event is buffered (or the source ends); used to wait with a timer beside it. */
  ready(): Promise<void> {
    if (this.buffer.length || this.ended) return Promise.resolve();
    return new Promise<void>((r) => {
      const prev = this.wake;
      this.wake = () => {
        prev?.();
        r();
      };
    });
  }

  private async pump(): Promise<void> {
    const say = this.o.say ?? (() => {});
    let backoff = 250;
    await followSse({
      url: this.o.url,
      token: this.o.token,
      tls: this.o.tls,
      filter: this.o.filter,
      capture: this.o.capture,
      state: this.received,
      signal: this.stop.signal,
      // Live-only is right for the very first connect of a `live` start; every other
      // connect replays the relay's buffer and skips what was already received.
      resumedAtStart: this.received.positions.size > 0,
      from: (resumed) => {
        this.stats.connects++;
        return resumed || this.o.start !== 'live' ? 'all' : undefined;
      },
      onComment: (comment) => {
        if (!comment.startsWith('replay-exhausted')) return;
        this.stats.exhausted++;
        say(`relay: ${comment}: events before that position are gone from its buffer (read them from the agent's log)`);
      },
      onDuplicate: () => void this.stats.duplicates++,
      onEvent: (ev) => {
        this.stats.received++;
        this.buffer.push(ev);
        if (this.buffer.length > this.stats.maxBuffered) this.stats.maxBuffered = this.buffer.length;
        this.wake?.();
        if (this.buffer.length >= this.highWater) return this.pause(); // stop reading until drained
      },
      next: ({ error, gotData }) => {
        if (!error) say(`relay ended the stream (its slow-consumer bound or a restart); resuming from what was received`);
        else {
          const cause = (error as { cause?: { code?: string } }).cause?.code;
          const msg = `${error.message}${cause ? ` (${cause})` : ''}`;
          if (/ (400|401|403)\b/.test(msg)) {
            this.error = new Error(`relay refused the stream: ${msg}`);
            this.o.onFatal?.(this.error);
            return 'stop';
          }
          say(`relay: ${msg}; reconnecting in ${backoff} ms`);
        }
        if (gotData) backoff = 250;
        const wait = backoff;
        backoff = Math.min(backoff * 2, 10_000);
        return wait;
      },
    });
    this.ended = true;
    this.wake?.();
  }

  private pause(): Promise<void> {
    this.stats.pauses++;
    return new Promise<void>((r) => {
      const done = () => {
        this.drained = undefined;
        this.stop.signal.removeEventListener('abort', done);
        r();
      };
      this.drained = done;
      this.stop.signal.addEventListener('abort', done, { once: true });
      if (this.buffer.length <= this.lowWater) done();
    });
  }
}
