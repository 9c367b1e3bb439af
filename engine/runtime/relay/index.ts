// hookmap's AEP collector/relay (AEP-0003 bindings, AEP-0004 routing).
//
// Interface (for `hookmap relay`, `hookmap up` and in-process daemons):
//
//   createRelay(opts: CreateRelayOptions): Relay
//     Credentials are required: `token` (the owner token), `auth` (an
//     engine/runtime/auth Authorizer: owner + named tokens + added sources), or an
//     explicit `noAuth: true` (watch-only, loopback only).
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
import { ANONYMOUS, Authorizer, TokenSource } from '../auth/authorizer.ts';
import { assertBindAllowed } from '../auth/bind.ts';
import { Guard, installGuard } from '../auth/guard.ts';
import type { Principal } from '../auth/principal.ts';
import { makePrincipal, SCOPES } from '../auth/principal.ts';
import { applyServerLimits, serverOptions } from '../auth/server-limits.ts';
import { redactUrl } from './auth.ts';
import { compileFilter } from './attr-match.ts';
import { RelayCore, type IngestOutcome, type Role } from './core.ts';
import { registerHttp } from './http.ts';
import { DEFAULT_HOST, DEFAULT_PORT, resolveLimits, type RelayOptions } from './options.ts';
import { parseCapture, parseFrom } from './request.ts';
import { attachSockets } from './socket.ts';
import type { AepEvent, Position, RelayStore } from './store.ts';
import { warmValidators } from '../../core/aep/schemas.ts';

export { redactUrl, redacting } from './auth.ts';
export { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_LIMITS, resolveLimits, type RelayOptions, type RelayLimits } from './options.ts';
export type { AepEvent, RelayStore, Held, Position, StoredEvent, StoreStats } from './store.ts';
export { MemoryStore } from './store.ts';
export type { NatsStore, BackplaneError } from './backplane/index.ts';
/** The fleet backplane (backplane/open.ts), loaded only by a relay that has one: NATS is most of a relay's module graph. */
export async function openBackplane(
  ...args: Parameters<typeof import('./backplane/open.ts').openBackplane>
): ReturnType<typeof import('./backplane/open.ts').openBackplane> {
  return (await import('./backplane/open.ts')).openBackplane(...args);
}
export type { IngestOutcome } from './core.ts';
export type { AuditRecord } from './audit.ts';
export { ROUTED_FRAME } from './socket.ts';

export interface CreateRelayOptions extends RelayOptions {
  /** Mount onto this fastify instance instead of creating one (hookmap up). */
  app?: FastifyInstance;
  /** The host's guard when it installed one on `app` itself (installGuard); absent: the relay installs its own. */
  guard?: Guard;
  store?: RelayStore;
}

export interface InProcessOptions {
  identity: { agent: string; instance?: string };
  role?: Role;
  /** Declared like a hello's capabilities; `control.accepts` is authoritative for routing. */
  capabilities?: { control?: { accepts: string[]; ack_window_ms?: number }; emits?: string[]; [k: string]: unknown };
  /** Who this in-process party is (default: an internal principal with every scope). */
  principal?: Principal;
  /** Commands routed to this connection's sessions, as received, with the authenticated sender. Called asynchronously. */
  onCommand?: (command: AepEvent, raw: string, sender: Principal) => void;
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
  from?: (Omit<Position, 'epoch'> & { session: string; epoch?: number })[] | 'all';
  live?: boolean;
}

export interface Relay {
  app: FastifyInstance;
  core: RelayCore;
  /** Who may do what; add credential sources with auth.use() (the inbox's cookie session). */
  auth: Authorizer;
  ingest(ev: object | string): IngestOutcome;
  connect(opts: InProcessOptions): InProcessConnection;
  /** A WebSocket-protocol connection from this process, with no TCP under it (up's own links: engine/runtime/relay/socket.ts dial). */
  dial: (authorization?: string) => import('ws').WebSocket;
  subscribe(
    spec: InProcessSubscribeSpec,
    onEvent: (ev: AepEvent, raw: string) => void,
    onExhausted?: (session: string, earliest: Position) => void,
  ): { close(): void };
  /** Only for a relay that owns its server. Resolves with the bound address. */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** Drain: SSE streams end cleanly, sockets close 1001; closes the server when owned. */
  close(): Promise<void>;
}

