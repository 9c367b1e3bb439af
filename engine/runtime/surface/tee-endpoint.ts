// The daemon side of the stdio-tee surface: `hookmap tee` connects a
// WebSocket to `/surfaces/<agent>/tee` on the daemon's own server (`up` or
// `serve`) and sends the moments it framed; each one becomes a firing
// (Daemon.handle, in arrival order), acked by number so a reconnecting tee
// resends only what the daemon never had. A firing that ends in bytes for the
// agent (a held request answered over the relay) goes back as `reply`; a
// surface command (control.cancel) goes out as `write` and the tee says
// whether it was written. When the tee's connection ends, its held requests
// are dismissed (the agent is gone) and its sessions carry no commands.
//
// Refused: an upgrade naming a Host this server does not go by (the
// server's Host/Origin guard, as on every endpoint), an upgrade from another
// machine (the tee runs beside its agent, and the frames it is sent can
// drive that agent's stdin), an upgrade that carries an Origin header (a
// browser page: the tee never sends one, so even a same-origin one is), an
// unknown agent, an agent whose surface is not a stdio-tee, an upgrade without
// the home's hook key (engine/runtime/auth/hook-key.mjs; the tee reads it from the home). Frame protocol: engine/runtime/surface/tee-link.mjs. Surface design:
// AEP docs/components/bridge-acp-design.md ("the daemon side").
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AgentPort, SurfaceWriter } from '../daemon/port.ts';
import { HOOK_KEY_ERROR, HOOK_KEY_HEADER, hookKeyMatches } from '../auth/hook-key.mjs';
import { throttledSay } from '../../core/io/throttle.ts';

const PATH = /^\/surfaces\/([a-z0-9][a-z0-9-]*)\/tee$/;
const MAX_FRAME = 32 * 1024 * 1024;
const WRITE_CONFIRM_MS = 5_000;

export interface TeeEndpointOptions {
  daemons: ReadonlyMap<string, AgentPort>;
  say?: (line: string) => void;
  /** URL path prefix the server is mounted under (default none). */
  prefix?: string;
  /** The server's Host/Origin guard (engine/runtime/auth/guard.ts): false when it refused (and answered) the upgrade. */
  guard?: { upgrade(req: IncomingMessage, socket: Duplex): boolean };
  /** The home's hook key the tee must present (engine/runtime/auth/hook-key.mjs; absent: none asked). */
  hookKey?: string;
}

export interface TeeEndpoint {
  /** Live tee connections (tests, doctor). */
  connections(): { agent: string; connection: string; pid?: number; command?: string }[];
  close(): void;
}

const isLoopback = (a: string | undefined) => !!a && (a === '::1' || /^(::ffff:)?127\./.test(a));

/** Per tee connection id: the last moment number taken (a reconnecting tee resends what was not acked). */
const lastTaken = new Map<string, number>();
const remember = (conn: string, n: number) => {
  lastTaken.delete(conn);
  lastTaken.set(conn, n);
  if (lastTaken.size > 4096) lastTaken.delete(lastTaken.keys().next().value as string);
};

export function attachTeeEndpoint(server: Server, o: TeeEndpointOptions): TeeEndpoint {
  const say = o.say ?? (() => {});
  const sayKey = throttledSay(say);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME, perMessageDeflate: false });
  const live = new Set<TeeConnection>();
  const prefix = (o.prefix ?? '').replace(/\/+$/, '');

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    const m = path.startsWith(`${prefix}/`) ? PATH.exec(path.slice(prefix.length)) : null;
    if (!m) return; // another listener's path
    const refuse = (status: number, text: string) => socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    // a name this server does not go by (DNS rebinding) or a foreign Origin: refused as on every endpoint
    if (o.guard && !o.guard.upgrade(req, socket)) {
      say(`tee upgrade for ${m[1]} refused by the Host/Origin guard (Host ${String(req.headers.host ?? '').slice(0, 100)})`);
      return;
    }
    if (!isLoopback(req.socket?.remoteAddress)) {
      say(`tee upgrade for ${m[1]} refused: the peer ${req.socket?.remoteAddress ?? '?'} is not on this machine`);
      return refuse(403, 'Forbidden');
    }
    if (req.headers.origin !== undefined) {
      say(`tee upgrade for ${m[1]} refused: it carries an Origin (${req.headers.origin}); a tee never does`);
      return refuse(403, 'Forbidden');
    }
    if (o.hookKey !== undefined && !hookKeyMatches(o.hookKey, req.headers[HOOK_KEY_HEADER])) {
      sayKey(
        `tee upgrade for ${m[1]} refused [${HOOK_KEY_ERROR}]: ${req.headers[HOOK_KEY_HEADER] === undefined ? 'no' : 'a wrong'} hook key (${HOOK_KEY_HEADER})`,
      );
      return refuse(403, 'Forbidden');
    }
    const daemon = o.daemons.get(m[1]);
    if (!daemon) return refuse(404, 'Not Found');
    if (daemon.surfaceKind !== 'stdio-tee') {
      say(`tee upgrade for ${m[1]} refused: its surface is ${daemon.surfaceKind}, not stdio-tee`);
      return refuse(404, 'Not Found');
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const c = new TeeConnection(ws, daemon, m[1], say);
      live.add(c);
      ws.on('close', () => live.delete(c));
    });
  };
  server.on('upgrade', onUpgrade);
  return {
    connections: () => [...live].map((c) => ({ agent: c.agent, connection: c.id, pid: c.pid, command: c.command })),
    close() {
      server.off('upgrade', onUpgrade);
      for (const c of live) c.ws.terminate();
      wss.close();
    },
  };
}

