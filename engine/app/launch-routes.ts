// The launch API on `hookmap up`'s port (docs/launch.md), for `hookmap run`
// and, later, the inbox and chat surfaces:
//
//   GET  /launch             what can be started: agents, modes, options, allowed projects by name; this up's runs  (control)
//   POST /launch { agent, project, prompt, mode?: headless|tmux, resume?, options? }  (control)
//   GET  /launch/:id        the run: state, pid, log, tmux attach line, session once known  (control)
//   POST /launch/stop { id }  stop a headless run by launch id or hookmap session  (control)
//
// Authenticated like the relay (a bearer token, or the inbox's cookie from
// this origin): only a principal with the control scope starts, continues or
// stops a run (a read-only token is refused 403). Every start and refusal is
// audited by the launcher with the principal and the surface.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authorizer } from '../runtime/auth/authorizer.ts';
import { can, type Principal } from '../runtime/auth/principal.ts';
import { jsonOnly } from '../person/inbox/json-scope.ts';
import { throttledSay } from '../core/io/throttle.ts';
import { LaunchError } from '../person/launch/argv.ts';
import type { Catalog } from '../person/launch/catalog.ts';
import type { LaunchRequest, Launcher, LaunchRun } from '../person/launch/launcher.ts';

const MAX_BODY = 64 * 1024;

const refuse = (reply: FastifyReply, status: number, error: string, detail: string) => reply.code(status).send({ error, detail });

/** The surface a request came from: the inbox (its cookie) or a client with a token that names itself (the CLI, a bridge). */
const surfaceOf = (p: Principal, req: FastifyRequest): string => {
  const said = req.headers['x-hookmap-surface'];
  if (p.source === 'inbox-session') return 'inbox';
  return typeof said === 'string' && /^[a-z][a-z0-9-]{0,31}$/.test(said) ? said : 'api';
};

/** A run as the API shows it (no environment, no argv: the prompt stays in the agent's own session). */
const view = (r: LaunchRun) => ({ ...r });

export function registerLaunchRoutes(
  app: FastifyInstance,
  o: { launcher: Launcher; catalog: () => Catalog; auth: Authorizer; say?: (line: string) => void },
): void {
  app.register(async (scope) => {
    const sayMalformed = throttledSay(o.say);
    jsonOnly(scope, MAX_BODY, (e) => sayMalformed(`launch API: ${e.message}`));
    const who = (req: FastifyRequest, reply: FastifyReply): Principal | undefined => {
      const r = o.auth.authenticate(req.raw);
      if (!r.ok) {
        refuse(reply, 401, 'unauthorized', 'present the hookmap token (Authorization: Bearer) or sign in to the inbox');
        return undefined;
      }
      if (!can(r.principal, 'control')) {
        refuse(reply, 403, 'forbidden', `${r.principal.name} has no control scope: a read-only token cannot start, continue or stop an agent`);
        return undefined;
      }
      return r.principal;
    };

    scope.get('/launch', async (req, reply) => {
      if (!who(req, reply)) return reply;
      // the newest runs first, at most 50: each with its state and, once known, its session
      const runs = o.launcher.list().slice(-50).reverse().map(view);
      return reply.header('cache-control', 'no-store').send({ ...o.catalog(), runs });
    });

    scope.post('/launch', async (req, reply) => {
      const p = who(req, reply);
      if (!p) return reply;
      const b = (req.body ?? {}) as Partial<LaunchRequest>;
      try {
        const run = o.launcher.start(
          { agent: b.agent!, project: b.project!, prompt: b.prompt!, mode: b.mode, resume: b.resume, options: b.options },
          { principal: p.name, surface: surfaceOf(p, req) },
        );
        return reply.code(201).send({ run: view(run) });
      } catch (e) {
        if (e instanceof LaunchError) return refuse(reply, e.status, e.code, e.message);
        throw e;
      }
    });

    scope.get('/launch/:id', async (req, reply) => {
      if (!who(req, reply)) return reply;
      const run = o.launcher.get((req.params as { id: string }).id);
      return run ? reply.send({ run: view(run) }) : refuse(reply, 404, 'no-such-run', 'no run with that id since this up started');
    });

    scope.post('/launch/stop', async (req, reply) => {
      const p = who(req, reply);
      if (!p) return reply;
      const id = ((req.body ?? {}) as Record<string, unknown>).id;
      if (typeof id !== 'string' || !id) return refuse(reply, 400, 'bad-request', 'send { "id": "<launch id or session>" }');
      const run = o.launcher.stop(id, { principal: p.name, surface: surfaceOf(p, req) });
      return run ? reply.send({ run: view(run) }) : refuse(reply, 404, 'no-such-run', 'no headless run under way with that launch id or session');
    });
  });
}
