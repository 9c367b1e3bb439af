// Following the relay's SSE stream across drops (AEP-0003 §3.3, §5, §8.4):
// one connect per turn of the loop, the subscription URL built from the
// filter, capture and where to start; every event passed through the
// consumer's ResumeState so a reconnect neither loses nor repeats one;
// comments (subscribed, closing, replay-exhausted) handed to the caller.
// What to do when a connect fails or the stream ends (retry after how long,
// or stop) is the caller's policy: `hookmap tail` retries every second and
// stops on a 4xx; a bridge backs off exponentially and stops on a refusal.
import type { AepEvent } from './store.ts';
import type { ResumeState } from './client-resume.ts';
import { authHeaders, readSse, sseJson, type SseMessage, type SseTrust } from './client-sse.ts';

export interface SseFollowOptions {
  url: string;
  token?: string;
  tls?: SseTrust;
  filter?: Record<string, unknown>;
  capture?: string;
  /** What this consumer has received: a redelivered event is dropped before `onEvent`. */
  state: ResumeState;
  /** The `from` of this connect (`resumed`: not the first one); undefined starts live. */
  from: (resumed: boolean) => string | undefined;
  /** The first connect already resumes (positions known from before this process): it skips unasked history too. */
  resumedAtStart?: boolean;
  /** false asks for what is held only (`live=0`): the stream ends after the replay. */
  live?: boolean;
  signal: AbortSignal;
  /** A comment line of the stream (`subscribed`, `closing ...`, `replay-exhausted ...`). */
  onComment?: (comment: string, resumed: boolean) => void;
  /** A new event; false stops following (the caller has what it wanted), a promise pauses reading until it settles. */
  onEvent: (ev: AepEvent, m: SseMessage, resumed: boolean) => boolean | void | Promise<boolean | void>;
  /** The stream ended (the relay closed it) or this connect failed (`error`): wait this many ms and resume, or stop. */
  next: (why: { error?: Error; gotData: boolean }) => number | 'stop';
  /** A duplicate was dropped (counted by those who count). */
  onDuplicate?: () => void;
}

/** Follow until `onEvent` says stop, `next` says stop, or the signal aborts. Resolves how it stopped. */
export async function followSse(o: SseFollowOptions): Promise<'done' | 'stopped' | 'aborted'> {
  let connects = 0;
  while (!o.signal.aborted) {
    const resumed = connects++ > 0 || !!o.resumedAtStart;
    const u = new URL(`${o.url.replace(/\/+$/, '')}/events`);
    if (o.filter && Object.keys(o.filter).length) u.searchParams.set('filter', JSON.stringify(o.filter));
    if (o.capture) u.searchParams.set('capture', o.capture);
    const from = o.from(resumed);
    if (from !== undefined) u.searchParams.set('from', from);
    if (o.live === false) u.searchParams.set('live', '0');
    let done = false;
    let gotData = false;
    let error: Error | undefined;
    try {
      await readSse(
        u.toString(),
        authHeaders(o.token),
        (m) => {
          if (m.comment !== undefined) o.onComment?.(m.comment, resumed);
          const ev = sseJson<AepEvent>(m);
          if (!ev) return;
          gotData = true;
          if (!o.state.accept(ev, resumed)) return void o.onDuplicate?.(); // at-least-once delivery: each event once
          const r = o.onEvent(ev, m, resumed);
          if (r === false) {
            done = true;
            return false;
          }
          return r instanceof Promise ? r.then((x) => (x === false ? ((done = true), false) : undefined)) : undefined;
        },
        o.signal,
        o.tls,
      );
    } catch (e) {
      if (o.signal.aborted) return 'aborted';
      error = e as Error;
    }
    if (done) return 'done';
    if (o.signal.aborted) return 'aborted';
    const wait = o.next({ error, gotData });
    if (wait === 'stop') return 'stopped';
    await new Promise<void>((r) => {
      const t = setTimeout(r, wait);
      o.signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
    });
  }
  return 'aborted';
}
