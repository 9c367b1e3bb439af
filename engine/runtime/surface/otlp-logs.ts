// OTLP/HTTP logs in (issue 30): a request body (application/x-protobuf or
// application/json, gzip or not) read into flat LogRecords the descriptor's
// JSONata rules map, like any other surface's payload:
//
//   { resource: { "service.name": "agent-app", ... },   // resource attributes
//     scope: { name, version },
//     attributes: { "event.name": "vendor.tool_result", "conversation.id": "...", ... },
//     body: <AnyValue unwrapped>,
//     event_name, time (ISO 8601), time_unix_nano, severity_number, severity_text, trace_id, span_id }
//
// AnyValue is unwrapped (string, bool, int as a number when it is exact
// else a decimal string, double, array, kvlist as an object, bytes as
// base64); attribute keys stay the dotted names OTLP gives them. The HTTP
// outcomes follow OTLP/HTTP: a body that cannot be read is 400 (malformed)
// or 415 (another content type), one over the limit 413, before or while
// it is decompressed (a gzip bomb stops at the limit).
import { gunzipSync } from 'node:zlib';
import { decodeLogsRequest, ProtobufError } from './otlp-protobuf.ts';

export interface FlatLogRecord {
  resource: Record<string, unknown>;
  scope?: { name?: string; version?: string };
  attributes: Record<string, unknown>;
  body?: unknown;
  event_name?: string;
  time?: string;
  time_unix_nano?: string;
  severity_number?: number;
  severity_text?: string;
  trace_id?: string;
  span_id?: string;
}

export class OtlpBodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown, what: string): unknown[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpBodyError(400, 'malformed', `${what} is not a list`);
  return v;
};

/** An AnyValue's plain value (OTLP/JSON: one of stringValue, boolValue, intValue, doubleValue, arrayValue, kvlistValue, bytesValue). */
export function unwrap(v: unknown, depth = 0): unknown {
  if (depth > 64) throw new OtlpBodyError(400, 'malformed', 'values nested too deep');
  if (!isObj(v)) return undefined;
  if ('stringValue' in v) return typeof v.stringValue === 'string' ? v.stringValue : String(v.stringValue);
  if ('boolValue' in v) return v.boolValue === true || v.boolValue === 'true';
  if ('intValue' in v) {
    const n = typeof v.intValue === 'number' ? v.intValue : Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if ('doubleValue' in v) return typeof v.doubleValue === 'number' ? v.doubleValue : Number(v.doubleValue);
  if ('arrayValue' in v) return list(isObj(v.arrayValue) ? v.arrayValue.values : undefined, 'arrayValue.values').map((x) => unwrap(x, depth + 1));
  if ('kvlistValue' in v) return keyValues(isObj(v.kvlistValue) ? v.kvlistValue.values : undefined, depth + 1);
  if ('bytesValue' in v) return String(v.bytesValue);
  return undefined;
}

function keyValues(kvs: unknown, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list(kvs, 'attributes')) {
    if (!isObj(kv) || typeof kv.key !== 'string') throw new OtlpBodyError(400, 'malformed', 'an attribute has no string key');
    out[kv.key] = unwrap(kv.value, depth);
  }
  return out;
}

const nanosToIso = (n: string): string | undefined => {
  if (!/^\d{1,20}$/.test(n) || n === '0') return undefined;
  const ms = Number(BigInt(n) / 1_000_000n);
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString() : undefined;
};

/** Every LogRecord of an OTLP/JSON-shaped ExportLogsServiceRequest, flat (at most `max`; the rest is counted by the caller). */
export function flattenLogs(req: unknown, max = Number.POSITIVE_INFINITY): FlatLogRecord[] {
  if (!isObj(req)) throw new OtlpBodyError(400, 'malformed', 'the body is not an ExportLogsServiceRequest object');
  const out: FlatLogRecord[] = [];
  for (const rl of list(req.resourceLogs, 'resourceLogs')) {
    if (!isObj(rl)) throw new OtlpBodyError(400, 'malformed', 'a resourceLogs entry is not an object');
    const resource = keyValues(isObj(rl.resource) ? rl.resource.attributes : undefined);
    for (const sl of list(rl.scopeLogs, 'scopeLogs')) {
      if (!isObj(sl)) throw new OtlpBodyError(400, 'malformed', 'a scopeLogs entry is not an object');
      const scope = isObj(sl.scope)
        ? { name: typeof sl.scope.name === 'string' ? sl.scope.name : undefined, version: typeof sl.scope.version === 'string' ? sl.scope.version : undefined }
        : undefined;
      for (const lr of list(sl.logRecords, 'logRecords')) {
        if (out.length >= max) return out;
        if (!isObj(lr)) throw new OtlpBodyError(400, 'malformed', 'a logRecords entry is not an object');
        const attributes = keyValues(lr.attributes);
        const t = lr.timeUnixNano ?? lr.observedTimeUnixNano;
        const nanos = t === undefined ? undefined : String(t);
        // the `event.name` attribute first: an exporter built on a tracing bridge fills LogRecord.event_name with its
        // callsite ("event src/x.rs:703", seen from a real Rust exporter), while the attribute names the event
        const attrName = typeof attributes['event.name'] === 'string' && attributes['event.name'] ? (attributes['event.name'] as string) : undefined;
        const eventName = attrName ?? (typeof lr.eventName === 'string' && lr.eventName ? lr.eventName : undefined);
        const rec: FlatLogRecord = { resource, attributes };
        if (scope) rec.scope = scope;
        if (lr.body !== undefined) rec.body = unwrap(lr.body);
        if (eventName) rec.event_name = eventName;
        if (nanos) {
          rec.time_unix_nano = nanos;
          const iso = nanosToIso(nanos);
          if (iso) rec.time = iso;
        }
        if (typeof lr.severityNumber === 'number') rec.severity_number = lr.severityNumber;
        if (typeof lr.severityText === 'string' && lr.severityText) rec.severity_text = lr.severityText;
        if (typeof lr.traceId === 'string' && lr.traceId) rec.trace_id = lr.traceId.toLowerCase();
        if (typeof lr.spanId === 'string' && lr.spanId) rec.span_id = lr.spanId.toLowerCase();
        out.push(rec);
      }
    }
  }
  return out;
}

