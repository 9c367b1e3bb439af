// The hook endpoint (a contract other tools depend on: the shims, setup):
//
//   POST /hooks/<agent>          native payload; the hook name is read from it
//   POST /hooks/<agent>/<hook>   the hook name from the path
//   POST /next-turn/<agent>      a next-turn waiter (the hook payload): held until an
//                                instruction wakes its idle session (engine/runtime/daemon/next-turn.ts),
//                                `x-hookmap-ack: <token>` beside the text
//   POST /next-turn/<agent>/ack/<token>  200: the waiter delivers the text (its exit code); 409: it must not
//   POST /next-turn/<agent>/nack/<token> the waiter could not deliver it (its host refused): back in the queue at once
//
// -> 200, body = EXACTLY the reply bytes the agent must receive,
//    `x-hookmap-exit: <code>` (exit-code intent for command hooks),
//    `x-hookmap-stream: stderr` when the bytes go to stderr (absent: stdout),
//    content-type as the descriptor says (default application/json when the
//    bytes parse as JSON, else text/plain), and `x-hookmap-error: <code>`
//    when the firing could not be mapped.
//
// Bad input never breaks the agent: malformed JSON, a non-object, an
// oversize body, an unknown agent or a malformed hook path (a name over
// MAX_HOOK_NAME characters, `.`/`..`, extra segments, bad percent-escapes)
// still get 200 and neutral bytes; the daemon logs a line naming the code
// (and emits a diagnostic event when the agent is known). The path is
// parsed here, not by the router, so no router limit answers for us.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { wellFormed } from '../../core/io/well-formed.ts';
import type { Daemon, HookReply } from './daemon.ts';
import { readBody, type Body } from '../../core/io/read-body.ts';
import { redactUrl } from '../relay/auth.ts';

export const DEFAULT_MAX_BODY = 8 * 1024 * 1024;
/** Longest hook name taken from a path; longer is a malformed path (neutral bytes, coded). */
export const MAX_HOOK_NAME = 200;

export interface HookRoutesOptions {
  daemons: Map<string, Daemon>;
  /** Largest hook body, bytes (default 8 MiB). */
  maxBody?: number;
  say?: (line: string) => void;
}

export interface HookPath {
  /** The agent segment, decoded ('' when absent or undecodable). */
  agent: string;
  hook?: string;
  /** Why the path is malformed (the agent, when known, still answers its neutral bytes). */
  bad?: string;
}

function decode(seg: string): string | undefined {
  try {
    return decodeURIComponent(seg);
  } catch {
    return undefined;
  }
}

