// The fleet backplane's JetStream stream (engine/runtime/relay/backplane/): its
// options and defaults, its retention, and the relay's buffer bounds that
// follow from them (AEP-0003 §5: the advertised replay depth is what the
// stream keeps).
//
//   <prefix>.ev.<agent>.<session>   sequenced events, one subject per session (the stream)
//   <prefix>.live.<agent>           live-only events (core NATS: no position to resume from)
//   <prefix>.roster.<relay>         each relay's live claims (roster.ts)
//   <prefix>.ctl.<session>          commands to the relay holding a session (routing.ts)
import type { JetStreamManager } from '@nats-io/jetstream';
import type { BackplaneAuth } from './connect.ts';
import type { StoreBounds } from '../store.ts';
import { subjectToken } from './signing.ts';
import {
  DEFAULT_BACKPLANE_DUPLICATE_WINDOW_MS,
  DEFAULT_BACKPLANE_MAX_AGE_MS,
  DEFAULT_BACKPLANE_PREFIX,
  DEFAULT_BACKPLANE_STREAM,
} from '../../../core/config/defaults.ts';

export interface BackplaneOptions {
  /** NATS server URL(s), comma-separated: nats://host:4222 */
  url: string;
  /** JetStream stream name (default HOOKMAP). */
  stream?: string;
  /** Subject prefix, a NATS token (default hookmap): tenancy by subject. */
  prefix?: string;
  /** Stream retention: oldest events go past this age, ms (default 7 days). */
  maxAgeMs?: number;
  /** Stream retention: oldest events go past this many bytes (default: the relay's --buffer-bytes). */
  maxBytes?: number;
  /** Stream retention per session (one subject each): its oldest events go past this many (default: the relay's --buffer). */
  maxPerSession?: number;
  /** JetStream duplicate window for the message id, ms (default 2 minutes). */
  duplicateWindowMs?: number;
  /** Give up connecting at start after this long, ms (default 5000). */
  connectTimeoutMs?: number;
  /** This relay's name on the backplane (default host-pid-random). */
  relayId?: string;
  /** The relay's server token as engine/runtime/auth resolved it: the fleet's signing key derives from it (signing.ts). Never logged. */
  token?: string;
  /** The file the token was read from: re-read when it changes, and the signing key re-derived (signing.ts watchTokenFile). */
  tokenFile?: string;
  /** After a token change, how long messages signed with the old key are still accepted, ms (default 60 s). */
  keyGraceMs?: number;
  /** How the relay authenticates to NATS and whether it speaks TLS (connect.ts). Never logged. */
  auth?: BackplaneAuth;
  log?: (line: string) => void;
}

export type ResolvedOptions = Required<Omit<BackplaneOptions, 'log' | 'relayId' | 'token' | 'auth' | 'tokenFile' | 'keyGraceMs'>>;

export const BACKPLANE_DEFAULTS = {
  stream: DEFAULT_BACKPLANE_STREAM,
  prefix: DEFAULT_BACKPLANE_PREFIX,
  maxAgeMs: DEFAULT_BACKPLANE_MAX_AGE_MS,
  maxBytes: 128 * 1024 * 1024,
  maxPerSession: 10_000,
  duplicateWindowMs: DEFAULT_BACKPLANE_DUPLICATE_WINDOW_MS,
  connectTimeoutMs: 5000,
};

export class BackplaneError extends Error {}

const NS = 1_000_000;

export function resolveOptions(o: BackplaneOptions): ResolvedOptions {
  const set = Object.fromEntries(
    Object.entries(o).filter(([k, v]) => v !== undefined && !['log', 'relayId', 'token', 'auth', 'tokenFile', 'keyGraceMs'].includes(k)),
  );
  const r = { ...BACKPLANE_DEFAULTS, ...set } as ResolvedOptions;
  if (!/^[A-Za-z0-9_-]+$/.test(r.prefix)) throw new BackplaneError(`backplane prefix '${r.prefix}' must be one NATS token ([A-Za-z0-9_-])`);
  if (!/^[A-Za-z0-9_-]+$/.test(r.stream)) throw new BackplaneError(`backplane stream name '${r.stream}' must be [A-Za-z0-9_-]`);
  return r;
}

/** A subject under the fleet's prefix; every token from data goes through subjectToken. */
export function subjectOf(prefix: string, kind: 'ev' | 'live' | 'ctl' | 'roster', ...tokens: string[]): string {
  return [prefix, kind, ...tokens.map(subjectToken)].join('.');
}

/**
 * The relay's replay buffer becomes the stream's retention: the stream keeps
 * `--buffer` events per session (one subject each) and `--buffer-bytes` in
 * total unless --backplane-max-bytes says otherwise, and every relay's
 * mirror is sized to hold all of it (a quarter more for its bookkeeping, and
 * no session-count cap of its own: the bytes bound it), so `from: all` and a
 * resume replay what the stream holds, on any relay.
 */
export function boundsOf(
  l: { buffer: number; maxSessions: number; sessionBufferBytes: number; bufferBytes: number },
  streamBytes = l.bufferBytes,
): StoreBounds {
  const totalBytes = Math.max(l.bufferBytes, Math.ceil(streamBytes * 1.25));
  return { perSession: l.buffer, maxSessions: Math.max(l.maxSessions, 1_000_000), sessionBytes: Math.min(l.sessionBufferBytes, totalBytes), totalBytes };
}

/** Make sure the stream exists with this retention (the last relay to start sets it: give a fleet's relays the same settings). */
export async function ensureStream(jsm: JetStreamManager, o: ResolvedOptions, log: (line: string) => void): Promise<void> {
  const cfg = {
    name: o.stream,
    subjects: [`${o.prefix}.ev.>`],
    max_age: o.maxAgeMs * NS,
    max_bytes: o.maxBytes,
    max_msgs_per_subject: o.maxPerSession,
    duplicate_window: Math.min(o.duplicateWindowMs, o.maxAgeMs) * NS,
  };
  const what = `max age ${o.maxAgeMs} ms, max bytes ${o.maxBytes}, ${o.maxPerSession} per session`;
  try {
    const c = (await jsm.streams.info(o.stream)).config;
    if (
      c.max_age !== cfg.max_age ||
      c.max_bytes !== cfg.max_bytes ||
      c.max_msgs_per_subject !== cfg.max_msgs_per_subject ||
      c.duplicate_window !== cfg.duplicate_window
    ) {
      await jsm.streams.update(o.stream, {
        max_age: cfg.max_age,
        max_bytes: cfg.max_bytes,
        max_msgs_per_subject: cfg.max_msgs_per_subject,
        duplicate_window: cfg.duplicate_window,
      });
      log(`backplane: stream ${o.stream} retention updated (${what})`);
    }
  } catch (e) {
    if (!/not found/i.test((e as Error).message)) throw e;
    await jsm.streams.add(cfg);
    log(`backplane: stream ${o.stream} created (subjects ${cfg.subjects[0]}, ${what})`);
  }
}
