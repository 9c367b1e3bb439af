// Slow and idle clients cost bounded resources on every hookmap listener
// (AEP-0003 §11: backpressure doubles as the denial-of-service posture):
//
//   headersTimeout    a client must finish its request headers within 10 s
//   requestTimeout    ... and its whole request body within 30 s (slow-body)
//   keepAliveTimeout  an idle keep-alive connection is closed after 5 s
//   maxConnections    open sockets per listener (default 2048); past it new
//                     connections are closed at once
//
// requestTimeout covers RECEIVING the request only: a held hook (up to the
// attention timeout) and an SSE stream keep their response open as long as
// they need. WebSocket liveness is the relay's ping/idle bound.
import type { Server } from 'node:http';
import { createRequire } from 'node:module';

export interface TlsFiles {
  cert: string | Buffer;
  key: string | Buffer;
}

export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 2048,
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
  server.headersTimeout = l.headersTimeoutMs;
  server.requestTimeout = l.requestTimeoutMs;
  server.keepAliveTimeout = l.keepAliveTimeoutMs;
  server.maxConnections = l.maxConnections;
  return l;
}
