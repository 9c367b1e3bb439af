// Every bound the relay enforces, in one place, with defaults. Each one is
// advertised in the discovery document so clients can plan instead of probe.
import type { Redactor } from '../../core/capture/redact.ts';
import type { Authorizer } from '../auth/authorizer.ts';
import type { TlsFiles } from '../auth/server-limits.ts';
import type { AuditRecord } from './audit.ts';
export interface RelayLimits {
  /** Events held per session in the replay buffer (AEP-0003 §5: count per session). */
  buffer: number;
  /** Bytes the replay buffer holds in total (every event's text plus its bookkeeping); least recently written sessions go first. */
  bufferBytes: number;
  /** Bytes the replay buffer holds for one session; its oldest events go first. */
  sessionBufferBytes: number;
  /** Sessions held at once; the least-recently-written one is evicted past it. */
  maxSessions: number;
  /** Largest accepted POST body, bytes. */
  maxBody: number;
  /** Most events in one NDJSON batch. */
  maxBatch: number;
  /** Most resume positions in one `from` (SSE query or WS subscribe). */
  maxFrom: number;
  /** Concurrent subscriptions per WebSocket connection. */
  maxSubscriptions: number;
  /** Concurrent SSE streams + WebSocket connections. */
  maxConnections: number;
  /** WebSocket liveness (AEP-0003 §3.5 rule 5): a `ping` frame every pingMs ... */
  pingMs: number;
  /** ... and a peer silent for idleMs gets a `closing` frame and is closed. */
  idleMs: number;
  /** Largest WebSocket frame, bytes. */
  maxFrame: number;
  /** Bytes queued toward one consumer before it is closed in order to resume (slow-consumer bound, AEP-0003 §8.4). */
  maxPending: number;
}

export interface RelayOptions extends Partial<RelayLimits> {
  host?: string;
  port?: number;
  /** The owner token (every scope). One of token / auth / noAuth is required. */
  token?: string;
  /** Who may do what (owner + named tokens, and any credential source added with auth.use()). */
  auth?: Authorizer;
  /** Explicitly token-less: anyone may read and emit, nobody may command (watch-only); loopback only. */
  noAuth?: boolean;
  /** More Host names to accept besides loopback and the bound address (engine/runtime/auth/guard.ts). */
  allowedHosts?: string[];
  /** Cross-site web origins to accept (same-origin is always accepted). */
  allowedOrigins?: string[];
  /** Serve https/wss with these PEM files (an owned server only; a host app brings its own). */
  tls?: TlsFiles;
  /** One record per command the relay routed or refused, with the authenticated sender (the audit trail). */
  audit?: (record: AuditRecord) => void;
  /** Mount point for every relay route, e.g. '/aep' when sharing a server. Default ''. */
  prefix?: string;
  /** SSE heartbeat comment interval, ms (AEP-0003 §3.3: at least every 30 s). */
  heartbeatMs?: number;
  /** Instance label in the relay's own hello identity. */
  instance?: string;
  /** Log lines (startup posture, drops). Never receives a token. */
  log?: (line: string) => void;
  /** The operator's redaction (HOOKMAP_SECRET_NAMES, HOOKMAP_REDACT_PII) for the watchers' copies of commands; default the built-in rules. */
  redactor?: Redactor;
}

export { DEFAULT_HOST, DEFAULT_PORT } from '../../core/config/defaults.ts';

export const DEFAULT_LIMITS: RelayLimits = {
  buffer: 10_000,
  bufferBytes: 128 * 1024 * 1024,
  sessionBufferBytes: 16 * 1024 * 1024,
  maxSessions: 500,
  maxBody: 16 * 1024 * 1024,
  maxBatch: 10_000,
  maxFrom: 500,
  maxSubscriptions: 64,
  maxConnections: 1024,
  pingMs: 30_000,
  idleMs: 90_000,
  maxFrame: 4 * 1024 * 1024,
  maxPending: 8 * 1024 * 1024,
};

export function resolveLimits(opts: Partial<RelayLimits>): RelayLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const k of Object.keys(DEFAULT_LIMITS) as (keyof RelayLimits)[]) {
    const v = opts[k];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v) || v < 1) throw new Error(`relay option ${k} must be a positive integer (got ${v})`);
    out[k] = v;
  }
  if (out.sessionBufferBytes > out.bufferBytes)
    throw new Error(`relay option sessionBufferBytes (${out.sessionBufferBytes}) must not exceed bufferBytes (${out.bufferBytes})`);
  return out;
}
