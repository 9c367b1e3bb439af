// The otlp-receiver surface (descriptor `surface.kind: otlp-receiver`): an
// agent's own OpenTelemetry log export, received without a Collector.
//
//   POST /otlp/<vendor>/v1/logs    application/x-protobuf | application/json, gzip or not
//
// One path per descriptor, so two vendors never share one emitter identity.
// Each LogRecord, flattened (otlp-logs.ts), is one firing of that vendor's
// daemon, in the batch's order; a record that cannot be mapped (no session
// key, a payload its schema rejects) is a coded diagnostic in the stream and
// a rejected count in the answer, never a stop for the batch's other records.
//
// Who may send: the hook endpoints' rules. A peer on this machine needs no
// token (the token-less loopback default); a peer off it needs a token with
// the emit scope; a token that is presented must be good (a wrong or revoked
// one is 401 from loopback too, where tokens are configured). Host and Origin are the server-wide guard's
// (engine/runtime/auth/guard.ts), before this. Both accepted types need a CORS
// preflight a web page never gets, and any other type is 415 before the body
// is read.
//
// The answers are OTLP/HTTP's: 200 with an ExportLogsServiceResponse
// (`partial_success` counting the rejected records), 400 malformed, 401, 404
// (no such receiver), 413 over the limit (the declared length before reading,
// the bytes while reading, the inflated size while decompressing), 415, 429
// with Retry-After while earlier records still wait to be mapped or the
// receiver's rate is spent. Errors carry a google.rpc.Status in the request's
// encoding and `x-hookmap-error`.
//
// Bounded (issue 40: 150,000 empty records in 516 gzipped bytes were mapped
// whole, stalling every agent's hooks): one export yields at most
// `maxRecords` records (the rest rejected in `partial_success`, never even
// decoded), and a receiver maps at most `recordsPerSecond` on average (a
// bucket of `maxRecords`; an export that does not fit is told to come back,
// 429). Refusals are counted, and said at most once a minute.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { Authorizer } from '../auth/authorizer.ts';
import { presentedToken } from '../auth/authorizer.ts';
import { isLoopbackHost } from '../auth/guard.ts';
import { can } from '../auth/principal.ts';
import type { AgentPort } from '../daemon/port.ts';
import { logsResponse, OtlpBodyError, readLogsBody, type FlatLogRecord } from './otlp-logs.ts';
import { readBody, type Body } from '../../core/io/read-body.ts';
import { throttledSay } from '../../core/io/throttle.ts';
import { redactUrl } from '../relay/auth.ts';

export const OTLP_KIND = 'otlp-receiver';
export const DEFAULT_OTLP_MAX_BODY = 8 * 1024 * 1024;
/** Records received and not yet mapped, across receivers, past which a new export is told to come back (429). */
export const DEFAULT_OTLP_MAX_PENDING = 20_000;
export const RETRY_AFTER_S = 2;
/** LogRecords mapped from one export (OTel SDKs batch 512 by default); past it they are rejected, never decoded. */
export const DEFAULT_OTLP_MAX_RECORDS = 2_000;
/** LogRecords a receiver maps per second on average (bursts up to DEFAULT_OTLP_MAX_RECORDS). */
export const DEFAULT_OTLP_RECORDS_PER_SECOND = 1_000;

export interface OtlpRoutesOptions {
  daemons: ReadonlyMap<string, AgentPort>;
  /** Tokens (absent: only token-less loopback peers are served). */
  auth?: Authorizer;
  /** Largest body, bytes, compressed or inflated (default 8 MiB). */
  maxBody?: number;
  maxPending?: number;
  /** LogRecords taken from one export (default DEFAULT_OTLP_MAX_RECORDS). */
  maxRecords?: number;
  /** LogRecords mapped per second per receiver, on average (default DEFAULT_OTLP_RECORDS_PER_SECOND). */
  recordsPerSecond?: number;
  /** The clock the rate is measured with (tests). */
  now?: () => number;
  say?: (line: string) => void;
  /** Sees each export's records before they are mapped (`hookmap record`); its failure is said, never the export's. */
  onRecords?: (vendor: string, records: FlatLogRecord[]) => Promise<void> | void;
}

/** The receiver's state a test or `up` can read: records waiting to be mapped, exports answered. */
export interface OtlpReceiver {
  pending: number;
  readonly maxPending: number;
  /** refused: whole exports; over: records past the per-export limit (rejected, never mapped). */
  counts: { accepted: number; rejected: number; refused: number; over: number };
}

