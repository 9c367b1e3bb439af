// hookmap's AEP collector/relay (AEP-0003 bindings, AEP-0004 routing).
//
// Interface (for `hookmap relay`, `hookmap up` and in-process daemons):
//
//   createRelay(opts?: CreateRelayOptions): Relay
//     Own server:   const relay = createRelay({ port: 8787, token });
//                   await relay.listen();  ...  await relay.close();
//     Shared server (hookmap up, ONE fastify instance and ONE port):
//                   const app = Fastify();  // host routes registered as usual
//                   const relay = createRelay({ app, token, prefix: '' });
//                   await app.listen({ port });   // relay routes + /socket are mounted
//                   await app.close();            // the relay drains too (preClose hook)
//     createRelay must run before app.ready()/listen(). The relay registers an
//     encapsulated plugin (its body parsers and error shapes stay inside) and
//     one 'upgrade' listener on app.server that only answers `${prefix}/socket`.
//     Hosts that log requests should pass URLs through redactUrl() (the
//     access_token query parameter must never be logged).
//
//   In-process API (what a WS emitter connection does, without the socket):
//     relay.ingest(ev: object | string): IngestOutcome
//         the POST /events path for one event (commands refused: they need a connection)
//     relay.connect(opts: InProcessOptions): InProcessConnection
//         a duplex party: .emit(ev) ingests and claims the event's session
//         (sequenced session events; `session.ended` releases it), .claim(s) /
//         .release(s) claim explicitly, opts.onCommand(cmd, raw) receives the
//         commands routed to its sessions (declared opts.capabilities.control.accepts
//         gate them, exactly as for a WS hello); .emit(command) sends a command
//         (routed only when the relay has a token); .close() drops every claim.
//     relay.subscribe(spec, onEvent, onExhausted?): { close() }
//         an in-process consumer with attr-match filter, capture ceiling, from.
//
// The buffer, admission dedupe and fan-out live behind RelayStore
// (store.ts); pass `store` to swap the in-memory one for a shared backplane.
import Fastify, { type FastifyInstance } from 'fastify';
import { hostname } from 'node:os';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeAuthorizer, redactUrl } from './auth.ts';
import { compileFilter } from './attr-match.ts';
import { RelayCore, type IngestOutcome, type Role } from './core.ts';
import { registerHttp } from './http.ts';
import { DEFAULT_HOST, DEFAULT_PORT, resolveLimits, type RelayOptions } from './options.ts';
import { parseCapture, parseFrom } from './request.ts';
import { attachSockets } from './socket.ts';
import type { AepEvent, Position, RelayStore } from './store.ts';

export { redactUrl } from './auth.ts';
export { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_LIMITS, type RelayOptions, type RelayLimits } from './options.ts';
export type { AepEvent, RelayStore, Held, Position, StoredEvent, StoreStats } from './store.ts';
export { MemoryStore } from './store.ts';
export type { IngestOutcome } from './core.ts';

export interface CreateRelayOptions extends RelayOptions {
  /** Mount onto this fastify instance instead of creating one (hookmap up). */
  app?: FastifyInstance;
  store?: RelayStore;
}

export interface InProcessOptions {
  identity: { agent: string; instance?: string };
  role?: Role;
  /** Declared like a hello's capabilities; `control.accepts` is authoritative for routing. */
  capabilities?: { control?: { accepts: string[]; ack_window_ms?: number }; emits?: string[]; [k: string]: unknown };
  /** Commands routed to this connection's sessions, as received. Called asynchronously. */
  onCommand?: (command: AepEvent, raw: string) => void;
}

export interface InProcessConnection {
  emit(ev: object | string): IngestOutcome;
  claim(session: string): void;
  release(session: string): void;
  close(): void;
}

export interface InProcessSubscribeSpec {
  filter?: unknown;
  capture?: string;
  from?: { session: string; epoch?: number; seq: number }[] | 'all';
  live?: boolean;
}

export interface Relay {
  app: FastifyInstance;
  core: RelayCore;
  ingest(ev: object | string): IngestOutcome;
  connect(opts: InProcessOptions): InProcessConnection;
  subscribe(spec: InProcessSubscribeSpec, onEvent: (ev: AepEvent, raw: string) => void, onExhausted?: (session: string, earliest: Position) => void): { close(): void };
  /** Only for a relay that owns its server. Resolves with the bound address. */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** Drain: SSE streams end cleanly, sockets close 1001; closes the server when owned. */
  close(): Promise<void>;
}

