// A resuming relay subscriber (engine/runtime/relay/client.ts re-exports it) that
// survives relay restarts and slow-consumer closes (AEP-0003 §3.5 rule 4,
// §5, §8.4), delivering every event exactly once (AEP-0001 §7 dedupe).
// Moved out of client.ts.
import type { SocketSession } from './client-socket.ts';
import { comparePositions, type Position as Pos } from '../../core/kernel/position.ts';
import type { AepEvent } from './store.ts';

export type { Pos };

/**
 * What a resuming consumer has delivered, so a reconnect neither loses nor
 * repeats (AEP-0001 §7: dedupe on (source, id); positions per session).
 * After a reconnect the consumer asks for everything held (`from: all`) and
 * this drops what it already delivered: positions at or below the last one
 * seen per session, and, for a session it never saw, events from before it
 * started watching (their `time`), unless it asked for history.
 *
 * A session id is its emitter's (AEP-0001 §5.2): two emitters may carry the
 * same one (an agent's hook channel and its OTel channel), each with its own
 * positions. What was delivered is kept per (emitter, session); what a
 * resume asks the relay for (`positions`, `list`) is per session, the lowest
 * of its emitters', so a resume never skips the other emitter's events (the
 * relay resends some the consumer has: dropped here).
 */
export class ResumeState {
  /** Per session: the lowest position delivered across its emitters (what a resume asks from). */
  readonly positions = new Map<string, Pos & { touched: number }>();
  /** Per emitter and session (`<emitter>\0<session>`): the last position delivered. */
  private readonly delivered = new Map<string, Map<string, Pos>>();
  /** Positions a resume started from (saved per session, emitters unknown): a floor for every emitter of the session. */
  private readonly floors = new Map<string, Pos>();
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];
  /** ISO time the watch began; events of unseen sessions older than this are history the consumer never asked for. */
  watchStart: string | undefined;

  constructor(opts: { history?: boolean; positions?: Record<string, Pos> } = {}) {
    this.watchStart = opts.history ? undefined : new Date().toISOString();
    for (const [s, p] of Object.entries(opts.positions ?? {})) {
      this.positions.set(s, { epoch: p.epoch, seq: p.seq, touched: 0 });
      this.floors.set(s, { epoch: p.epoch, seq: p.seq });
    }
  }

  /** True when `ev` is new to this consumer (and records it); false for a redelivery or, after a resume, unasked history. */
  accept(ev: AepEvent, resumed = false): boolean {
    const key = `${ev.source}\u0000${ev.id}`;
    if (this.seen.has(key)) return false;
    if (typeof ev.session === 'string' && typeof ev.seq === 'number') {
      const emitter = emitterOf(ev.source);
      let mine = this.delivered.get(ev.session);
      const p = mine?.get(emitter) ?? this.floors.get(ev.session);
      const epoch = ev.epoch ?? 0;
      if (p && comparePositions({ epoch, seq: ev.seq }, p) <= 0) return false;
      if (!p && !this.positions.has(ev.session) && resumed && this.watchStart && typeof ev.time === 'string' && ev.time < this.watchStart) return false;
      if (!mine) this.delivered.set(ev.session, (mine = new Map()));
      mine.set(emitter, { epoch, seq: ev.seq });
      let low: Pos = { epoch, seq: ev.seq };
      for (const q of mine.values()) if (comparePositions(q, low) < 0) low = q;
      this.positions.set(ev.session, { ...low, touched: Date.now() });
    }
    this.seen.add(key);
    this.seenOrder.push(key);
    if (this.seenOrder.length > 10_000) this.seen.delete(this.seenOrder.shift()!);
    return true;
  }

  /** The most recently touched positions, at most `max` (a relay's from_positions bound). */
  list(max = 500): (Pos & { session: string })[] {
    return [...this.positions]
      .sort((a, b) => b[1].touched - a[1].touched)
      .slice(0, max)
      .map(([session, p]) => ({ session, epoch: p.epoch, seq: p.seq }));
  }
}