/** A receiver's rate: a bucket of `size` records filled at `perSecond`. */
class RecordBucket {
  private tokens: number;
  private at: number;
  constructor(
    private readonly size: number,
    private readonly perSecond: number,
    private readonly now: () => number,
  ) {
    this.tokens = size;
    this.at = now();
  }
  /** Take `n` (true), or say how many seconds until they fit (false: nothing taken). */
  take(n: number): { ok: true } | { ok: false; waitS: number } {
    const t = this.now();
    this.tokens = Math.min(this.size, this.tokens + ((t - this.at) / 1000) * this.perSecond);
    this.at = t;
    if (n <= this.tokens) {
      this.tokens -= n;
      return { ok: true };
    }
    return { ok: false, waitS: Math.max(1, Math.ceil((n - this.tokens) / this.perSecond)) };
  }
}

/** `/otlp/<vendor>/v1/logs` → the vendor, or undefined (another path). */
export function otlpVendorOf(url: string): string | undefined {
  const m = /^\/otlp\/([^/?#]+)\/v1\/logs\/?(?:[?#].*)?$/.exec(url);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}

const GRPC: Record<number, number> = { 400: 3, 401: 16, 404: 5, 405: 12, 413: 8, 415: 3, 429: 8, 503: 14 };

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** A google.rpc.Status (code, message) in the request's encoding: protobuf unless the request was JSON. */
export function statusBody(contentType: string | undefined, status: number, message: string): { type: string; body: Buffer } {
  const code = GRPC[status] ?? 2;
  if (/^\s*application\/json/i.test(contentType ?? '')) return { type: 'application/json', body: Buffer.from(JSON.stringify({ code, message })) };
  const msg = Buffer.from(message, 'utf8');
  return { type: 'application/x-protobuf', body: Buffer.from([0x08, ...varint(code), 0x12, ...varint(msg.length), ...msg]) };
}

const mediaType = (h: unknown): string =>
  String(h ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();

export function registerOtlpRoutes(app: FastifyInstance, o: OtlpRoutesOptions): OtlpReceiver {
  const limit = o.maxBody ?? DEFAULT_OTLP_MAX_BODY;
  const maxRecords = o.maxRecords ?? DEFAULT_OTLP_MAX_RECORDS;
  const perSecond = o.recordsPerSecond ?? DEFAULT_OTLP_RECORDS_PER_SECOND;
  const now = o.now ?? Date.now;
  const buckets = new Map<string, RecordBucket>();
  // a refusal anyone on this machine can provoke is said once a minute, the rest counted into the next line
  const say = o.say ?? (() => {});
  const sayRefused = throttledSay(o.say, 60_000, now);
  const rx: OtlpReceiver = {
    pending: 0,
    maxPending: o.maxPending ?? DEFAULT_OTLP_MAX_PENDING,
    counts: { accepted: 0, rejected: 0, refused: 0, over: 0 },
  };
  const refuse = (req: FastifyRequest, reply: FastifyReply, status: number, code: string, message: string, extra: Record<string, string> = {}) => {
    rx.counts.refused++;
    sayRefused(`${req.method} ${redactUrl(req.url).slice(0, 200)}: refused ${status} [${code}]: ${message}`);
    const s = statusBody(req.headers['content-type'], status, message);
    reply.code(status).header('content-type', s.type).header('x-hookmap-error', code);
    for (const [k, v] of Object.entries(extra)) reply.header(k, v);
    return reply.send(s.body);
  };
  const receiverOf = (url: string): AgentPort | undefined => {
    const v = otlpVendorOf(url);
    const d = v === undefined ? undefined : o.daemons.get(v);
    return d?.surfaceKind === OTLP_KIND ? d : undefined;
  };

  app.register(async (scope) => {
    // who and what, before a byte of the body is read
    scope.addHook('onRequest', async (req, reply) => {
      const remote = req.socket.remoteAddress;
      const presented = presentedToken(req.raw) !== undefined;
      if ((remote && !isLoopbackHost(remote)) || (presented && o.auth)) {
        const a = o.auth?.authenticate(req.raw);
        if (!a?.ok || !can(a.principal, 'emit'))
          return refuse(
            req,
            reply,
            401,
            'unauthorized',
            presented ? 'the token is not valid (unknown, revoked or without the emit scope)' : 'a peer off this machine needs a token with the emit scope',
          );
      }
      if (!receiverOf(req.url))
        return refuse(
          req,
          reply,
          404,
          'unknown-receiver',
          `no OTLP receiver at ${redactUrl(req.url).slice(0, 120)} (receivers: ${receivers(o.daemons).join(', ') || 'none'})`,
        );
      if (req.method !== 'POST') return refuse(req, reply, 405, 'method-not-allowed', 'OTLP/HTTP logs are POSTed', { allow: 'POST' });
      const type = mediaType(req.headers['content-type']);
      if (type !== 'application/x-protobuf' && type !== 'application/json')
        return refuse(
          req,
          reply,
          415,
          'unsupported-media-type',
          `content type '${type || '(none)'}': OTLP/HTTP logs are application/x-protobuf or application/json`,
        );
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > limit)
        return refuse(req, reply, 413, 'payload-too-large', `the body is ${declared} bytes (at most ${limit})`, { connection: 'close' });
      if (rx.pending >= rx.maxPending)
        return refuse(req, reply, 429, 'backpressure', `${rx.pending} records still wait to be mapped`, { 'retry-after': String(RETRY_AFTER_S) });
    });
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => {
      readBody(payload as unknown as Readable, limit, 4).then(
        (b) => done(null, b),
        (e) => done(e as Error),
      );
    });
    scope.setErrorHandler((err: Error & { code?: string }, req, reply) => refuse(req, reply, 400, err.code ?? 'bad-request', err.message));
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const d = receiverOf(req.url)!;
      const body = req.body as Body | undefined;
      if (body && 'oversize' in body) return refuse(req, reply, 413, 'payload-too-large', `the body is over ${limit} bytes`, { connection: 'close' });
      let records: FlatLogRecord[];
      let over: number;
      try {
        ({ records, over } = readLogsBody({
          contentType: req.headers['content-type'],
          contentEncoding: String(req.headers['content-encoding'] ?? ''),
          body: body?.buf ?? Buffer.alloc(0),
          maxBytes: limit,
          maxRecords,
        }));
      } catch (e) {
        if (e instanceof OtlpBodyError) return refuse(req, reply, e.status, e.code, e.message);
        throw e;
      }
      if (rx.pending > 0 && rx.pending + records.length > rx.maxPending)
        return refuse(req, reply, 429, 'backpressure', `${rx.pending} records still wait to be mapped`, { 'retry-after': String(RETRY_AFTER_S) });
      const bucket = buckets.get(d.vendor) ?? buckets.set(d.vendor, new RecordBucket(maxRecords, perSecond, now)).get(d.vendor)!;
      const fits = bucket.take(records.length);
      if (!fits.ok)
        return refuse(req, reply, 429, 'rate-limited', `this receiver maps at most ${perSecond} records a second`, { 'retry-after': String(fits.waitS) });
      const failed = (e: unknown) => say(`recording ${records.length} records failed: ${(e as Error).message}`);
      if (o.onRecords) await Promise.resolve(o.onRecords(d.vendor, records)).catch(failed);
      const mapped = await mapRecords(d, records, rx);
      let { rejected, why } = mapped;
      if (over) {
        rx.counts.over += over;
        rejected += over;
        const past = `${over} records past the first ${maxRecords} of the export were not mapped (at most ${maxRecords} per export)`;
        why = why ? `${why}; ${past}` : past;
        sayRefused(`${redactUrl(req.url).slice(0, 200)}: ${past}`);
      }
      const r = logsResponse(req.headers['content-type'], rejected, why);
      return reply.code(200).header('content-type', r.type).send(r.body);
    };
    scope.all('/otlp/*', handler);
  });
  return rx;
}

/** Records mapped between two turns of the event loop: an export never keeps /healthz or a hook waiting behind all of it. */
const MAP_SLICE = 10;

/** Every record through the daemon, in order (the daemon's own critical section keeps it): how many were rejected, and why (the first few). */
async function mapRecords(d: AgentPort, records: FlatLogRecord[], rx: OtlpReceiver): Promise<{ rejected: number; why?: string }> {
  rx.pending += records.length;
  const out: Awaited<ReturnType<AgentPort['handle']>>[] = [];
  for (let i = 0; i < records.length; i += MAP_SLICE) {
    const slice = records.slice(i, i + MAP_SLICE).map((rec) =>
      d.handle({ payload: rec, surface: { kind: OTLP_KIND } }).finally(() => {
        rx.pending--;
      }),
    );
    out.push(...(await Promise.all(slice)));
    // mapping is mostly promise continuations: without a turn of the loop no request waiting on a socket is read
    if (i + MAP_SLICE < records.length) await new Promise((r) => setImmediate(r));
  }
  const bad = out.map((r, i) => ({ i, code: r.error })).filter((x) => x.code !== undefined && x.code !== 'not-durable');
  rx.counts.accepted += records.length - bad.length;
  rx.counts.rejected += bad.length;
  if (!bad.length) return { rejected: 0 };
  const named = bad.slice(0, 5).map((b) => `record ${b.i + 1} [${b.code}]`);
  return {
    rejected: bad.length,
    why: `${bad.length} of ${records.length} records not mapped: ${named.join(', ')}${bad.length > 5 ? ', ...' : ''} (their diagnostics are in the stream)`,
  };
}

function receivers(daemons: ReadonlyMap<string, AgentPort>): string[] {
  return [...daemons.values()].filter((d) => d.surfaceKind === OTLP_KIND).map((d) => `/otlp/${d.vendor}/v1/logs`);
}
