// Slow and idle clients cost bounded resources on every hookmap listener
// (AEP-0003 §11: backpressure doubles as the denial-of-service posture):
//
//   headersTimeout    a client must finish its request headers within 10 s
//   requestTimeout    ... and its whole request body within 30 s (slow-body)
//   keepAliveTimeout  an idle keep-alive connection is closed after 5 s
//   maxConnections    open sockets per listener (default 2048); past it new
//                     connections are closed at once
//   reserve           room kept for the essentials (issue 40): once all but
//                     `reserve` (64) sockets are open, each new connection
//                     closes the oldest one with no request in flight (a
//                     client slow to send its headers, an idle keep-alive),
//                     so /healthz, a hook and the owner always get in; a held
//                     hook, a waiter, a stream or a WebSocket is never shed
//   slow lane         next-turn waiters and OTLP exports are answered after
//                     the rest, in slices (slow-lane.ts): a flood of them
//                     never makes /healthz or a hook wait behind it
//
// requestTimeout covers RECEIVING the request only: a held hook (up to the
// attention timeout) and an SSE stream keep their response open as long as
// they need. WebSocket liveness is the relay's ping/idle bound.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createRequire } from 'node:module';
import { slowLane } from './slow-lane.ts';

export interface TlsFiles {
  cert: string | Buffer;
  key: string | Buffer;
}

export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  /** sockets kept free: past maxConnections - reserve the oldest idle connection is closed */
  reserve: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 2048,
  reserve: 64,
};

/** How often Node checks the header/request timeouts (its default is 30 s). */
const CHECK_INTERVAL_MS = 1000;

function resolve(limits: Partial<ServerLimits>): ServerLimits {
  return { ...DEFAULT_SERVER_LIMITS, ...Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) } as ServerLimits;
}

/**
 * Fastify's route-schema compilers (ajv and fast-json-stringify), required at their first use: fastify loads
 * them while it is constructed otherwise, and no hookmap route declares a schema (a start pays for neither).
 */
function lazyCompiler(name: string): (...args: unknown[]) => unknown {
  let build: ((...args: unknown[]) => unknown) | undefined;
  return (...args) => {
    const load = createRequire(createRequire(import.meta.url).resolve('fastify'));
    return (build ??= (load(name) as () => (...a: unknown[]) => unknown)())(...args);
  };
}
const COMPILERS = { buildValidator: lazyCompiler('@fastify/ajv-compiler'), buildSerializer: lazyCompiler('@fastify/fast-json-stringify-compiler') };

/** Fastify constructor options for a hookmap listener: the limits above, and https when TLS files are given. */
export function serverOptions(o: { tls?: TlsFiles; limits?: Partial<ServerLimits> } = {}): Record<string, unknown> {
  const l = resolve(o.limits ?? {});
  const node = { headersTimeout: l.headersTimeoutMs, requestTimeout: l.requestTimeoutMs, connectionsCheckingInterval: CHECK_INTERVAL_MS };
  return {
    logger: false,
    schemaController: { compilersFactory: COMPILERS },
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    ...(o.tls ? { https: { ...node, cert: o.tls.cert, key: o.tls.key } } : { http: node }),
  };
}

export function applyServerLimits(server: Server, limits: Partial<ServerLimits> = {}): ServerLimits {
  const l = resolve(limits);
  slowLane(server); // before keepRoom's own request listener: only fastify's waits in the lane
  server.headersTimeout = l.headersTimeoutMs;
  server.requestTimeout = l.requestTimeoutMs;
  server.keepAliveTimeout = l.keepAliveTimeoutMs;
  server.maxConnections = l.maxConnections;
  keepRoom(server, Math.max(1, l.maxConnections - l.reserve));
  return l;
}

/**
 * Past `high` open sockets, a new connection closes the oldest one with no request in flight. A socket is idle from its
 * accept (or its last response) until a request's headers arrive; one that upgraded (a WebSocket) is never idle again.
 */
function keepRoom(server: Server, high: number): void {
  const idle = new Set<Socket>(); // oldest first
  const busy = new WeakMap<Socket, number>();
  let open = 0;
  const secure = typeof (server as { addContext?: unknown }).addContext === 'function'; // a TLS socket exists once its handshake is done
  server.on(secure ? 'secureConnection' : 'connection', (socket: Socket) => {
    open++;
    socket.once('close', () => {
      open--;
      idle.delete(socket);
    });
    for (const old of idle) {
      if (open <= high) break;
      idle.delete(old);
      old.destroy();
    }
    idle.add(socket);
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    idle.delete(socket);
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const n = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, n);
      if (n === 0 && !socket.destroyed && !upgraded.has(socket)) idle.add(socket);
    });
  });
  const upgraded = new WeakSet<Socket>();
  const onUpgrade = (req: IncomingMessage) => {
    upgraded.add(req.socket);
    idle.delete(req.socket);
    // no one else takes upgrades here: closed, as Node itself closes them when nothing listens
    if (otherUpgradeListeners(server) === 0) req.socket.destroy();
  };
  server.on('upgrade', Object.assign(onUpgrade, { [ROOM]: true }));
}

const ROOM = Symbol('keeps room');
/** The server's 'upgrade' listeners besides the one keeping room. */
export function otherUpgradeListeners(server: Server): number {
  return server.listeners('upgrade').filter((l) => !(l as { [ROOM]?: boolean })[ROOM]).length;
}
