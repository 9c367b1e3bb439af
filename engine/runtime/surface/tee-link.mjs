// The tee's link to its daemon: one WebSocket to
// `<HOOKMAP_URL>/surfaces/<agent>/tee`, carrying moments in order and
// bringing back what the daemon wants written on the surface (a held
// request's decision, a command's bytes). Nothing here can block the
// pass-through: frames queue in memory (bounded; the oldest are dropped and
// counted past the bound), a dead or absent daemon means reconnect attempts
// with backoff, and every frame stays queued until the daemon acks it, so a
// daemon restart loses nothing that was still queued (the daemon drops
// frames it already had by their number, per tee connection).
//
// Frames (JSON text):
//   tee -> daemon   {t:"hello", v:1, connection, agent, pid, command}
//                   {t:"m", n, moment}               a moment, numbered from 1
//                   {t:"p", n, code, message}        a framing problem
//                   {t:"written", id, ok, why?}      a write the daemon asked for
//   daemon -> tee   {t:"hello", v:1, agent}
//                   {t:"ack", n}                     frames <= n are the daemon's
//                   {t:"reply", n, bytes}            non-neutral reply to moment n
//                   {t:"write", id, bytes}           a command's bytes for the agent
// Surface design: AEP docs/components/bridge-acp-design.md ("Transparency is
// the contract ... a dead relay never affects the editor<->agent session").
import { hookKeyHeaders } from '../auth/hook-key.mjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const MAX_QUEUE = 10_000;
const MAX_QUEUE_BYTES = 16 * 1024 * 1024;
const MAX_BACKOFF_MS = 5_000;

