// The model-fired emit path over HTTP (AEP-0001 §9; the AEP reference's
// docs/components/aep-mcp.md): what `hookmap mcp` (the MCP server an agent
// starts over stdio) calls on the daemon that serves the agent's hooks.
//
//   POST /mcp/<agent>/ask_human   { question, options?, session?, tool?, timeout_ms? }
//     -> 200 {"status":"answered","option"?,"label"?,"text"?} once a human answered
//        (control.attention.respond), or {"status":"unanswered","why"} on timeout,
//        dismissal or shutdown. The request is held open until then.
//   POST /mcp/<agent>/emit_event  { type, data?, subject?, severity?, session?, tool? }
//     -> 200 {"id","type","session","seq","epoch"} of the event appended
//
// Refusals: 4xx/5xx with {"error": <code>, "message"} (codes: AskErrorCode in
// asks.ts, plus unknown-agent, unauthorized, unsupported-media-type).
// Only application/json bodies are read (a browser's form or text/plain POST
// is a CORS-simple request another origin could forge). When the server has a
// relay token, a request must present it (Authorization: Bearer): asking a
// human and appending events are emits, never anonymous ones.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AskError, parseAsk, parseEmit } from './asks.ts';
import type { Daemon } from './daemon.ts';

export const TOOL_ROUTE_MAX_BODY = 64 * 1024;

export interface ToolRoutesOptions {
  daemons: Map<string, Daemon>;
  /** May this request emit? Undefined: yes (no token configured, loopback only). */
  authorize?: (req: FastifyRequest) => boolean;
  say?: (line: string) => void;
}

function refuse(reply: FastifyReply, status: number, error: string, message: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(JSON.stringify({ error, message }));
}

export function registerToolRoutes(app: FastifyInstance, o: ToolRoutesOptions): void {
  const say = o.say ?? (() => {});
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: TOOL_ROUTE_MAX_BODY }, (_req, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(Object.assign(new Error('the body is not JSON'), { statusCode: 400, code: 'bad-request' }));
      }
    });
    scope.setErrorHandler((err: any, _req, reply) => {
      if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err.statusCode === 415)
        return refuse(reply, 415, 'unsupported-media-type', 'only application/json bodies are read');
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return refuse(reply, 413, 'bad-request', `the body is over ${TOOL_ROUTE_MAX_BODY} bytes`);
      return refuse(
        reply,
        err.statusCode && err.statusCode < 500 ? err.statusCode : 400,
        err.code === 'bad-request' ? 'bad-request' : 'bad-request',
        err.message,
      );
    });
    const daemonOf = (req: FastifyRequest, reply: FastifyReply): Daemon | undefined => {
      if (o.authorize && !o.authorize(req)) {
        refuse(reply, 401, 'unauthorized', 'present the relay token (Authorization: Bearer); hookmap mcp finds it as the other clients do');
        return undefined;
      }
      const agent = (req.params as { agent: string }).agent;
      const d = o.daemons.get(agent);
      if (!d)
        refuse(
          reply,
          404,
          'unknown-agent',
          `no daemon for agent '${String(agent).slice(0, 60)}' here (serving: ${[...o.daemons.keys()].join(', ') || 'none'})`,
        );
      return d;
    };
    const fail = (reply: FastifyReply, what: string, e: unknown): FastifyReply => {
      if (e instanceof AskError) {
        say(`${what} refused [${e.code}]: ${e.message}`);
        return refuse(reply, e.status, e.code, e.message);
      }
      throw e;
    };
    scope.post('/mcp/:agent/ask_human', async (req, reply) => {
      const d = daemonOf(req, reply);
      if (!d) return reply;
      const ac = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) ac.abort();
      });
      try {
        const body = await d.ask(parseAsk(req.body), ac.signal);
        return reply.code(200).header('content-type', 'application/json').send(body);
      } catch (e) {
        return fail(reply, `ask_human for ${d.vendor}`, e);
      }
    });
    scope.post('/mcp/:agent/emit_event', async (req, reply) => {
      const d = daemonOf(req, reply);
      if (!d) return reply;
      try {
        const ev = await d.emitFromTool(parseEmit(req.body, d.vendor));
        return reply
          .code(200)
          .header('content-type', 'application/json')
          .send(JSON.stringify({ id: ev.id, type: ev.type, session: ev.session, epoch: ev.epoch, seq: ev.seq }));
      } catch (e) {
        return fail(reply, `emit_event for ${d.vendor}`, e);
      }
    });
  });
}