export function createRelay(opts: CreateRelayOptions = {}): Relay {
  const limits = resolveLimits(opts);
  const prefix = (opts.prefix ?? '').replace(/\/+$/, '');
  const owned = !opts.app;
  // forceCloseConnections: a half-uploaded body or an idle keep-alive must not hold shutdown hostage.
  const app = opts.app ?? Fastify({ logger: false, forceCloseConnections: true });
  const core = new RelayCore(limits, Boolean(opts.token), opts.store);
  const authorize = makeAuthorizer(opts.token);
  const streams = new Set<ServerResponse>();
  let closing = false;
  let closed: Promise<void> | undefined;
  const log = opts.log ?? (() => {});

  const sockets = attachSockets(app.server, {
    core,
    path: `${prefix}/socket`,
    authorize,
    isClosing: () => closing,
    connectionCount: () => streams.size + sockets.sockets.size,
    instance: opts.instance ?? `${hostname()}/${process.pid}`,
    pingMs: limits.pingMs,
    idleMs: limits.idleMs,
  });
  registerHttp(app, {
    core,
    prefix,
    heartbeatMs: opts.heartbeatMs ?? 15_000,
    authorize,
    streams,
    isClosing: () => closing,
    connectionCount: () => streams.size + sockets.sockets.size,
    startedAt: Date.now(),
  });

  async function drain(): Promise<void> {
    closing = true;
    for (const res of streams) {
      if (!res.destroyed && !res.writableEnded) res.end(': shutting-down\n\n');
    }
    streams.clear();
    const waits = [...sockets.sockets].map((ws) => new Promise<void>((r) => (ws.readyState === ws.CLOSED ? r() : ws.once('close', () => r()))));
    sockets.closeAll();
    // A peer that never answers the close handshake is cut off after a grace period.
    const grace = setTimeout(() => sockets.detach(), 1000);
    await Promise.all(waits);
    clearTimeout(grace);
    sockets.detach();
  }
  app.addHook('preClose', async () => {
    if (!owned) await (closed ??= drain());
  });

  function connect(o: InProcessOptions): InProcessConnection {
    const conn = core.openConn({
      role: o.role ?? 'emitter',
      identity: { agent: o.identity.agent, instance: o.identity.instance },
      capabilities: o.capabilities ?? {},
      authenticated: core.controlEnabled, // in-process code is trusted exactly as far as the relay's posture allows
      deliverCommand: (raw, ev) => {
        if (!o.onCommand) return;
        queueMicrotask(() => {
          try {
            o.onCommand!(ev, raw);
          } catch (e) {
            log(`relay: in-process onCommand threw: ${(e as Error).message}`);
          }
        });
      },
    });
    return {
      emit: (ev) => core.ingest(ev, conn),
      claim: (s) => core.claim(conn, s),
      release: (s) => core.release(conn, s),
      close: () => core.closeConn(conn),
    };
  }

  return {
    app,
    core,
    ingest: (ev) => core.ingest(ev, null),
    connect,
    subscribe(spec, onEvent, onExhausted) {
      const sub = core.subscribe(
        { filter: compileFilter(spec.filter), capture: parseCapture(spec.capture), from: parseFrom(spec.from, limits.maxFrom), live: spec.live },
        {
          event: (text, held) => {
            onEvent(text === held.raw ? held.ev : JSON.parse(text), text);
            return true;
          },
          exhausted: (s, e) => onExhausted?.(s, e),
          ready: () => null,
          overflow: (why) => log(`relay: in-process subscriber closed: ${why}`),
        },
      );
      return { close: () => sub.close() };
    },
    async listen() {
      if (!owned) throw new Error('relay is mounted on a host app: call app.listen() instead');
      const host = opts.host ?? DEFAULT_HOST;
      await app.listen({ host, port: opts.port ?? DEFAULT_PORT });
      const addr = app.server.address() as AddressInfo;
      const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      log(`relay listening on http://${h}:${addr.port}${prefix} (${core.controlEnabled ? 'token set: control routing on' : 'no token: watch-only, commands refused'})`);
      return { host: addr.address, port: addr.port, url: `http://${h}:${addr.port}${prefix}` };
    },
    async close() {
      await (closed ??= drain());
      if (owned) await app.close();
    },
  };
}

/** Fastify options a host should use so request logs never carry the token. */
export const relayLoggerSerializers = {
  req(req: { method?: string; url?: string }) {
    return { method: req.method, url: redactUrl(req.url ?? '') };
  },
};
