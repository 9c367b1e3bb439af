// Client side of the relay, for the consumer CLI (tail, answer, cancel),
// bridges and the inbox: an SSE reader over fetch, a WebSocket session with
// the hello exchange, one command round trip (send, then ack or refusal,
// then outcome), and a resuming subscriber that survives relay restarts and
// slow-consumer closes (AEP-0003 §3.5 rule 4, §5, §8.4) delivering every
// event exactly once (AEP-0001 §7 dedupe).
import { hostname } from 'node:os';
import { ulid } from 'ulid';
import WebSocket from 'ws';
import { AEP_VERSION } from '../aep/schemas.ts';
import type { AepEvent } from './store.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8787';

export function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

export interface SseMessage { event?: string; id?: string; data?: string; comment?: string }

/**
 * Read an SSE stream to its end (or until onMessage returns false / the signal aborts).
 * onMessage may return a promise: reading pauses until it settles (backpressure
 * reaches the relay through TCP instead of piling up in this process).
 */
export async function readSse(url: string, headers: Record<string, string>, onMessage: (m: SseMessage) => boolean | void | Promise<boolean | void>, signal?: AbortSignal): Promise<void> {
  const res = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal });
  if (!res.ok || !res.body) {
    const body = await res.text().catch(() => '');
    throw new Error(`relay answered ${res.status}${body ? `: ${body}` : ''}`);
  }
  const decoder = new TextDecoder();
  let buf = '';
  let cur: SseMessage = {};
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, '');
        buf = buf.slice(nl + 1);
        if (line === '') {
          if (cur.data !== undefined || cur.comment !== undefined) {
            let r = onMessage(cur);
            if (r instanceof Promise) r = await r;
            if (r === false) return;
          }
          cur = {};
        } else if (line.startsWith(':')) {
          if (onMessage({ comment: line.slice(1).trim() }) === false) return;
        } else {
          const i = line.indexOf(':');
          const field = i < 0 ? line : line.slice(0, i);
          const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
          if (field === 'data') cur.data = cur.data === undefined ? value : `${cur.data}\n${value}`;
          else if (field === 'event') cur.event = value;
          else if (field === 'id') cur.id = value;
        }
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

export interface SocketSession {
  ws: WebSocket;
  hello: any;
  /** Every frame/event after hello goes to the current listeners. */
  on(listener: (msg: any) => void): () => void;
  send(msg: unknown): void;
  close(): void;
}

export function socketUrl(httpUrl: string): string {
  const u = new URL(httpUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/socket`;
  return u.toString();
}

export function openSocket(httpUrl: string, token: string | undefined, role: 'consumer' | 'both' = 'consumer', timeoutMs = 10_000): Promise<SocketSession> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(socketUrl(httpUrl), { headers: authHeaders(token) });
    const listeners = new Set<(m: any) => void>();
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('no hello from the relay in time'));
    }, timeoutMs);
    let hello: any;
    ws.on('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      reject(new Error(`relay refused the WebSocket: ${res.statusCode}${res.statusCode === 401 ? ' (wrong or missing token)' : ''}`));
    });
    ws.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    ws.on('open', () => {
      ws.send(JSON.stringify({ type: 'hello', versions: [AEP_VERSION], role, identity: { agent: 'hookmap-cli', instance: `${hostname()}/${process.pid}` }, capabilities: {} }));
    });
    ws.on('message', (data) => {
      let msg: any;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return;
      }
      // the relay's liveness probe (AEP-0003 §3.5 rule 5): echo it
      if (msg?.type === 'ping') {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'pong', t: msg.t }));
        return;
      }
      if (!hello) {
        clearTimeout(timer);
        if (msg.type !== 'hello') {
          ws.close();
          return reject(new Error(`relay refused hello: ${msg.code ?? msg.type} ${msg.detail ?? ''}`));
        }
        hello = msg;
        return resolve({
          ws,
          hello,
          on(l) {
            listeners.add(l);
            return () => listeners.delete(l);
          },
          send: (m) => ws.send(JSON.stringify(m)),
          close: () => ws.close(1000),
        });
      }
      for (const l of listeners) l(msg);
    });
  });
}

/** A command envelope from the CLI: no `seq` (foreign emitter, AEP-0001 §5.2). */
export function makeCommand(type: string, session: string, fields: { subject?: string; run?: string; data: Record<string, unknown> }): AepEvent {
  const ev: AepEvent = {
    aep: AEP_VERSION,
    id: ulid(),
    type,
    time: new Date().toISOString(),
    source: `aep://${encodeURIComponent(hostname())}/agent/hookmap-cli`,
    agent: 'hookmap-cli',
    session,
    data: fields.data,
  };
  if (fields.subject) ev.subject = fields.subject;
  if (fields.run) ev.run = fields.run;
  return ev;
}

export type CommandResult =
  | { kind: 'refused'; code: string; detail?: string }
  | { kind: 'timeout' }
  | { kind: 'acked'; ack: AepEvent; outcomes: AepEvent[]; outcomeTimedOut: boolean };

/**
 * Send one command and follow it: a cause-matched `error` frame is the
 * relay's refusal (AEP-0004 §4.2); `control.accepted`/`control.rejected`
 * with cause = the command id is the target's ack; after an acceptance,
 * events cause-linked to the command or the ack are its outcome, until
 * `isFinal` says the outcome is complete or the outcome window passes.
 */
