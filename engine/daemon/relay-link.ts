// The daemon's binding to the relay: one WebSocket (AEP-0003 §3.5) on which
// the daemon is an emitter: `hello` with its identity and declared
// `control.accepts`, its session events out, routed `control.*` commands in.
//
// The outbox is the session log itself. The link remembers, per log file,
// how far the relay has CONFIRMED (a `pong` answers a `ping` sent after the
// events; the relay handles frames in order, so everything before the ping
// was ingested). After a reconnect, a relay restart or a daemon restart
// (cursors persist), everything past the confirmed offset is re-read from
// the log and sent again; the relay dedupes on (source, id). Memory holds
// only offsets, so the outbox is bounded whatever the outage length.
//
// Reconnect is armed on whichever of `error`/`close` fires first, once per
// attempt (on some Node versions a refused connection only emits `error`).
//
// No event blocks the ones after it (issue 10): a line larger than the
// relay's advertised frame_bytes (its hello, AEP-0003 §4; lowered further
// when the relay closes with 1009 "message too big") is never sent, and a
// line the relay answers with an `invalid-event` error frame naming its id
// (`cause`) has been refused for good. Either way the line is set aside in
// the dead-letter file beside the log (`dead-letter.ndjson`, 0600, one JSON
// record per line: time, reason, bytes, file, offset, and the exact wire
// text as a string), `onDropped` is told (the daemon logs an
// x.hookmap.event.dropped notice naming the id and size), and the link
// moves on past it.
//
// Failover: `url` may list several relays (engine/daemon/relay-urls.ts);
// the re-send from the confirmed offsets is as after any reconnect.
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { RelayUrls, socketUrlOf } from './relay-urls.ts';
import { AEP_VERSION } from '../aep/schemas.ts';
import type { AepEvent } from '../map/envelope.ts';
import { ROUTED_FRAME } from '../relay/socket.ts';
import { writeAtomic } from './epoch.ts';
import type { AppendRecord, SessionLog } from './session-log.ts';

/** What the daemon needs from whatever carries its events (a relay link, or a test double). */
export interface EventLink {
  /** The event at `rec` is on disk; deliver it when possible. */
  deliver(rec: AppendRecord): void;
  /** Send already-delivered wire text again, as-is (a recorded ack, a pending request to re-claim its session). */
  resend(line: string): void;
  /** The relay hello completed and the link is up. */
  readonly ready: boolean;
  close(): Promise<void>;
}

export interface RelayLinkOptions {
  /** Relay base URL (http[s]:// or ws[s]://), e.g. http://127.0.0.1:8787; several, comma-separated, fail over in turn. */
  url: string;
  token?: string;
  identity: { agent: string; instance: string };
  capabilities: Record<string, unknown>;
  log: SessionLog;
  /** Where confirmed offsets persist (`<logdir>/relay-cursors.json`). */
  cursorFile: string;
  /** A routed command; `by` is the sender's authenticated name from the relay's routed frame (absent: none came). */
  onCommand: (command: AepEvent, raw: string, by?: string) => void;
  /** TLS client options for a wss:// relay (a pinned CA, the name to verify). */
  tls?: { ca?: (string | Buffer)[]; servername?: string };
  /** Called after every completed hello and replay (re-claim sessions with pending holds). */
  onReady?: () => void;
  /** A line was set aside (dead-letter file) instead of reaching the relay. */
  onDropped?: (d: DroppedLine) => void;
  /** Where set-aside lines go (default `<log dir>/dead-letter.ndjson`). */
  deadLetterFile?: string;
  say?: (line: string) => void;
  backoffMs?: { initial: number; max: number };
}

type State = 'connecting' | 'replaying' | 'ready' | 'down' | 'closed';

/** What the link knows of a line it set aside. */
export interface DroppedLine {
  id?: string;
  type?: string;
  session?: string;
  bytes: number;
  reason: string;
  file: string;
  offset: number;
}

export const DEAD_LETTER_FILE = 'dead-letter.ndjson';
/** Past this size the dead-letter file keeps the records but no longer the lines themselves. */
const DEAD_LETTER_MAX_BYTES = 64 * 1024 * 1024;

