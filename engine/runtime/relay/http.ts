// The relay's HTTP surface as an encapsulated fastify plugin: POST /events
// (ingest), GET /events + /.well-known/aep (discovery, or SSE when the
// client asks for text/event-stream), GET /stream (SSE), GET /healthz.
// Encapsulated so its raw-string body parsers and error shapes never leak
// into routes a host (`hookmap up`) mounts next to it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { SUPPORTED_VERSIONS } from '../../core/aep/schemas.ts';
import type { AuthResult } from '../auth/authorizer.ts';
import { can, type Principal, type Scope } from '../auth/principal.ts';
import type { RelayCore } from './core.ts';
import { isCommand } from './core.ts';
import { discoveryDocument } from './discovery.ts';
import { buildSpec, parseLastEventId, RequestError } from './request.ts';
import { sseSink } from './sse.ts';
import type { Held } from './store.ts';

export interface HttpContext {
  core: RelayCore;
  prefix: string;
  heartbeatMs: number;
  authenticate: (req: FastifyRequest['raw']) => AuthResult;
  /** Register an open SSE stream for revocation; returns the unregister function. */
  track: (principal: Principal, close: (reason: string) => void) => () => void;
  /** Live SSE responses, ended on shutdown. */
  streams: Set<ServerResponse>;
  isClosing: () => boolean;
  /** Open SSE streams + sockets, against limits.maxConnections. */
  connectionCount: () => number;
  startedAt: number;
}

/** "0.1" and "0.1.x" are 0.1; in 0.x every minor is its own major (AEP-0003 §3.2). */
export function versionSupported(v: string): boolean {
  return SUPPORTED_VERSIONS.includes(v.split('.').slice(0, 2).join('.'));
}