export async function sendCommand(s: SocketSession, cmd: AepEvent, opts: { ackWindowMs: number; outcomeWindowMs: number; isFinal: (ev: AepEvent) => boolean; onEvent?: (ev: AepEvent) => void }): Promise<CommandResult> {
  // Watch the session first, so neither the ack nor the outcome can slip past.
  const subId = `cmd-${cmd.id}`;
  await new Promise<void>((resolve, reject) => {
    const off = s.on((m) => {
      if (m.id !== subId) return;
      off();
      if (m.type === 'subscribed') resolve();
      else reject(new Error(`relay refused the watch subscription: ${m.code} ${m.detail ?? ''}`));
    });
    s.send({ type: 'subscribe', id: subId, filter: { session: cmd.session } });
  });
  return new Promise<CommandResult>((resolve) => {
    let ack: AepEvent | undefined;
    const outcomes: AepEvent[] = [];
    let timer = setTimeout(() => finish({ kind: 'timeout' }), opts.ackWindowMs);
    const off = s.on((m) => {
      if (m.type === 'error' && m.cause === cmd.id) return finish({ kind: 'refused', code: m.code, detail: m.detail });
      if (typeof m.type !== 'string' || !m.type.includes('.')) return;
      const ev = m as AepEvent;
      if (!ack && ev.cause === cmd.id && (ev.type === 'control.accepted' || ev.type === 'control.rejected')) {
        ack = ev;
        opts.onEvent?.(ev);
        clearTimeout(timer);
        if (ev.type === 'control.rejected' || outcomes.some(opts.isFinal)) return finish({ kind: 'acked', ack, outcomes, outcomeTimedOut: false });
        timer = setTimeout(() => finish({ kind: 'acked', ack: ack!, outcomes, outcomeTimedOut: true }), opts.outcomeWindowMs);
        return;
      }
      const linked = ev.cause === cmd.id || (ack !== undefined && ev.cause === ack.id) || outcomes.some((o) => o.id === ev.cause);
      if (linked && ev.type !== 'control.accepted' && ev.type !== 'control.rejected' && ev.id !== cmd.id) {
        if (outcomes.some((o) => o.id === ev.id && o.source === ev.source)) return; // at-least-once: dedupe
        outcomes.push(ev);
        opts.onEvent?.(ev);
        if (ack && opts.isFinal(ev)) finish({ kind: 'acked', ack, outcomes, outcomeTimedOut: false });
      }
    });
    function finish(r: CommandResult) {
      clearTimeout(timer);
      off();
      resolve(r);
    }
    s.send(cmd);
  });
}

export interface Pos { epoch: number; seq: number }

/**
 * What a resuming consumer has delivered, so a reconnect neither loses nor
 * repeats (AEP-0001 §7: dedupe on (source, id); positions per session).
 * After a reconnect the consumer asks for everything held (`from: all`) and
 * this drops what it already delivered: positions at or below the last one
 * seen per session, and, for a session it never saw, events from before it
 * started watching (their `time`), unless it asked for history.
 */
export class ResumeState {
  readonly positions = new Map<string, Pos & { touched: number }>();
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];
  /** ISO time the watch began; events of unseen sessions older than this are history the consumer never asked for. */
  watchStart: string | undefined;

  constructor(opts: { history?: boolean; positions?: Record<string, Pos> } = {}) {
    this.watchStart = opts.history ? undefined : new Date().toISOString();
    for (const [s, p] of Object.entries(opts.positions ?? {})) this.positions.set(s, { epoch: p.epoch, seq: p.seq, touched: 0 });
  }

  /** True when `ev` is new to this consumer (and records it); false for a redelivery or, after a resume, unasked history. */
  accept(ev: AepEvent, resumed = false): boolean {
    const key = `${ev.source}\u0000${ev.id}`;
    if (this.seen.has(key)) return false;
    if (typeof ev.session === 'string' && typeof ev.seq === 'number') {
      const p = this.positions.get(ev.session);
      const epoch = ev.epoch ?? 0;
      if (p && (epoch < p.epoch || (epoch === p.epoch && ev.seq <= p.seq))) return false;
      if (!p && resumed && this.watchStart && typeof ev.time === 'string' && ev.time < this.watchStart) return false;
      this.positions.set(ev.session, { epoch, seq: ev.seq, touched: Date.now() });
    }
    this.seen.add(key);
    this.seenOrder.push(key);
    if (this.seenOrder.length > 10_000) this.seen.delete(this.seenOrder.shift()!);
    return true;
  }

  /** The most recently touched positions, at most `max` (a relay's from_positions bound). */
  list(max = 500): { session: string; epoch: number; seq: number }[] {
    return [...this.positions].sort((a, b) => b[1].touched - a[1].touched).slice(0, max).map(([session, p]) => ({ session, epoch: p.epoch, seq: p.seq }));
  }
}

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
  from?: 'all' | { session: string; epoch: number; seq: number }[];
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
  const state = new ResumeState({ history: o.from === 'all', positions: Array.isArray(o.from) ? Object.fromEntries(o.from.map((p) => [p.session, p])) : undefined });
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