const HIGH_WATER = 1 << 20;
const PING_DELAY_MS = 25;
const PERSIST_DELAY_MS = 100;
const MAX_CURSORS = 5_000;

export class RelayLink implements EventLink {
  private ws?: WebSocket;
  private state: State = 'down';
  private readonly confirmed = new Map<string, number>();
  private readonly sent = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private sinceLastPing = new Map<string, number>();
  private readonly pings = new Map<number, Map<string, number>>();
  private pingCounter = 0;
  private pingTimer?: NodeJS.Timeout;
  private persistTimer?: NodeJS.Timeout;
  private retryTimer?: NodeJS.Timeout;
  private attempt = 0;
  private pumping = false;
  private lastDownReason = '';
  /** The relay's `x-hookmap-routed` frame for the command that follows it (same connection, in order). */
  private routed?: { cause: string; by: string };
  /** The largest frame the relay takes: its hello's limits.frame_bytes, lowered by a 1009 close. */
  private frameLimit = Number.POSITIVE_INFINITY;
  private learnedLimit = Number.POSITIVE_INFINITY;
  /** The largest line sent on the current connection (a 1009 close blames it). */
  private largestSent = 0;
  private largestChars = 0;
  /** The relays it dials, in turn after a failure. */
  readonly relays: RelayUrls;

  constructor(private readonly o: RelayLinkOptions) {
    this.relays = new RelayUrls(o.url);
    this.loadCursors();
  }

  get ready(): boolean {
    return this.state === 'replaying' || this.state === 'ready';
  }

  start(): void {
    if (this.state === 'closed') return;
    this.connect();
  }

  deliver(rec: AppendRecord): void {
    // a file we hold no cursor for is new, or was pruned as fully confirmed: either way confirmed up to here
    if (!this.confirmed.has(rec.file)) this.confirmed.set(rec.file, rec.start);
    if (this.state === 'ready' && this.position(rec.file) === rec.start && this.ws) {
      this.sendLine(rec.file, rec.start, rec.line);
      this.markSent(rec.file, rec.end);
      return;
    }
    this.dirty.add(rec.file);
    if (this.state === 'ready') void this.pump();
  }

