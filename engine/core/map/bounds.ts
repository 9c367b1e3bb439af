// Size bounds on what the daemon puts into an envelope, so no single hook
// firing (a 7 MB session id, a 5 MiB heredoc prompt) can make an event the
// relay refuses, which would otherwise sit at the head of the outbox forever.
//
// 1. Identifiers (AEP-0003 §9.4 rule 6: identifiers are producer-controlled
//    input): `session`, `run`, `step`, `subject`, `cause`, and in `data`
//    every `id` / `*_id` / `name` / `*.name` / `model` string, are at most
//    MAX_ID_CHARS UTF-16 units. A longer one becomes its first
//    ID_HEAD_CHARS units, `~`, and the AEP digest (SHA-256, first 16 bytes,
//    hex, AEP-0003 §9.3) of the whole original: deterministic, so the same
//    vendor id always maps to the same AEP id, and two long ids that share a
//    prefix stay distinct.
// 2. Events: one serialized event is at most DEFAULT_MAX_EVENT_BYTES (1 MiB,
//    below the relay's advertised frame_bytes 4 MiB and body_bytes 16 MiB).
//    Over it, the largest strings in `data` are replaced, largest first,
//    until the event fits, each by a short head, the byte size and the
//    digest of the value that would have been sent:
//      "<head>…[truncated: 5242880 bytes, sha256:<32 hex>]"
//    and the envelope carries the extension attribute (AEP-0001 §5.4)
//    `hookmaptruncated: <bytes of the event before truncation>`. This holds
//    at every capture level (the bound runs after gating and redaction, so
//    the digest is of already-gated content and reveals nothing the level
//    did not). An event still too large after that (a huge array of small
//    values) has its `data` reduced to the marker fields only; if its schema
//    then rejects it, the daemon's final check turns it into
//    x.hookmap.error.invalid_event, which is small by construction.
import { aepDigest } from '../capture/canonical.ts';

export const MAX_ID_CHARS = 256;
const ID_HEAD_CHARS = MAX_ID_CHARS - 33; // head + '~' + 32 hex
export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;
/** Strings shorter than this are never replaced (a marker is ~90 bytes: replacing small ones gains nothing). */
const MIN_REPLACED_CHARS = 512;
const HEAD_CHARS = 120;

/** Cut `s` to at most `n` UTF-16 units without splitting a surrogate pair. */
function headOf(s: string, n: number): string {
  if (s.length <= n) return s;
  const c = s.charCodeAt(n - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
}

/** An identifier within MAX_ID_CHARS (unchanged when it already is). */
export function boundId(s: string): string {
  if (s.length <= MAX_ID_CHARS) return s;
  return `${headOf(s, ID_HEAD_CHARS)}~${aepDigest(s)}`;
}

export function boundOptId(s: string | undefined): string | undefined {
  return s === undefined ? undefined : boundId(s);
}

function isIdKey(k: string): boolean {
  return k === 'id' || k.endsWith('_id') || k === 'name' || k.endsWith('.name') || k === 'model' || k.endsWith('.model');
}

/** What a replaced string becomes. */
export function truncationMarker(s: string): string {
  return `${headOf(s, HEAD_CHARS)}…[truncated: ${Buffer.byteLength(s, 'utf8')} bytes, sha256:${aepDigest(s)}]`;
}

/** True when a string is a truncation marker (tests, consumers). */
export const TRUNCATED_RE = /…\[truncated: (\d+) bytes, sha256:([0-9a-f]{32})\]$/;

interface Leaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  len: number;
}

/**
 * Bound identifier-named strings in `data` (in place on a copy-on-write
 * basis: containers holding a changed value are copied) and measure an
 * upper bound of its serialized size. Returns the (possibly new) value.
 */
