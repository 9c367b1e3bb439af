// Test helpers: a relay on an ephemeral loopback port, event factories, and
// SSE / WebSocket clients that collect what they receive. Waiting is always
// on a condition (never on a duration); the vitest timeout is the backstop.
import http from 'node:http';
import WebSocket from 'ws';
import { afterEach } from 'vitest';
import { createRelay, type CreateRelayOptions, type Relay } from '../../../engine/runtime/relay/index.ts';

/**
 * A relay on an ephemeral loopback port. A test that names no credentials
 * gets an explicitly token-less one (`noAuth: true`: watch-only, the
 * posture these protocol tests probe); pass `token` or `auth` otherwise.
 */
export async function startRelay(opts: CreateRelayOptions = {}): Promise<{ relay: Relay; url: string; port: number }> {
  const credentials = opts.token !== undefined || opts.auth !== undefined || opts.noAuth !== undefined ? {} : { noAuth: true };
  const relay = createRelay({ host: '127.0.0.1', port: 0, ...credentials, ...opts });
  const { url, port } = await relay.listen();
  return { relay, url, port };
}

let idn = 0;
export function ev(session: string, seq: number, extra: Record<string, unknown> = {}): Record<string, any> {
  return {
    aep: '0.1',
    id: `e-${session}-${seq}-${++idn}`,
    type: 'tool.completed',
    time: '2026-07-03T10:15:04.221Z',
    source: `aep://host-a/agent/test/session/${session}`,
    agent: 'test',
    session,
    seq,
    ...extra,
  };
}

export function agentEv(extra: Record<string, unknown> = {}): Record<string, any> {
  return {
    aep: '0.1',
    id: `a-${++idn}`,
    type: 'agent.heartbeat',
    time: '2026-07-03T10:15:04.221Z',
    source: 'aep://host-a/agent/test',
    agent: 'test',
    ...extra,
  };
}

export async function until(cond: () => boolean | Promise<boolean>, what = 'condition'): Promise<void> {
  for (let i = 0; ; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, i < 20 ? 2 : 10));
    if (i > 20_000) throw new Error(`gave up waiting for ${what}`);
  }
}

export async function post(
  url: string,
  events: unknown[] | string,
  opts: { token?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const ndjson = Array.isArray(events);
  const body = ndjson ? (events as unknown[]).map((e) => JSON.stringify(e)).join('\n') : (events as string);
  const res = await fetch(`${url}/events`, {
    method: 'POST',
    headers: {
      'content-type': ndjson ? 'application/x-ndjson' : 'application/json',
      'aep-version': '0.1',
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers,
    },
    body,
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

export interface SseMsg {
  id?: string;
  event?: string;
  data?: any;
  raw?: string;
  comment?: string;
}

/** An SSE client over a raw http request: collects messages and comments in order. */
export class SseClient {
  msgs: SseMsg[] = [];
  status = 0;
  ended = false;
  private req?: http.ClientRequest;
  private res?: http.IncomingMessage;

  static open(url: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<SseClient> {
    const c = new SseClient();
    const u = new URL(`${url}/events`);
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
    return new Promise((resolve, reject) => {
      c.req = http.get(u, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        c.res = res;
        c.status = res.statusCode ?? 0;
        let buf = '';
        let cur: SseMsg = {};
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line === '') {
              if (cur.raw !== undefined) c.msgs.push(cur);
              cur = {};
            } else if (line.startsWith(':')) c.msgs.push({ comment: line.slice(1).trim() });
            else if (line.startsWith('id: ')) cur.id = line.slice(4);
            else if (line.startsWith('event: ')) cur.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              cur.raw = line.slice(6);
              cur.data = JSON.parse(cur.raw);
            }
          }
        });
        res.on('end', () => (c.ended = true));
        res.on('close', () => (c.ended = true));
        // Resolve once the relay says the subscription exists (or refused it).
        if (c.status !== 200) {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => {
            c.msgs.push({ data: body ? JSON.parse(body) : undefined });
            resolve(c);
          });
          return;
        }
        until(() => c.msgs.length > 0 && c.msgs[0].comment === 'subscribed').then(() => resolve(c), reject);
      });
      c.req.on('error', (e) => ((c.ended = true), c.status ? undefined : reject(e)));
    });
  }

  get events(): any[] {
    return this.msgs.filter((m) => m.data !== undefined && m.event).map((m) => m.data);
  }

  waitEvents(n: number): Promise<any[]> {
    return until(() => this.events.length >= n, `${n} SSE events`).then(() => this.events);
  }

  close(): void {
    this.req?.destroy();
  }
}

/** A WebSocket client that records every message it gets, parsed. */
export class WsClient {
  msgs: any[] = [];
  closeCode?: number;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      try {
        this.msgs.push(JSON.parse(d.toString()));
      } catch {
        this.msgs.push({ unparsed: d.toString() });
      }
    });
    ws.on('close', (code) => (this.closeCode = code));
  }

  static connect(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket`, { headers });
    const c = new WsClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(c));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    });
  }

  /** Connect and complete a hello; returns the client with the relay's hello consumed. */
  static async hello(url: string, hello: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<WsClient> {
    const c = await WsClient.connect(url, headers);
    c.send({ type: 'hello', versions: ['0.1'], role: 'consumer', ...hello });
    const h = await c.next((m) => m.type === 'hello' || m.type === 'error');
    if (h.type !== 'hello') throw new Error(`hello refused: ${JSON.stringify(h)}`);
    return c;
  }

  send(m: unknown): void {
    this.ws.send(typeof m === 'string' ? m : JSON.stringify(m));
  }

  /** The first recorded message matching `pred` (waits for it), removed from the record. */
  async next(pred: (m: any) => boolean): Promise<any> {
    let found: any;
    await until(() => {
      const i = this.msgs.findIndex(pred);
      if (i < 0) return false;
      found = this.msgs.splice(i, 1)[0];
      return true;
    }, 'a matching WS message');
    return found;
  }

  /** Ask with a ping and wait for its pong: everything the relay sent before it has arrived. */
  async sync(): Promise<void> {
    const t = `sync-${Math.random()}`;
    this.send({ type: 'ping', t });
    await this.next((m) => m.type === 'pong' && m.t === t);
  }

  events(): any[] {
    return this.msgs.filter((m) => typeof m.type === 'string' && m.type.includes('.'));
  }

  waitClosed(): Promise<number> {
    return until(() => this.closeCode !== undefined, 'close').then(() => this.closeCode!);
  }

  close(): void {
    this.ws.close();
  }
}

/**
 * Per-test relays and clients, closed after each test (newest first).
 * Call once at the top of a test file.
 */
export function relayFixtures() {
  let stop: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const s of stop.reverse()) await s();
    stop = [];
  });
  return {
    async relay(opts: CreateRelayOptions = {}) {
      const r = await startRelay(opts);
      stop.push(() => r.relay.close());
      return r;
    },
    async sse(url: string, q: Record<string, string> = {}, h: Record<string, string> = {}) {
      const c = await SseClient.open(url, q, h);
      stop.push(() => c.close());
      return c;
    },
    async hello(url: string, h: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
      const c = await WsClient.hello(url, h, headers);
      stop.push(() => c.close());
      return c;
    },
    /** Close something extra after the test. */
    defer(fn: () => Promise<void> | void) {
      stop.push(fn);
    },
  };
}
