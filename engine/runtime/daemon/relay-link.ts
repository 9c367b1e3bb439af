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
// Composed of two parts: the positions (sent, confirmed, persisted:
// link-cursors.ts) and the lines the relay cannot take (the frame limit and
// the dead-letter file: link-dead-letter.ts).
//
// Failover: `url` may list several relays (engine/runtime/daemon/relay-urls.ts);
// the re-send from the confirmed offsets is as after any reconnect.
import WebSocket from 'ws';
import { AEP_VERSION } from '../../core/aep/schemas.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import { ROUTED_FRAME } from '../relay/socket.ts';
import { LinkCursors } from './link-cursors.ts';
import { DeadLetters } from './link-dead-letter.ts';
import type { EventLink, RelayLinkOptions, State } from './relay-link-types.ts';
import { RelayUrls, socketUrlOf } from './relay-urls.ts';
import type { AppendRecord } from './session-log.ts';

export type { DroppedLine, EventLink, RelayLinkOptions } from './relay-link-types.ts';
export { DEAD_LETTER_FILE } from './link-dead-letter.ts';

const HIGH_WATER = 1 << 20;

export class RelayLink implements EventLink {
  /** The relays it dials, in turn after a failure. */
  readonly relays: RelayUrls;
  private ws?: WebSocket;
  private state: State = 'down';
  private readonly cursors: LinkCursors;
  private readonly deadLetters: DeadLetters;
  private retryTimer?: NodeJS.Timeout;
  private attempt = 0;
  private pumping = false;
  private lastDownReason = '';
  /** The relay's `x-hookmap-routed` frame for the command that follows it (same connection, in order). */
  private routed?: { cause: string; by: string };

  constructor(private readonly o: RelayLinkOptions) {
    this.relays = new RelayUrls(o.url);
    const say = (line: string) => this.say(line);
    this.cursors = new LinkCursors({ log: o.log, cursorFile: o.cursorFile, say, ping: (t) => this.sendPing(t) });
    this.deadLetters = new DeadLetters({ log: o.log, file: o.deadLetterFile, onDropped: o.onDropped, say });
  }

  get ready(): boolean {
    return this.state === 'replaying' || this.state === 'ready';
  }

  start(): void {
    if (this.state === 'closed') return;
    this.connect();
  }

  deliver(rec: AppendRecord): void {
    this.cursors.known(rec.file, rec.start);
    if (this.state === 'ready' && this.cursors.position(rec.file) === rec.start && this.ws) {
      this.sendLine(rec.file, rec.start, rec.line);
      this.cursors.markSent(rec.file, rec.end);
      return;
    }
    this.cursors.dirty.add(rec.file);
    if (this.state === 'ready') void this.pump();
  }

  resend(line: string): void {
    if (this.ready && this.ws?.readyState === WebSocket.OPEN) this.ws.send(line);
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.retryTimer);
    this.cursors.stop();
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
    const token = typeof this.o.token === 'function' ? this.o.token() : this.o.token;
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const ws = this.o.dial
      ? this.o.dial(headers.authorization)
      : new WebSocket(socketUrlOf(this.relays.current), { headers, perMessageDeflate: false, ...(this.o.tls ?? {}) });
    this.routed = undefined;
    this.deadLetters.connecting();
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
      // the relay found a frame too big without advertising its limit: the largest line sent here is at fault
      if (code === 1009) this.deadLetters.tooBig();
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
        this.deadLetters.hello(msg.capabilities?.limits?.frame_bytes);
        this.say(
          `relay link up: ${socketUrlOf(this.relays.current).replace(/\?.*$/, '')} (hello as ` +
            `${this.o.identity.agent}${this.o.token ? ', control on' : ', no token: watch-only'})`,
        );
        this.state = 'replaying';
        void this.pump();
        return;
      }
      this.onFrame(msg, raw);
    });
  }

  private onDown(why: string): void {
    // Nothing past the confirmed offsets is known to have arrived.
    this.cursors.lost();
    if (this.state === 'closed') return;
    const from = this.relays.current;
    const delay = this.relays.failover(this.attempt, this.o.backoffMs ?? { initial: 200, max: 5_000 });
    if (why !== this.lastDownReason || this.attempt === 0)
      this.say(`relay link down (${this.relays.many ? `${from}: ` : ''}${why}); ${this.relays.many ? `failing over to ${this.relays.current}` : 'retrying'}`);
    this.lastDownReason = why;
    this.state = 'down';
    this.attempt++;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private onFrame(msg: any, raw: string): void {
    if (msg.type === 'pong') return this.cursors.confirm(Number(msg.t));
    // the relay's liveness probe (AEP-0003 §3.5 rule 5): echo it
    if (msg.type === 'ping') return void this.ws?.send(JSON.stringify({ type: 'pong', t: msg.t }));
    if (msg.type === 'error') {
      this.say(`relay error frame: ${msg.code}${msg.cause ? ` (event ${msg.cause})` : ''}${msg.detail ? `: ${msg.detail}` : ''}`);
      // refused for good: set it aside (the link already moved on; the log keeps it too)
      if (msg.code === 'invalid-event' && typeof msg.cause === 'string')
        this.deadLetters.refused(
          msg.cause,
          `refused by the relay: invalid-event${msg.detail ? `: ${String(msg.detail).slice(0, 300)}` : ''}`,
          this.cursors.unconfirmed(),
        );
      return;
    }
    if (msg.type === ROUTED_FRAME) {
      if (typeof msg.cause === 'string' && typeof msg.by === 'string') this.routed = { cause: msg.cause, by: msg.by };
      return;
    }
    const command =
      (msg.type.startsWith('control.') && msg.type !== 'control.accepted' && msg.type !== 'control.rejected') || /^x\.[^.]+\.control\./.test(msg.type);
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

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    const ws = this.ws;
    try {
      const dirty = this.cursors.dirty;
      while (dirty.size && this.ws === ws && ws && ws.readyState === WebSocket.OPEN) {
        const file = dirty.values().next().value as string;
        const from = this.cursors.position(file);
        const to = this.o.log.size(file);
        if (from >= to) {
          dirty.delete(file);
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
            dirty.delete(file);
            continue;
          }
        }
        const text = bytes.subarray(0, nl + 1).toString('utf8');
        let at = from;
        for (const line of text.split('\n')) {
          if (line) this.sendLine(file, at, line);
          at += Buffer.byteLength(line, 'utf8') + 1;
        }
        this.cursors.markSent(file, from + nl + 1);
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
    if (this.cursors.dirty.size && this.state === 'ready') void this.pump();
  }

  // --- sending ------------------------------------------------------------------

  /** Send one logged line, unless it exceeds the relay's frame limit (then it is set aside). */
  private sendLine(file: string, offset: number, line: string): void {
    if (this.deadLetters.admit(file, offset, line)) this.ws!.send(line);
  }

  private sendPing(t: number): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify({ type: 'ping', t }));
    return true;
  }

  private say(line: string): void {
    this.o.say?.(line);
  }
}