class TeeConnection implements SurfaceWriter {
  id = '';
  pid?: number;
  command?: string;
  private readonly aborts = new Set<AbortController>();
  private readonly writes = new Map<string, (r: { ok: boolean; why?: string }) => void>();
  private ackDue = 0;
  private ackScheduled = false;
  private ended = false;

  constructor(
    readonly ws: WebSocket,
    private readonly daemon: AgentPort,
    readonly agent: string,
    private readonly say: (l: string) => void,
  ) {
    ws.on('message', (data) => this.onFrame(String(data)));
    ws.on('error', () => {});
    ws.on('close', () => this.end());
  }

  private onFrame(text: string): void {
    let f: any;
    try {
      f = JSON.parse(text);
    } catch {
      return this.say(`tee ${this.id || '?'}: a frame that is not JSON (${text.length} bytes) ignored`);
    }
    if (f?.t === 'hello') {
      if (typeof f.connection !== 'string' || !f.connection) return this.ws.close(1008, 'hello without a connection id');
      this.id = f.connection.slice(0, 128);
      this.pid = Number.isSafeInteger(f.pid) ? f.pid : undefined;
      this.command = typeof f.command === 'string' ? f.command.slice(0, 256) : undefined;
      this.send({ t: 'hello', v: 1, agent: this.agent });
      this.say(`tee ${this.id} connected (pid ${this.pid ?? '?'}, ${this.command ?? '?'})`);
      return;
    }
    if (!this.id) return this.ws.close(1008, 'hello first');
    if (f?.t === 'written' && typeof f.id === 'string') {
      this.writes.get(f.id)?.({ ok: f.ok === true, why: typeof f.why === 'string' ? f.why : undefined });
      this.writes.delete(f.id);
      return;
    }
    if (f?.t === 'p' && typeof f.code === 'string') {
      if (Number.isSafeInteger(f.n) && f.n > 0) {
        if (f.n <= (lastTaken.get(this.id) ?? 0)) return this.ack(f.n);
        remember(this.id, f.n);
        this.ack(f.n);
      }
      this.daemon.problem(f.code, `tee ${this.id}: ${String(f.message ?? '').slice(0, 2000)}`);
      return;
    }
    if (f?.t === 'm' && Number.isSafeInteger(f.n) && f.moment && typeof f.moment === 'object') {
      if (f.n <= (lastTaken.get(this.id) ?? 0)) return this.ack(f.n); // resent after a reconnect: already had
      remember(this.id, f.n);
      this.ack(f.n);
      const ac = new AbortController();
      this.aborts.add(ac);
      // handle() queues in call order: moments are mapped in the order the tee framed them
      void this.daemon.handle({ payload: f.moment, surface: { kind: 'stdio-tee', connection: this.id }, writer: this, signal: ac.signal }).then((r) => {
        this.aborts.delete(ac);
        if (r.body !== '' && !this.ended) this.send({ t: 'reply', n: f.n, bytes: r.body });
      });
    }
  }

  private ack(n: number): void {
    this.ackDue = Math.max(this.ackDue, n);
    if (this.ackScheduled) return;
    this.ackScheduled = true;
    setImmediate(() => {
      this.ackScheduled = false;
      this.send({ t: 'ack', n: this.ackDue });
    });
  }

  private send(f: unknown): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(f));
  }

  write(commandId: string, bytes: string): Promise<{ ok: boolean; why?: string }> {
    if (this.ended) return Promise.resolve({ ok: false, why: 'the tee connection ended' });
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.writes.delete(commandId);
        resolve({ ok: false, why: `the tee did not confirm the write within ${WRITE_CONFIRM_MS} ms` });
      }, WRITE_CONFIRM_MS);
      this.writes.set(commandId, (r) => {
        clearTimeout(t);
        resolve(r);
      });
      this.send({ t: 'write', id: commandId, bytes });
    });
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.daemon.forgetWriter(this);
    for (const ac of this.aborts) ac.abort(); // held requests of a gone agent: dismissed
    this.aborts.clear();
    for (const done of this.writes.values()) done({ ok: false, why: 'the tee connection ended' });
    this.writes.clear();
    if (this.id) this.say(`tee ${this.id} disconnected`);
  }
}