export function registerHttp(app: FastifyInstance, ctx: HttpContext): void {
  const { core } = ctx;
  const limits = core.limits;
  const discovery = () => discoveryDocument(limits, core.controlEnabled, ctx.prefix);

  const wantsStream = (req: FastifyRequest) => String(req.headers.accept ?? '').includes('text/event-stream');
  const deny = (reply: FastifyReply, detail: string) => reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized', detail });
  const forbid = (reply: FastifyReply, p: Principal, scope: Scope) =>
    reply.code(403).send({ error: 'unauthorized', detail: `'${p.name}' lacks the ${scope} scope` });
  /** Who is asking (set by the onRequest hook below, before any body is read). */
  const principals = new WeakMap<FastifyRequest['raw'], Principal>();
  const principalOf = (req: FastifyRequest) => principals.get(req.raw);
  /** The principal when it holds `scope`, else the refusal is sent and undefined returned. */
  const need = (req: FastifyRequest, reply: FastifyReply, scope: Scope): Principal | undefined => {
    const p = principalOf(req);
    if (!p) {
      void deny(reply, 'a token is required');
      return undefined;
    }
    if (!can(p, scope)) {
      void forbid(reply, p, scope);
      return undefined;
    }
    return p;
  };
  /**
   * Runs before the body is read: an announced body over the limit is refused
   * at once, and an unauthenticated request never gets a body buffered.
   * /healthz answers everyone (bare `ok` without a token).
   */
  const admit = async (req: FastifyRequest, reply: FastifyReply) => {
    const len = Number(req.headers['content-length']);
    if (Number.isFinite(len) && len > limits.maxBody)
      return reply
        .code(413)
        .header('connection', 'close')
        .send({ error: 'payload-too-large', detail: `body exceeds ${limits.maxBody} bytes` });
    const a = ctx.authenticate(req.raw);
    if (a.ok) principals.set(req.raw, a.principal);
    else if (req.url.split('?')[0] !== `${ctx.prefix}/healthz`) return deny(reply, a.detail);
  };

  app.register(
    async (scope) => {
      scope.addHook('onRequest', admit);
      scope.removeAllContentTypeParsers();
      // bytes, split here: each held event's text is its own string, never a slice pinning the whole batch
      scope.addContentTypeParser(['application/json', 'application/x-ndjson'], { parseAs: 'buffer', bodyLimit: limits.maxBody }, (_req, body, done) =>
        done(null, body),
      );
      scope.setErrorHandler((err: any, _req, reply) => {
        const status = err.statusCode ?? 500;
        // Fastify marks the connection close here; closing while the client is still
        // uploading resets it before it reads the 413. Node discards the rest of
        // the body instead (bounded memory), so the emitter learns why.
        if (status === 413)
          return reply
            .code(413)
            .removeHeader('connection')
            .send({ error: 'payload-too-large', detail: `body exceeds ${limits.maxBody} bytes` });
        if (status === 415)
          return reply.code(415).send({ error: 'unsupported-media-type', detail: 'use application/json (one event) or application/x-ndjson (a batch)' });
        if (status < 500) return reply.code(status).send({ error: 'bad-request', detail: err.message });
        return reply.code(500).send({ error: 'internal' });
      });

      scope.post('/events', { bodyLimit: limits.maxBody }, async (req, reply) => {
        if (!need(req, reply, 'emit')) return reply;
        const version = req.headers['aep-version'];
        if (typeof version === 'string' && !versionSupported(version)) return reply.code(426).send({ versions: [...SUPPORTED_VERSIONS] });
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const ndjson = String(req.headers['content-type'] ?? '').includes('ndjson');
        const lines = ndjson ? splitLines(body) : [body.toString('utf8')];
        if (lines.length > limits.maxBatch)
          return reply.code(413).send({ error: 'too-many-events', detail: `batch has ${lines.length} events; maxBatch is ${limits.maxBatch}` });
        if (lines.length === 0) return reply.code(400).send({ error: 'invalid-event', detail: 'empty body' });
        // Validate the whole batch first: a batch is rejected whole, nothing ingested.
        const held: Held[] = [];
        for (let i = 0; i < lines.length; i++) {
          const h = core.prepare(lines[i]);
          const where = ndjson ? { line: i } : {};
          if (!('ev' in h)) return reply.code(400).send({ error: h.code, ...where, detail: h.detail });
          if (isCommand(h.ev.type))
            return reply.code(403).send({ error: 'unauthorized', ...where, detail: 'commands flow only on an authenticated WebSocket (AEP-0004 §4.1)' });
          held.push(h);
        }
        let admitted = 0;
        for (const h of held) {
          const r = core.ingest(h, null);
          if (r.ok && r.admitted) admitted++;
        }
        // a networked store (the backplane): answer once the batch is durable there
        if (core.store.barrier) {
          try {
            await core.store.barrier();
          } catch (e) {
            return reply.code(503).send({
              error: 'backplane-unavailable',
              detail: `events were not stored on the backplane: ${(e as Error).message}; send the batch again (duplicates are dropped)`,
            });
          }
        }
        return reply.code(202).send({ accepted: held.length, admitted, duplicates: held.filter((h) => h.ev.seq !== undefined).length - admitted });
      });

      const discoveryOrStream = async (req: FastifyRequest, reply: FastifyReply) => {
        const p = need(req, reply, 'read');
        if (!p) return reply;
        if (wantsStream(req)) return stream(req, reply, p);
        return reply.send(discovery());
      };
      scope.get('/events', discoveryOrStream);
      scope.get('/stream', async (req, reply) => {
        const p = need(req, reply, 'read');
        if (!p) return reply;
        return stream(req, reply, p);
      });

      scope.get('/healthz', async (req, reply) => {
        // Bare `ok` for probes without a token; counts are topology, so only for a reader.
        if (!can(principalOf(req), 'read')) return reply.send({ ok: true });
        const s = core.store.stats();
        return reply.send({
          ok: true,
          sessions: s.sessions,
          events: s.events,
          subscribers: [...core.subs].filter((x) => !core.internal.has(x)).length,
          connections: ctx.connectionCount(),
          claims: core.roster().length,
          uptime_s: Math.floor((Date.now() - ctx.startedAt) / 1000),
          counters: core.counters,
          ...(core.store.health ? { backplane: await core.store.health() } : {}),
        });
      });
    },
    { prefix: ctx.prefix },
  );

  app.get('/.well-known/aep', async (req, reply) => {
    const a = ctx.authenticate(req.raw);
    if (!a.ok) return deny(reply, a.detail);
    if (!can(a.principal, 'read')) return forbid(reply, a.principal, 'read');
    return reply.send(discovery());
  });

  function stream(req: FastifyRequest, reply: FastifyReply, principal: Principal) {
    if (ctx.isClosing()) return reply.code(503).send({ error: 'shutting-down' });
    if (ctx.connectionCount() >= limits.maxConnections)
      return reply.code(503).send({ error: 'limit-exceeded', detail: `maxConnections is ${limits.maxConnections}` });
    const q = req.query as Record<string, unknown>;
    let spec;
    try {
      const filter = typeof q.filter === 'string' ? parseJson(q.filter, 'filter') : undefined;
      const from = typeof q.from === 'string' ? (q.from === 'all' ? 'all' : parseJson(q.from, 'from')) : undefined;
      spec = buildSpec(filter, q.capture, from, limits.maxFrom);
      if (!spec.from) {
        // `from` takes precedence over Last-Event-ID (AEP-0003 §3.3).
        const last = parseLastEventId(req.headers['last-event-id'] as string | undefined);
        if (last) spec.from = [last];
      }
      spec.live = q.live !== '0' && q.live !== 'false';
      spec.control = can(principal, 'control');
      spec.person = core.personOf?.(principal);
    } catch (e) {
      if (e instanceof RequestError) return reply.code(400).send({ error: e.code, detail: e.message });
      throw e;
    }
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(': subscribed\n\n');
    ctx.streams.add(res);
    const sub = core.subscribe(spec, sseSink(res, core));
    const untrack = ctx.track(principal, (reason) => {
      if (!res.destroyed) res.end(`: ${reason}\n\n`);
    });
    const beat = setInterval(() => {
      if (!res.destroyed) res.write(': ping\n\n');
    }, ctx.heartbeatMs);
    beat.unref();
    res.on('close', () => {
      untrack();
      clearInterval(beat);
      ctx.streams.delete(res);
      sub.close();
    });
  }
}

/** The non-blank lines of an NDJSON body, each decoded on its own (a trailing CR dropped). */
function splitLines(body: Buffer): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf(10, start);
    if (end < 0) end = body.length;
    const stop = end > start && body[end - 1] === 13 ? end - 1 : end;
    const line = body.toString('utf8', start, stop);
    if (line.trim() !== '') out.push(line);
    start = end + 1;
  }
  return out;
}

function parseJson(s: string, what: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    throw new RequestError('invalid-filter', `${what} is not valid JSON`);
  }
}