export function teeUrl(base, agent) {
  const u = new URL(base.replace(/\/+$/, ''));
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/surfaces/${encodeURIComponent(agent)}/tee`;
  return u.toString();
}

/** The relay token as every hookmap client finds it: HOOKMAP_TOKEN, else $HOOKMAP_HOME/token. */
export function findToken(env, home) {
  if (env.HOOKMAP_TOKEN) return env.HOOKMAP_TOKEN;
  try {
    const t = readFileSync(join(home, 'token'), 'utf8').trim();
    return t || undefined;
  } catch {
    return undefined;
  }
}

export class TeeLink {
  /**
   * @param {{ url: string, agent: string, connection: string, token?: string, home?: string, hello?: object,
   *           onReply?: (n: number, bytes: string) => void, onWrite?: (id: string, bytes: string) => void,
   *           say?: (line: string) => void, WebSocket?: any, maxQueueBytes?: number }} o
   */
  constructor(o) {
    this.o = o;
    this.queue = []; // { n, text } not yet acked, in order
    this.bytes = 0;
    this.n = 0;
    this.dropped = 0;
    this.ws = undefined;
    this.open = false;
    this.closed = false;
    this.backoff = 200;
    this.timer = undefined;
    this.sentUpTo = 0;
    this.drainWaiters = [];
    this.failures = 0;
    this.maxBytes = o.maxQueueBytes ?? MAX_QUEUE_BYTES;
  }

  get connected() {
    return this.open;
  }

  /** Connect (and keep reconnecting). `WebSocket` may be a class or a loader resolving to one. */
  start() {
    const W = this.o.WebSocket;
    if (typeof W === 'function' && !W.prototype?.send) {
      Promise.resolve(W()).then(
        (cls) => {
          this.o.WebSocket = cls;
          this.connect();
        },
        (e) => this.o.say?.(`cannot load the WebSocket client: ${e.message}; nothing will be mapped`),
      );
      return;
    }
    this.connect();
  }

  /** Queue a frame (without its number); returns the number given to it. */
  send(frame) {
    const n = ++this.n;
    const text = JSON.stringify({ ...frame, n });
    this.queue.push({ n, text });
    this.bytes += text.length;
    while (this.queue.length > MAX_QUEUE || this.bytes > this.maxBytes) {
      const old = this.queue.shift();
      this.bytes -= old.text.length;
      this.dropped++;
    }
    if (this.open) this.flush();
    return n;
  }

  /** Send a frame that needs no ack and is not worth keeping (a write confirmation). */
  sendNow(frame) {
    if (this.open) this.ws.send(JSON.stringify(frame));
  }

  flush() {
    if (this.dropped > 0) {
      const lost = this.dropped;
      this.dropped = 0;
      // said first, so the daemon knows the gap before the frames after it
      this.ws.send(
        JSON.stringify({
          t: 'p',
          n: 0,
          code: 'frames-dropped',
          message: `${lost} moment(s) were dropped while the daemon could not take them (the tee's queue is bounded)`,
        }),
      );
    }
    for (const f of this.queue) {
      if (f.n <= this.sentUpTo) continue;
      this.ws.send(f.text);
      this.sentUpTo = f.n;
    }
  }

  connect() {
    if (this.closed) return;
    const WS = this.o.WebSocket;
    // the home's hook key, read at each connect (a key setup replaced is presented from the next reconnect)
    const headers = { ...(this.o.home ? hookKeyHeaders(this.o.home) : {}), ...(this.o.token ? { authorization: `Bearer ${this.o.token}` } : {}) };
    let ws;
    try {
      ws = new WS(this.o.url, { headers, perMessageDeflate: false, handshakeTimeout: 2000 });
    } catch (e) {
      this.retry(e);
      return;
    }
    this.ws = ws;
    ws.on('open', () => {
      this.open = true;
      this.backoff = 200;
      if (this.failures > 0) this.o.say?.(`connected to ${this.o.url} after ${this.failures} failed attempt(s)`);
      this.failures = 0;
      ws.send(JSON.stringify({ t: 'hello', v: 1, connection: this.o.connection, agent: this.o.agent, ...(this.o.hello ?? {}) }));
      this.sentUpTo = 0; // everything unacked goes again: the daemon drops what it had
      this.flush();
    });
    ws.on('message', (data) => this.onFrame(data));
    let failed;
    ws.on('error', (e) => (failed = e));
    ws.on('close', (code, reason) => {
      const was = this.open;
      this.open = false;
      this.ws = undefined;
      if (was) this.o.say?.(`daemon link closed (${code}${reason?.length ? ` ${reason}` : ''}); reconnecting`);
      this.retry(was ? undefined : failed);
    });
  }

  retry(err) {
    if (this.closed) return;
    if (this.failures++ === 0 && err) this.o.say?.(`cannot reach the daemon at ${this.o.url}: ${err.message ?? err}`);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), this.backoff);
    this.timer.unref?.();
    this.backoff = Math.min(MAX_BACKOFF_MS, this.backoff * 2);
  }

  onFrame(data) {
    let f;
    try {
      f = JSON.parse(String(data));
    } catch {
      return;
    }
    if (f?.t === 'ack' && Number.isSafeInteger(f.n)) {
      while (this.queue.length && this.queue[0].n <= f.n) this.bytes -= this.queue.shift().text.length;
      if (!this.queue.length) for (const w of this.drainWaiters.splice(0)) w();
    } else if (f?.t === 'reply' && typeof f.bytes === 'string') {
      this.o.onReply?.(f.n, f.bytes);
    } else if (f?.t === 'write' && typeof f.bytes === 'string' && typeof f.id === 'string') {
      this.o.onWrite?.(f.id, f.bytes);
    }
  }

  /** Resolves when every queued frame is acked, or after `ms`, or at once when not connected. */
  drain(ms) {
    if (!this.queue.length || !this.open) return Promise.resolve(!this.queue.length);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      this.drainWaiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  /** Frames queued and not yet acked. */
  pending() {
    return this.queue.length;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    try {
      this.ws?.close(1000, 'tee exiting');
    } catch {
      // already gone
    }
  }
}
