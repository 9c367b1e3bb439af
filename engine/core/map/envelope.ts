// Builds the AEP envelope (AEP-0001 §5): the sixteen context attributes in
// their documented order, absent optional attributes omitted (never null).
// Every event built here is size-bounded (bounds.ts): identifiers within
// MAX_ID_CHARS, the whole event within DEFAULT_MAX_EVENT_BYTES, marked with
// the `hookmaptruncated` extension attribute (AEP-0001 §5.4) when cut.
import { hostname } from 'node:os';
import { monotonicFactory } from 'ulid';
import { AEP_VERSION, CORE_ATTRIBUTES, type CaptureLevel, type Severity } from '../aep/schemas.ts';
import type { AepEvent } from '../kernel/event.ts';
import { boundData, boundOptId, DEFAULT_MAX_EVENT_BYTES } from './bounds.ts';

/** The envelope extension attribute (AEP-0001 §5.4) a truncated event carries: its size before truncation, bytes. */
export const TRUNCATED_ATTR = 'hookmaptruncated';

/** Names no extension may take: the core attributes, W3C tracestate (traceparent's companion) and hookmap's truncation mark. */
const CORE_ATTRS = new Set([...CORE_ATTRIBUTES, 'tracestate', TRUNCATED_ATTR]);

/** An AEP event: the kernel's one event type (engine/core/kernel/event.ts), generated from schemas/aep/aep-event.schema.json. */
export type { AepEvent };

const ulid = monotonicFactory();
export const newId = (): string => ulid();

/** A host token safe inside a URI authority: `id` (HOOKMAP_HOST_ID, resolved at the CLI edge) or this machine's hostname. */
export function sourceHost(id?: string): string {
  return (id || hostname() || 'localhost').toLowerCase().replace(/[^a-z0-9.-]+/g, '-') || 'localhost';
}

/** `channel`: the pipeline a second emitter of the same agent carries (otel): a source of its own, aep://host/agent/<agent>/<channel>. */
export function sourceUri(host: string, agent: string, session?: string, channel?: string): string {
  const base = `aep://${host}/agent/${encodeURIComponent(agent)}${channel ? `/${encodeURIComponent(channel)}` : ''}`;
  return session === undefined ? base : `${base}/session/${encodeURIComponent(session)}`;
}

export interface EnvelopeParts {
  id?: string;
  type: string;
  subject?: string;
  time?: string;
  host: string;
  agent: string;
  /** The agent's pipeline this emitter carries, in the source (sourceUri). */
  channel?: string;
  session?: string;
  run?: string;
  step?: string;
  seq?: number;
  epoch?: number;
  cause?: string;
  severity?: Severity;
  capture?: CaptureLevel;
  data?: Record<string, unknown>;
  /** Extension attributes (AEP-0001 §5.4): names `[a-z0-9]{1,20}` that no core attribute has, scalar values. */
  extensions?: Readonly<Record<string, string | number | boolean>>;
  /** The event byte bound (default DEFAULT_MAX_EVENT_BYTES). */
  maxBytes?: number;
}

/**
 * Bytes kept for the attributes around `data`: each identifier is at most
 * MAX_ID_CHARS (≤ 3 bytes each in UTF-8, ≤ 9 percent-encoded in `source`),
 * so the envelope without data always fits in this.
 */
const ENVELOPE_ROOM = 16 * 1024;

export function buildEnvelope(p: EnvelopeParts): AepEvent {
  const ev = { aep: AEP_VERSION, id: boundOptId(p.id) ?? newId(), type: p.type } as AepEvent;
  const session = boundOptId(p.session);
  if (p.subject !== undefined) ev.subject = boundOptId(p.subject);
  ev.time = p.time ?? new Date().toISOString();
  ev.source = sourceUri(p.host, p.agent, session, p.channel);
  ev.agent = p.agent;
  if (session !== undefined) ev.session = session;
  if (p.run !== undefined) ev.run = boundOptId(p.run);
  if (p.step !== undefined) ev.step = boundOptId(p.step);
  if (p.seq !== undefined) ev.seq = p.seq;
  if (p.epoch !== undefined) ev.epoch = p.epoch;
  if (p.cause !== undefined) ev.cause = boundOptId(p.cause);
  if (p.severity !== undefined) ev.severity = p.severity;
  if (p.capture !== undefined) ev.capture = p.capture;
  for (const [k, v] of Object.entries(p.extensions ?? {})) {
    // refused at the source, never merged over a core attribute (AEP-0001 §5.4)
    if (
      !/^[a-z0-9]{1,20}$/.test(k) ||
      CORE_ATTRS.has(k) ||
      !['string', 'number', 'boolean'].includes(typeof v) ||
      (typeof v === 'number' && !Number.isInteger(v))
    )
      throw new Error(`extension attribute ${JSON.stringify(k)} is not allowed (AEP-0001 §5.4)`);
    (ev as Record<string, unknown>)[k] = v;
  }
  if (p.data !== undefined) {
    const b = boundData(p.data, ENVELOPE_ROOM, p.maxBytes ?? DEFAULT_MAX_EVENT_BYTES);
    if (b.truncatedFrom !== undefined) (ev as Record<string, unknown>)[TRUNCATED_ATTR] = b.truncatedFrom;
    ev.data = b.data;
  }
  return ev;
}

/** Bound an event's `data` again after something was added to it (e.g. gated form values): same rule as buildEnvelope. */
export function reboundData(ev: AepEvent, maxBytes = DEFAULT_MAX_EVENT_BYTES): AepEvent {
  if (ev.data === undefined) return ev;
  const b = boundData(ev.data, ENVELOPE_ROOM, maxBytes);
  if (b.truncatedFrom !== undefined) {
    delete ev.data; // the marker goes before data, like every attribute
    (ev as Record<string, unknown>)[TRUNCATED_ATTR] = Math.max(b.truncatedFrom, Number((ev as Record<string, unknown>)[TRUNCATED_ATTR] ?? 0));
  }
  ev.data = b.data;
  return ev;
}