function boundIds(v: unknown, key: string | undefined, depth: number): unknown {
  if (typeof v === 'string') return key !== undefined && isIdKey(key) && v.length > MAX_ID_CHARS ? boundId(v) : v;
  if (!v || typeof v !== 'object' || depth > 64) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const nv = boundIds(v[i], key, depth + 1);
      if (nv !== v[i]) (out ??= v.slice())[i] = nv;
    }
    return out ?? v;
  }
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(v)) {
    const old = (v as Record<string, unknown>)[k];
    const nv = boundIds(old, k, depth + 1);
    if (nv !== old) (out ??= { ...(v as Record<string, unknown>) })[k] = nv;
  }
  return out ?? v;
}

/** An upper bound of JSON.stringify(v)'s UTF-8 length, cheap (no allocation); stops counting past `stop`. */
function sizeBound(v: unknown, stop: number): number {
  let n = 0;
  const walk = (x: unknown, depth: number): void => {
    if (n > stop) return;
    if (typeof x === 'string') n += x.length * 3 + 2;
    else if (x === null || typeof x !== 'object') n += 24;
    else if (depth > 64) n += stop + 1;
    else if (Array.isArray(x)) {
      n += 2;
      for (const e of x) {
        n += 1;
        walk(e, depth + 1);
        if (n > stop) return;
      }
    } else {
      n += 2;
      for (const k of Object.keys(x)) {
        n += k.length * 3 + 4;
        walk((x as Record<string, unknown>)[k], depth + 1);
        if (n > stop) return;
      }
    }
  };
  walk(v, 0);
  return n;
}

function deepCopy<T>(v: T): T {
  return v && typeof v === 'object' ? (JSON.parse(JSON.stringify(v)) as T) : v;
}

function collectStrings(v: unknown, out: Leaf[], depth: number): void {
  if (!v || typeof v !== 'object' || depth > 64) return;
  if (Array.isArray(v)) {
    v.forEach((e, i) =>
      typeof e === 'string' ? e.length >= MIN_REPLACED_CHARS && out.push({ holder: v, key: i, len: e.length }) : collectStrings(e, out, depth + 1),
    );
    return;
  }
  for (const [k, e] of Object.entries(v as Record<string, unknown>)) {
    if (typeof e === 'string') {
      if (e.length >= MIN_REPLACED_CHARS) out.push({ holder: v as Record<string, unknown>, key: k, len: e.length });
    } else collectStrings(e, out, depth + 1);
  }
}

export interface BoundedData {
  data: Record<string, unknown> | undefined;
  /** Bytes of the event before truncation, when it was truncated. */
  truncatedFrom?: number;
}

/**
 * Bound `data` so that the event (`envelopeBytes` of attributes around it)
 * serializes to at most `maxBytes`. Identifier-named strings are bounded
 * first; `data` is copied before anything in it is replaced.
 */
export function boundData(data: Record<string, unknown> | undefined, envelopeBytes: number, maxBytes = DEFAULT_MAX_EVENT_BYTES): BoundedData {
  if (data === undefined) return { data };
  const d = boundIds(data, undefined, 0) as Record<string, unknown>;
  const budget = maxBytes - envelopeBytes;
  // the common case: an upper bound already fits, nothing serialized
  if (sizeBound(d, budget) <= budget) return { data: d };
  let bytes = Buffer.byteLength(JSON.stringify(d), 'utf8');
  if (bytes <= budget) return { data: d };
  const before = bytes + envelopeBytes;
  const out = deepCopy(d);
  const leaves: Leaf[] = [];
  collectStrings(out, leaves, 0);
  leaves.sort((a, b) => b.len - a.len);
  for (const l of leaves) {
    const holder = l.holder as Record<string | number, unknown>;
    const s = holder[l.key] as string;
    const was = Buffer.byteLength(JSON.stringify(s), 'utf8');
    const marker = truncationMarker(s);
    holder[l.key] = marker;
    bytes -= was - Buffer.byteLength(JSON.stringify(marker), 'utf8');
    if (bytes <= budget) return { data: out, truncatedFrom: before };
  }
  // many small values: keep only what says what happened (the schema check decides whether this is still a valid event)
  return { data: { truncated: true }, truncatedFrom: before };
}
