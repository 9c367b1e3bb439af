// The hook endpoint (a contract other tools depend on: the shims, setup):
//
//   POST /hooks/<agent>          native payload; the hook name is read from it
//   POST /hooks/<agent>/<hook>   the hook name from the path
//
// -> 200, body = EXACTLY the reply bytes the agent must receive,
//    `x-hookmap-exit: <code>` (exit-code intent for command hooks),
//    content-type as the descriptor says (default application/json when the
//    bytes parse as JSON, else text/plain), and `x-hookmap-error: <code>`
//    when the firing could not be mapped.
//
// Bad input never breaks the agent: malformed JSON, a non-object, an
// oversize body or an unknown agent still get 200 and neutral bytes; the
// daemon logs a line naming the code (and emits a diagnostic event when the
// agent is known). Bodies are read as raw bytes whatever the content-type.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import type { Daemon, HookReply } from './daemon.ts';

export const DEFAULT_MAX_BODY = 8 * 1024 * 1024;

export interface HookRoutesOptions {
  daemons: Map<string, Daemon>;
  /** Largest hook body, bytes (default 8 MiB). */
  maxBody?: number;
  say?: (line: string) => void;
}

type Body = { buf: Buffer } | { oversize: number };

/** Read the whole body, keeping at most `limit` bytes; past it, drain (so the agent still reads our reply) and report the size. */
function readBody(stream: Readable, limit: number): Promise<Body> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | null = [];
    let size = 0;
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (chunks && size <= limit) chunks.push(c);
      else chunks = null;
      // a sender streaming far past the limit is not an agent: stop reading
      if (size > limit * 16 + 1024 * 1024) stream.destroy(new Error(`body exceeds ${limit * 16} bytes; connection dropped`));
    });
    stream.on('end', () => resolve(chunks ? { buf: Buffer.concat(chunks, size) } : { oversize: size }));
    stream.on('error', reject);
  });
}

function send(reply: FastifyReply, r: HookReply): FastifyReply {
  reply.code(200).header('x-hookmap-exit', String(r.exit)).header('content-type', r.contentType);
  if (r.error) reply.header('x-hookmap-error', r.error);
  return reply.send(r.body);
}

export function registerHookRoutes(app: FastifyInstance, o: HookRoutesOptions): void {
  const limit = o.maxBody ?? DEFAULT_MAX_BODY;
  const say = o.say ?? (() => {});
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => {
      readBody(payload as unknown as Readable, limit).then((b) => done(null, b), (e) => done(e as Error));
    });
    scope.setErrorHandler((err: any, req, reply) => {
      // a body we could not read: still neutral bytes for a known agent
      const agent = (req.params as any)?.agent as string | undefined;
      const d = agent ? o.daemons.get(agent) : undefined;
      say(`POST ${req.url}: request failed before mapping [${err.code ?? 'bad-request'}]: ${err.message}`);
      if (!d) return send(reply, { body: '', exit: 0, contentType: 'text/plain; charset=utf-8', error: 'bad-request' });
      return d.handle({ hook: (req.params as any)?.hook, body: '' }).then((r) => send(reply, { ...r, error: 'bad-request' }));
    });
    const handler = async (req: any, reply: FastifyReply) => {
      const { agent, hook } = req.params as { agent: string; hook?: string };
      const d = o.daemons.get(agent);
      if (!d) {
        say(`POST /hooks/${agent}: unknown agent [unknown-agent] (serving: ${[...o.daemons.keys()].join(', ') || 'none'}); answered empty bytes`);
        return send(reply, { body: '', exit: 0, contentType: 'text/plain; charset=utf-8', error: 'unknown-agent' });
      }
      const body = req.body as Body | undefined;
      const ac = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) ac.abort();
      });
      const r = await d.handle({
        hook: hook || undefined,
        body: body && 'buf' in body ? body.buf : undefined,
        oversize: body && 'oversize' in body ? body.oversize : undefined,
        signal: ac.signal,
      });
      return send(reply, r);
    };
    scope.post('/hooks/:agent', handler);
    scope.post('/hooks/:agent/:hook', handler);
  });
}