/** `/hooks/<agent>[/<hook>]` from a raw request URL, never throwing. */
export function parseHookPath(url: string): HookPath {
  const path = url.split(/[?#]/, 1)[0];
  const rest = path.replace(/^\/hooks\/?/, '');
  const segs = rest.split('/');
  const agent = decode(segs[0]);
  if (agent === undefined) return { agent: '', bad: 'the agent segment is not valid percent-encoding' };
  if (segs.length > 2 && !(segs.length === 3 && segs[2] === ''))
    return { agent, bad: `the hook path has ${segs.length - 1} segments after the agent (one hook name at most)` };
  const raw = segs[1] ?? '';
  if (raw === '') return { agent };
  const hook = decode(raw);
  if (hook === undefined) return { agent, bad: 'the hook segment is not valid percent-encoding' };
  if (hook.length > MAX_HOOK_NAME) return { agent, bad: `the hook name is ${hook.length} characters (at most ${MAX_HOOK_NAME})` };
  // eslint-disable-next-line no-control-regex -- a hook name with a control character is refused
  if (hook === '.' || hook === '..' || hook.includes('/') || /[\u0000-\u001f\u007f]/.test(hook))
    return { agent, bad: `the hook name ${JSON.stringify(hook.slice(0, 40))} is not a name` };
  return { agent, hook: wellFormed(hook) };
}

const EMPTY: HookReply = { body: '', exit: 0, contentType: 'text/plain; charset=utf-8' };

function send(reply: FastifyReply, r: HookReply): FastifyReply {
  reply.code(200).header('x-hookmap-exit', String(r.exit)).header('content-type', r.contentType);
  if (r.stream) reply.header('x-hookmap-stream', r.stream);
  if (r.error) reply.header('x-hookmap-error', r.error);
  return reply.send(r.body);
}

/** A launch's gate, as the shim says it (`x-hookmap-gate: 1`, from HOOKMAP_GATE=1): `$surface.gate` in expressions. */
function gateOf(req: FastifyRequest): Record<string, unknown> | undefined {
  return req.headers['x-hookmap-gate'] === '1' ? { gate: true } : undefined;
}

export function registerHookRoutes(app: FastifyInstance, o: HookRoutesOptions): void {
  const limit = o.maxBody ?? DEFAULT_MAX_BODY;
  const say = o.say ?? (() => {});
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => {
      readBody(payload as unknown as Readable, limit, 16).then(
        (b) => done(null, b),
        (e) => done(e as Error),
      );
    });
    scope.setErrorHandler((err: any, req, reply) => {
      // a body we could not read: still neutral bytes for a known agent
      const path = parseHookPath(req.url);
      const d = o.daemons.get(path.agent);
      say(`POST ${redactUrl(req.url).slice(0, 300)}: request failed before mapping [${err.code ?? 'bad-request'}]: ${err.message}`);
      if (!d) return send(reply, { ...EMPTY, error: 'bad-request' });
      const surface = gateOf(req);
      return d.handle({ hook: path.hook, body: '', badPath: path.bad, surface }).then((r) => send(reply, { ...r, error: 'bad-request' }));
    });
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const { agent, hook, bad } = parseHookPath(req.url);
      const d = o.daemons.get(agent);
      if (!d) {
        say(
          `POST ${redactUrl(req.url).slice(0, 300)}: unknown agent [unknown-agent] ` +
            `(serving: ${[...o.daemons.keys()].join(', ') || 'none'}); answered empty bytes`,
        );
        return send(reply, { ...EMPTY, error: bad ? 'bad-hook-path' : 'unknown-agent' });
      }
      const body = req.body as Body | undefined;
      const ac = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) ac.abort();
      });
      const r = await d.handle({
        hook,
        badPath: bad,
        body: body && 'buf' in body ? body.buf : undefined,
        oversize: body && 'oversize' in body ? body.oversize : undefined,
        signal: ac.signal,
        surface: gateOf(req),
      });
      return send(reply, r);
    };
    scope.post('/hooks', handler);
    scope.post('/hooks/*', handler);
    // a next-turn carrier's background waiter (engine/runtime/daemon/next-turn.ts): held until an instruction can wake its idle session
    scope.post('/next-turn/*', async (req: FastifyRequest, reply: FastifyReply) => {
      const [agentSeg, ...rest] = req.url.split(/[?#]/, 1)[0].slice('/next-turn/'.length).split('/');
      const d = o.daemons.get(decode(agentSeg) ?? '');
      if (!d) return send(reply, { ...EMPTY, error: 'unknown-agent' });
      // the waiter has the text: 200 = deliver it (its exit code), 409 = it is not (any more) in flight, wake nothing
      // nack: the waiter's host refused the text (nothing delivered): it goes back to the queue at once
      if (rest.length === 2 && /^n?ack$/.test(rest[0]) && /^[0-9a-f]{32}$/.test(rest[1]))
        return reply.code((await d.ackNextTurn(rest[1], rest[0] === 'ack')) ? 200 : 409).send('');
      if (rest.length && !(rest.length === 1 && rest[0] === '')) return send(reply, { ...EMPTY, error: 'bad-hook-path' });
      const body = req.body as Body | undefined;
      const ac = new AbortController();
      const raw = reply.raw;
      raw.on('close', () => {
        if (!raw.writableFinished) ac.abort();
      });
      const r = await d.waitNextTurn({
        body: body && 'buf' in body ? body.buf : undefined,
        oversize: body && 'oversize' in body ? body.oversize : undefined,
        signal: ac.signal,
      });
      if (r.sent) {
        // delivered only once the waiter acks; bytes that never went out come back at once
        if (raw.destroyed || ac.signal.aborted) r.sent(false);
        raw.once('close', () => r.sent!(raw.writableFinished));
      }
      if (r.ack) reply.header('x-hookmap-ack', r.ack);
      return send(reply, r);
    });
  });
}

/**
 * Fastify's `frameworkErrors` for a server carrying hook routes: a URL the
 * router cannot decode (`/hooks/<agent>/%ZZ`) still gets the agent's neutral
 * bytes; every other path keeps fastify's own 400.
 */
export function hookFrameworkErrors(daemons: Map<string, Daemon>, say: (line: string) => void = () => {}) {
  return (err: Error & { code?: string; statusCode?: number }, req: FastifyRequest, reply: FastifyReply): void => {
    const url = req.raw.url ?? '';
    if (req.raw.method !== 'POST' || !/^\/hooks(\/|$|\?)/.test(url)) {
      void reply.code(err.statusCode ?? 400).send({ error: 'Bad Request', code: err.code, message: err.message, statusCode: err.statusCode ?? 400 });
      return;
    }
    const path = parseHookPath(url);
    const d = daemons.get(path.agent);
    say(`POST ${redactUrl(url).slice(0, 300)}: malformed hook path [bad-hook-path]: ${err.message}`);
    const r = d ? d.neutralReply(path.hook) : EMPTY;
    void send(reply, { ...r, error: 'bad-hook-path' });
  };
}