  resend(line: string): void {
    if (this.ready && this.ws?.readyState === WebSocket.OPEN) this.ws.send(line);
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.retryTimer);
    clearTimeout(this.pingTimer);
    clearTimeout(this.persistTimer);
    this.persist();
    const ws = this.ws;
    this.ws = undefined;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        ws.terminate();
        resolve();
      }, 1000);
      ws.once('close', () => {
        clearTimeout(t);
        resolve();
      });
      ws.close(1000, 'daemon stopping');
    });
  }

  // --- connection -----------------------------------------------------------

  private connect(): void {
    if (this.state === 'closed') return;
    this.state = 'connecting';
    const headers: Record<string, string> = this.o.token ? { authorization: `Bearer ${this.o.token}` } : {};
    const ws = new WebSocket(socketUrlOf(this.relays.current), { headers, perMessageDeflate: false, ...(this.o.tls ?? {}) });
    this.routed = undefined;
    this.largestSent = 0;
    this.largestChars = 0;
    this.ws = ws;
    let settled = false;
    const down = (why: string) => {
      if (settled) return; // error and close both fire: arm exactly one retry
      settled = true;
      ws.removeAllListeners('message');
      if (ws.readyState !== WebSocket.CLOSED) ws.terminate();
      if (this.ws === ws) this.ws = undefined;
      this.onDown(why);
    };
    ws.on('unexpected-response', (req, res) => {
      req.destroy();
      down(`relay refused the WebSocket: HTTP ${res.statusCode}${res.statusCode === 401 ? ' (wrong or missing token)' : ''}`);
    });
    ws.on('error', (e) => down((e as Error).message || 'socket error'));
    ws.on('close', (code, reason) => {
      if (code === 1009 && this.largestSent > 0) {
        // the relay found a frame too big without advertising its limit: the largest line sent here is at fault
        this.learnedLimit = Math.min(this.learnedLimit, this.largestSent - 1);
        this.frameLimit = Math.min(this.frameLimit, this.learnedLimit);
      }
      down(`closed ${code}${reason.length ? ` ${reason.toString()}` : ''}`);
    });
    ws.on('open', () => {
      ws.send(JSON.stringify({ type: 'hello', versions: [AEP_VERSION], role: 'emitter', identity: this.o.identity, capabilities: this.o.capabilities }));
    });
    let helloSeen = false;
    ws.on('message', (data, isBinary) => {
      // close() may race the relay's hello: a closed link never comes back to life
      if (isBinary || this.state === 'closed' || this.ws !== ws) return;
      const raw = data.toString();
      let msg: any;
      try {
        msg = JSON.parse(raw);
      } catch {
        return;
      }
      if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
      if (!helloSeen) {
        if (msg.type !== 'hello') {
          this.say(`relay refused hello: ${msg.code ?? msg.type} ${msg.detail ?? ''}`.trim());
          return down('hello refused');
        }
        helloSeen = true;
        this.attempt = 0;
        const adv = Number(msg.capabilities?.limits?.frame_bytes);
        this.frameLimit = Math.min(Number.isSafeInteger(adv) && adv > 0 ? adv : Number.POSITIVE_INFINITY, this.learnedLimit);
        this.say(`relay link up: ${socketUrlOf(this.relays.current).replace(/\?.*$/, '')} (hello as ${this.o.identity.agent}${this.o.token ? ', control on' : ', no token: watch-only'})`);
        this.state = 'replaying';
        void this.pump();
        return;
      }
      this.onFrame(msg, raw);
    });
  }

  private onDown(why: string): void {
    // Nothing past the confirmed offsets is known to have arrived.
    this.sent.clear();
    this.sinceLastPing.clear();
    this.pings.clear();
    clearTimeout(this.pingTimer);
    this.pingTimer = undefined;
    for (const f of this.confirmed.keys()) if (this.o.log.size(f) > this.confirmed.get(f)!) this.dirty.add(f);
    if (this.state === 'closed') return;
    const from = this.relays.current;
    const delay = this.relays.failover(this.attempt, this.o.backoffMs ?? { initial: 200, max: 5_000 });
    if (why !== this.lastDownReason || this.attempt === 0) this.say(`relay link down (${this.relays.many ? `${from}: ` : ''}${why}); ${this.relays.many ? `failing over to ${this.relays.current}` : 'retrying'}`);
    this.lastDownReason = why;
    this.state = 'down';
    this.attempt++;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private onFrame(msg: any, raw: string): void {
    if (msg.type === 'pong') return this.confirm(Number(msg.t));
    // the relay's liveness probe (AEP-0003 §3.5 rule 5): echo it
    if (msg.type === 'ping') return void this.ws?.send(JSON.stringify({ type: 'pong', t: msg.t }));
    if (msg.type === 'error') {
      this.say(`relay error frame: ${msg.code}${msg.cause ? ` (event ${msg.cause})` : ''}${msg.detail ? `: ${msg.detail}` : ''}`);
      // refused for good: set it aside (the link already moved on; the log keeps it too)
      if (msg.code === 'invalid-event' && typeof msg.cause === 'string') this.refused(msg.cause, `refused by the relay: invalid-event${msg.detail ? `: ${String(msg.detail).slice(0, 300)}` : ''}`);
      return;
    }
    if (msg.type === ROUTED_FRAME) {
      if (typeof msg.cause === 'string' && typeof msg.by === 'string') this.routed = { cause: msg.cause, by: msg.by };
      return;
    }
    const command = (msg.type.startsWith('control.') && msg.type !== 'control.accepted' && msg.type !== 'control.rejected') || /^x\.[^.]+\.control\./.test(msg.type);
    if (command) {
      const by = this.routed && this.routed.cause === msg.id ? this.routed.by : undefined;
      this.routed = undefined;
      try {
        this.o.onCommand(msg as AepEvent, raw, by);
      } catch (e) {
        this.say(`command handler failed: ${(e as Error).message}`);
      }
    }
  }

  // --- replay from the log ----------------------------------------------------

  private position(file: string): number {
    return this.sent.get(file) ?? this.confirmed.get(file) ?? 0;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    const ws = this.ws;
    try {
      while (this.dirty.size && this.ws === ws && ws && ws.readyState === WebSocket.OPEN) {
        const file = this.dirty.values().next().value as string;
        const from = this.position(file);
        const to = this.o.log.size(file);
        if (from >= to) {
          this.dirty.delete(file);
          continue;
        }
        const chunk = this.o.log.read(file, from, Math.min(to, from + HIGH_WATER));
        let nl = chunk.lastIndexOf(10);
        let bytes = chunk;
        if (nl < 0) {
          // one line longer than a chunk: read it whole
          bytes = this.o.log.read(file, from, to);
          nl = bytes.indexOf(10);
          if (nl < 0) {
            this.dirty.delete(file);
            continue;
          }
        }
        const text = bytes.subarray(0, nl + 1).toString('utf8');
        let at = from;
        for (const line of text.split('\n')) {
          if (line) this.sendLine(file, at, line);
          at += Buffer.byteLength(line, 'utf8') + 1;
        }
        this.markSent(file, from + nl + 1);
        while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount > HIGH_WATER) await new Promise((r) => setTimeout(r, 5));
      }
      if (this.ws === ws && ws && ws.readyState === WebSocket.OPEN && this.state === 'replaying') {
        this.state = 'ready';
        try {
          this.o.onReady?.();
        } catch (e) {
          this.say(`onReady failed: ${(e as Error).message}`);
        }
      }
    } finally {
      this.pumping = false;
    }
    if (this.dirty.size && this.state === 'ready') void this.pump();
  }

  // --- sending, and setting aside what the relay cannot take ------------------

  /** Send one logged line, or set it aside when it exceeds the relay's frame limit. */
  private sendLine(file: string, offset: number, line: string): void {
    // UTF-8 is at most 3 bytes per UTF-16 unit: measure exactly only near the limit
    const bytes = line.length * 3 <= this.frameLimit ? line.length : Buffer.byteLength(line, 'utf8');
    if (bytes > this.frameLimit) {
      this.setAside(file, offset, line, `${bytes} bytes exceed the relay's frame limit (${this.frameLimit} bytes)`);
      return;
    }
    // a new longest line: its exact size (rarely computed; a 1009 close lowers the limit below it)
    if (line.length > this.largestChars) {
      this.largestChars = line.length;
      this.largestSent = Buffer.byteLength(line, 'utf8');
    }
    this.ws!.send(line);
  }

  /** The relay refused event `id` (an error frame naming it): find its line among those not yet confirmed. */
  private refused(id: string, reason: string): void {
    const needle = Buffer.from(`"id":${JSON.stringify(id)}`);
    for (const [file, end] of this.sent) {
      const from = this.confirmed.get(file) ?? 0;
      if (end <= from) continue;
      const buf = this.o.log.read(file, from, end);
      const at = buf.indexOf(needle);
      if (at < 0) continue;
      const start = buf.lastIndexOf(10, at) + 1;
      let stop = buf.indexOf(10, at);
      if (stop < 0) stop = buf.length;
      this.setAside(file, from + start, buf.subarray(start, stop).toString('utf8'), reason);
      return;
    }
  }

  private setAside(file: string, offset: number, line: string, reason: string): void {
    const bytes = Buffer.byteLength(line, 'utf8');
    const info: DroppedLine = { ...identify(line), bytes, reason, file, offset };
    const path = this.o.deadLetterFile ?? join(this.o.log.dir, DEAD_LETTER_FILE);
    let size = 0;
    try {
      size = existsSync(path) ? statSync(path).size : 0;
    } catch {
      /* unreadable: try the append anyway */
    }
    const rec: Record<string, unknown> = { time: new Date().toISOString(), reason, bytes, file, offset, id: info.id, type: info.type };
    if (size + bytes < DEAD_LETTER_MAX_BYTES) rec.line = line;
    else rec.line_omitted = `the dead-letter file is over ${DEAD_LETTER_MAX_BYTES} bytes; the line stays in ${file} at offset ${offset}`;
    try {
      appendFileSync(path, `${JSON.stringify(rec)}\n`, { mode: 0o600 });
    } catch (e) {
      this.say(`could not write the dead-letter file ${path}: ${(e as Error).message}`);
    }
    this.say(`event ${info.id ?? '(no id)'} (${info.type ?? '?'}, ${bytes} bytes) set aside in ${path}: ${reason}`);
    const cb = this.o.onDropped;
    // after the current send loop: the notice is an ordinary event appended to the log
    if (cb) queueMicrotask(() => {
      try {
        cb(info);
      } catch (e) {
        this.say(`onDropped failed: ${(e as Error).message}`);
      }
    });
  }

  // --- confirmation ---------------------------------------------------------

  private markSent(file: string, end: number): void {
    this.sent.set(file, end);
    this.sinceLastPing.set(file, end);
    this.pingTimer ??= setTimeout(() => this.ping(), PING_DELAY_MS);
  }

  private ping(): void {
    this.pingTimer = undefined;
    if (!this.sinceLastPing.size || !this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    const t = ++this.pingCounter;
    this.pings.set(t, this.sinceLastPing);
    this.sinceLastPing = new Map();
    this.ws.send(JSON.stringify({ type: 'ping', t }));
  }

  private confirm(t: number): void {
    if (!Number.isFinite(t)) return;
    for (const [k, snap] of this.pings) {
      if (k > t) continue;
      for (const [f, end] of snap) if (end > (this.confirmed.get(f) ?? 0)) this.confirmed.set(f, end);
      this.pings.delete(k);
    }
    this.persistTimer ??= setTimeout(() => {
      this.persistTimer = undefined;
      this.persist();
    }, PERSIST_DELAY_MS);
  }

  // --- cursor persistence -------------------------------------------------------

  private loadCursors(): void {
    const log = this.o.log;
    if (!existsSync(this.o.cursorFile)) {
      // First run with a link: what is already logged predates us; don't flood a relay with history.
      for (const f of log.files()) this.confirmed.set(f, log.size(f));
      this.persist();
      return;
    }
    let saved: Record<string, number> = {};
    try {
      saved = JSON.parse(readFileSync(this.o.cursorFile, 'utf8'));
    } catch {
      this.say(`${this.o.cursorFile} unreadable: re-sending every session log (the relay dedupes)`);
    }
    const savedAt = statSync(this.o.cursorFile).mtimeMs;
    for (const f of log.files()) {
      const size = log.size(f);
      let c = Number.isSafeInteger(saved[f]) ? Math.min(saved[f], size) : undefined;
      // absent + untouched since the last save: it was pruned as fully confirmed
      if (c === undefined) c = statSync(`${log.dir}/${f}`).mtimeMs <= savedAt ? size : 0;
      this.confirmed.set(f, c);
      if (size > c) this.dirty.add(f);
    }
  }

  private persist(): void {
    if (this.confirmed.size > MAX_CURSORS) {
      for (const [f, c] of this.confirmed) {
        if (this.confirmed.size <= MAX_CURSORS) break;
        if (c >= this.o.log.size(f) && !this.dirty.has(f) && !this.sent.has(f)) this.confirmed.delete(f);
      }
    }
    try {
      writeAtomic(this.o.cursorFile, JSON.stringify(Object.fromEntries(this.confirmed)));
    } catch (e) {
      this.say(`could not persist relay cursors: ${(e as Error).message}`);
    }
  }

  private say(line: string): void {
    this.o.say?.(line);
  }
}

/** id, type and session of a logged line (parsed when it is JSON; the envelope's own attributes only). */
function identify(line: string): { id?: string; type?: string; session?: string } {
  let ev: any;
  try {
    ev = JSON.parse(line);
  } catch {
    return {};
  }
  if (!ev || typeof ev !== 'object') return {};
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return { id: str(ev.id), type: str(ev.type), session: str(ev.session) };
}
