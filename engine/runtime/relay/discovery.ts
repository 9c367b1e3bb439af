// The discovery document (AEP-0003 §3.4), also the capability block of the
// relay's own `hello`: one source so the two never disagree. Every bound
// the relay enforces is advertised under capabilities.limits.
import { CAPTURE_ORDER, SUPPORTED_VERSIONS } from '../../core/aep/schemas.ts';
import type { RelayLimits } from './options.ts';

export function capabilities(limits: RelayLimits, controlEnabled: boolean): Record<string, unknown> {
  return {
    filters: ['attr-match'],
    // depth is a count per session AND a byte budget (per session and in total), whichever binds first
    replay: { buffer: limits.buffer, scope: 'session', all: true, bytes: limits.bufferBytes, session_bytes: limits.sessionBufferBytes },
    capture: [...CAPTURE_ORDER],
    // The relay executes no command itself; it routes to the claimant (only with a token).
    control: { accepts: [], routing: controlEnabled },
    roster: {},
    limits: {
      sessions: limits.maxSessions,
      buffer_bytes: limits.bufferBytes,
      session_buffer_bytes: limits.sessionBufferBytes,
      body_bytes: limits.maxBody,
      batch_events: limits.maxBatch,
      from_positions: limits.maxFrom,
      subscriptions_per_connection: limits.maxSubscriptions,
      connections: limits.maxConnections,
      frame_bytes: limits.maxFrame,
      pending_bytes_per_consumer: limits.maxPending,
      ping_interval_ms: limits.pingMs,
      idle_timeout_ms: limits.idleMs,
    },
    experimental: {},
  };
}

export function discoveryDocument(limits: RelayLimits, controlEnabled: boolean, prefix: string): Record<string, unknown> {
  return {
    aep: [...SUPPORTED_VERSIONS],
    role: 'collector',
    endpoints: { events: `${prefix}/events`, stream: `${prefix}/stream`, socket: `${prefix}/socket` },
    capabilities: capabilities(limits, controlEnabled),
  };
}