export function createRelay(opts: CreateRelayOptions = {}): Relay {
  const limits = resolveLimits(opts);
  const prefix = (opts.prefix ?? '').replace(/\/+$/, '');
  const owned = !opts.app;
  const auth = resolveAuth(opts);
  // forceCloseConnections: a half-uploaded body or an idle keep-alive must not hold shutdown hostage.
  const app = opts.app ?? Fastify({ ...serverOptions({ tls: opts.tls }), forceCloseConnections: true });
  if (owned) applyServerLimits(app.server);
  const guard = opts.guard ?? new Guard({ bind: opts.host ?? DEFAULT_HOST, allowedHosts: opts.allowedHosts, allowedOrigins: opts.allowedOrigins });
  if (!opts.guard) installGuard(app, guard);
  const core = new RelayCore(limits, auth.controlPossible, opts.store, opts.redactor);
  core.audit = opts.audit;
  const streams = new Set<ServerResponse>();
  /** Open SSE streams and sockets by principal: a revoked credential closes them at once. */
  const open = new Map<object, { principal: Principal; close: (reason: string) => void }>();
  const track = (principal: Principal, close: (reason: string) => void) => {
    const key = {};
    open.set(key, { principal, close });
    return () => void open.delete(key);
  };
  const stopWatching = auth.onChange(() => {
    for (const [key, c] of open) {
      if (auth.isLive(c.principal)) continue;
      open.delete(key);
      log(`relay: closing a connection of '${c.principal.name}': credential revoked`);
      c.close('credential revoked');
    }
  });
  const authenticate = (req: Parameters<Authorizer['authenticate']>[0]) => auth.authenticate(req);
  let closing = false;
  let closed: Promise<void> | undefined;
  const log = opts.log ?? (() => {});

  const sockets = attachSockets(app.server, {
    core,
    path: `${prefix}/socket`,
    guard,
    authenticate,
    track,
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
    authenticate,
    track,
    streams,
    isClosing: () => closing,
    connectionCount: () => streams.size + sockets.sockets.size,
    startedAt: Date.now(),
  });

  async function drain(): Promise<void> {
    closing = true;
    stopWatching();
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
  app.addHook('onClose', async () => {
    if (!owned) await core.store.close?.();
  });

  function connect(o: InProcessOptions): InProcessConnection {
    const conn = core.openConn({
      role: o.role ?? 'emitter',
      identity: { agent: o.identity.agent, instance: o.identity.instance },
      capabilities: o.capabilities ?? {},
      // in-process code is trusted exactly as far as the relay's posture allows
      principal: o.principal ?? (core.controlEnabled ? IN_PROCESS : ANONYMOUS),
      refused: (code, detail, ev) => log(`relay: command ${ev.id} refused by the relay holding its session: ${code}: ${detail}`),
      deliverCommand: (raw, ev, sender) => {
        if (!o.onCommand) return;
        queueMicrotask(() => {
          try {
            o.onCommand!(ev, raw, sender);
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
    auth,
    ingest: (ev) => core.ingest(ev, null),
    connect,
    dial: sockets.dial,
    subscribe(spec, onEvent, onExhausted) {
      const s = { filter: compileFilter(spec.filter), capture: parseCapture(spec.capture), from: parseFrom(spec.from, limits.maxFrom), live: spec.live };
      // in-process parts (Web Push, the chat channels) ask as trusted code: they get the answers of control queries
      const sub = core.subscribe(
        { ...s, control: true },
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
      core.internal.add(sub);
      return { close: () => sub.close() };
    },
    async listen() {
      if (!owned) throw new Error('relay is mounted on a host app: call app.listen() instead');
      const host = opts.host ?? DEFAULT_HOST;
      assertBindAllowed(host, auth.controlPossible);
      await app.listen({ host, port: opts.port ?? DEFAULT_PORT });
      const addr = app.server.address() as AddressInfo;
      const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      const scheme = opts.tls ? 'https' : 'http';
      void warmValidators([]); // the envelope validator, compiled before the first POST needs it
      log(
        `relay listening on ${scheme}://${h}:${addr.port}${prefix} (` +
          `${core.controlEnabled ? 'tokens required: control routing on' : '--no-auth: watch-only, commands refused'})`,
      );
      return { host: addr.address, port: addr.port, url: `${scheme}://${h}:${addr.port}${prefix}` };
    },
    async close() {
      await (closed ??= drain());
      if (owned) {
        await app.close();
        // an Authorizer passed in belongs to the caller; one built here is ours to close
        if (!opts.auth) auth.close();
      }
      await core.store.close?.();
    },
  };
}

/** What in-process parties (a test double, an embedded daemon) act as on an authenticated relay. */
const IN_PROCESS = makePrincipal('in-process', SCOPES, 'in-process', 'in-process');

function resolveAuth(opts: CreateRelayOptions): Authorizer {
  const given = [opts.auth && 'auth', opts.token && 'token', opts.noAuth && 'noAuth'].filter(Boolean);
  if (given.length > 1) throw new Error(`relay: pass one of token, auth, noAuth (got ${given.join(' and ')})`);
  if (opts.auth) return opts.auth;
  if (opts.token) return new Authorizer([new TokenSource({ ownerToken: opts.token })]);
  if (opts.noAuth) return new Authorizer([], ANONYMOUS);
  throw new Error('relay: a token is required (token or auth); noAuth: true makes an explicitly watch-only relay');
}

/** Fastify options a host should use so request logs never carry the token. */
export const relayLoggerSerializers = {
  req(req: { method?: string; url?: string }) {
    return { method: req.method, url: redactUrl(req.url ?? '') };
  },
};