/** The emitter part of a source (`aep://h/agent/a/session/s` → `aep://h/agent/a`). */
const emitterOf = (source: unknown): string => {
  const s = typeof source === 'string' ? source : '';
  const i = s.indexOf('/session/');
  return i >= 0 ? s.slice(0, i) : s;
};

export type ResumeNotice =
  | { kind: 'connected'; resumed: boolean }
  | { kind: 'closing'; reason: string }
  | { kind: 'disconnected'; reason: string; retryInMs: number }
  | { kind: 'exhausted'; session: string; earliest: Pos };

export interface ResumingOptions {
  url: string;
  token?: string;
  filter?: unknown;
  capture?: string;
  /** Where the first subscription starts: live (default), everything held, or positions. */
  from?: 'all' | (Pos & { session: string })[];
  onEvent: (ev: AepEvent, raw: string) => void;
  /** Connection facts worth telling a user: resumed after a drop, closed by the relay (and why), history gone. */
  onNotice?: (n: ResumeNotice) => void;
  backoffMs?: { initial: number; max: number };
}

export interface ResumingSubscription {
  readonly state: ResumeState;
  close(): Promise<void>;
}

/**
 * A WebSocket consumer that survives relay restarts and slow-consumer
 * closes (AEP-0003 §3.5 rule 4, §8.4): on any close it reconnects with
 * backoff and resumes (`from: all`, minus what it already delivered), so
 * the events it hands on are every event exactly once. For bridges, the
 * inbox's server side and any long-running hookmap consumer.
 */
export function subscribeResuming(o: ResumingOptions): ResumingSubscription {
  const state = new ResumeState({
    history: o.from === 'all',
    positions: Array.isArray(o.from) ? Object.fromEntries(o.from.map((p) => [p.session, p])) : undefined,
  });
  let closed = false;
  let current: SocketSession | undefined;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;
  let connects = 0;
  const { initial, max } = o.backoffMs ?? { initial: 250, max: 5_000 };

  const connect = async () => {
    if (closed) return;
    let s: SocketSession;
    try {
      // loaded here, not with ResumeState (which `tail` uses over SSE)
      const { openSocket } = await import('./client-socket.ts');
      s = await openSocket(o.url, o.token, 'consumer');
    } catch (e) {
      return scheduleRetry((e as Error).message);
    }
    if (closed) return s.close();
    current = s;
    attempt = 0;
    const resumed = connects++ > 0;
    const from = resumed ? 'all' : o.from;
    s.on((m) => {
      if (m?.type === 'closing') return o.onNotice?.({ kind: 'closing', reason: String(m.reason ?? '') });
      if (m?.type === 'replay-exhausted' && m.earliest) return o.onNotice?.({ kind: 'exhausted', session: String(m.session), earliest: m.earliest });
      if (typeof m?.type !== 'string' || !m.type.includes('.')) return;
      const ev = m as AepEvent;
      if (!state.accept(ev, resumed)) return;
      o.onEvent(ev, JSON.stringify(ev));
    });
    s.ws.once('close', (code: number, reason: Buffer) => {
      if (current === s) current = undefined;
      scheduleRetry(`closed ${code}${reason?.length ? ` ${reason.toString()}` : ''}`);
    });
    const sub: Record<string, unknown> = { type: 'subscribe', id: 'resuming' };
    if (o.filter !== undefined) sub.filter = o.filter;
    if (o.capture !== undefined) sub.capture = o.capture;
    if (from !== undefined) sub.from = from;
    s.send(sub);
    o.onNotice?.({ kind: 'connected', resumed });
  };

  const scheduleRetry = (reason: string) => {
    if (closed) return;
    const delay = Math.min(max, initial * 2 ** Math.min(attempt++, 16));
    o.onNotice?.({ kind: 'disconnected', reason, retryInMs: delay });
    clearTimeout(retry);
    retry = setTimeout(() => void connect(), delay);
  };

  void connect();
  return {
    state,
    async close() {
      closed = true;
      clearTimeout(retry);
      const s = current;
      current = undefined;
      if (s && s.ws.readyState === s.ws.OPEN) {
        await new Promise<void>((r) => {
          s.ws.once('close', () => r());
          s.close();
          setTimeout(r, 1000).unref();
        });
      }
    },
  };
}