export interface BodyIn {
  contentType?: string;
  contentEncoding?: string;
  body: Buffer;
  maxBytes: number;
  /** LogRecords taken from one export; past it they are counted in `over`, never mapped (default: all). */
  maxRecords?: number;
}

/** How many LogRecords an OTLP/JSON request holds (its framing read; nothing built). */
function countJsonRecords(req: unknown): number {
  let n = 0;
  for (const rl of isObj(req) && Array.isArray(req.resourceLogs) ? req.resourceLogs : [])
    for (const sl of isObj(rl) && Array.isArray(rl.scopeLogs) ? rl.scopeLogs : []) n += isObj(sl) && Array.isArray(sl.logRecords) ? sl.logRecords.length : 0;
  return n;
}

/** A POST /v1/logs body as flat records (`over`: those past `maxRecords`); throws OtlpBodyError with the OTLP/HTTP status. */
export function readLogsBody(b: BodyIn): { records: FlatLogRecord[]; over: number } {
  const max = b.maxRecords ?? Number.POSITIVE_INFINITY;
  const type = (b.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-protobuf' && type !== 'application/json')
    throw new OtlpBodyError(
      415,
      'unsupported-media-type',
      `content type ${JSON.stringify(type || '(none)')}: OTLP/HTTP logs are application/x-protobuf or application/json`,
    );
  if (b.body.length > b.maxBytes) throw new OtlpBodyError(413, 'payload-too-large', `the body is over ${b.maxBytes} bytes`);
  let raw = b.body;
  const enc = (b.contentEncoding ?? '').trim().toLowerCase();
  if (enc === 'gzip') {
    try {
      raw = gunzipSync(raw, { maxOutputLength: b.maxBytes });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ERR_BUFFER_TOO_LARGE' || /maxOutputLength|too large/i.test((e as Error).message))
        throw new OtlpBodyError(413, 'payload-too-large', `the body decompresses to over ${b.maxBytes} bytes`);
      throw new OtlpBodyError(400, 'malformed', `the gzip body cannot be read: ${(e as Error).message}`);
    }
  } else if (enc !== '' && enc !== 'identity')
    throw new OtlpBodyError(415, 'unsupported-encoding', `content encoding ${JSON.stringify(enc)}: send gzip or none`);
  if (type === 'application/x-protobuf') {
    try {
      const req = decodeLogsRequest(raw, max);
      return { records: flattenLogs(req), over: req.over };
    } catch (e) {
      if (e instanceof ProtobufError) throw new OtlpBodyError(400, 'malformed', `the protobuf body cannot be read: ${e.message}`);
      throw e;
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new OtlpBodyError(400, 'malformed', 'the JSON body is not valid JSON');
  }
  const records = flattenLogs(parsed, max);
  return { records, over: records.length < max ? 0 : countJsonRecords(parsed) - records.length };
}

/**
 * The OTLP/HTTP success answer in the request's encoding: an
 * ExportLogsServiceResponse, with `partial_success` when some records were
 * rejected (their count and why), empty otherwise.
 */
export function logsResponse(contentType: string | undefined, rejected: number, why?: string): { type: string; body: Buffer } {
  const proto = (contentType ?? '').toLowerCase().startsWith('application/x-protobuf');
  if (!proto)
    return {
      type: 'application/json',
      body: Buffer.from(JSON.stringify(rejected ? { partialSuccess: { rejectedLogRecords: String(rejected), errorMessage: why ?? '' } } : {})),
    };
  if (!rejected) return { type: 'application/x-protobuf', body: Buffer.alloc(0) };
  const varint = (n: number) => {
    const out: number[] = [];
    let v = n;
    while (v > 0x7f) {
      out.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(v);
    return out;
  };
  const msg = Buffer.from(why ?? '', 'utf8');
  const partial = Buffer.from([0x08, ...varint(rejected), 0x12, ...varint(msg.length), ...msg]);
  return { type: 'application/x-protobuf', body: Buffer.concat([Buffer.from([0x0a, ...varint(partial.length)]), partial]) };
}
