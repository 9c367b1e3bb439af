// The rules API on `hookmap up`'s port (docs/rules.md), for every answer
// surface (the inbox's "Allow always", `hookmap answer --always`, `hookmap
// rules`, the phone and chat surfaces):
//
//   GET  /rules                    the rules in force, with use counts   (read)
//   GET  /rules/propose?request=ID what an "Allow always" of a pending request could be  (control)
//   POST /rules   { request, match: exact|prefix|tool, prefix?, scope: session|project|user, native? }  (control)
//   POST /rules/revoke { id }                                              (control)
//
// Authenticated like the relay (a bearer token, or the inbox's cookie from
// this origin), attributed to that principal and audited. A rule is built
// from the pending request itself (the command the agent really asked to
// run), never from text the caller sends: a caller chooses only how much of
// it the rule covers. The pending request is read off the stream and both
// the proposal and the rule are asked of the daemon holding it, as control
// commands through the relay (engine/person/push/door.ts, engine/runtime/daemon/door.ts),
// wherever on the fleet it runs; that daemon saves the rule in its own
// book. The proposal's command is redacted there like the card's.
import { throttledSay } from '../core/io/throttle.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authorizer } from '../runtime/auth/authorizer.ts';
import { can, type Principal, type Scope } from '../runtime/auth/principal.ts';
import { RuleError, type RuleBook } from '../runtime/policy/rulebook.ts';
import { ALWAYS_COMMAND, type Door, type Sender } from '../person/push/door.ts';
import { jsonOnly } from '../person/inbox/json-scope.ts';

const MAX_BODY = 4096;
const MATCHES = ['exact', 'prefix', 'tool'];
const SCOPES = ['session', 'project', 'user'];
const STATUS: Record<RuleError['code'], number> = {
  'not-plain': 422,
  'prefix-mismatch': 422,
  floor: 422,
  'nothing-to-match': 422,
  'no-project': 422,
  'no-such-rule': 404,
  'not-revocable': 409,
  'learned-broken': 409,
};

export interface RulesRoutesOptions {
  book: RuleBook;
  door: Door;
  auth: Authorizer;
  say?: (line: string) => void;
}

const refuse = (reply: FastifyReply, status: number, error: string, detail: string) => reply.code(status).send({ error, detail });

/** The surface a request came from: the inbox (its cookie) or a client with a token (the CLI, a bridge). */
const surfaceOf = (p: Principal, req: FastifyRequest): string => {
  const said = req.headers['x-hookmap-surface'];
  if (p.source === 'inbox-session') return 'inbox';
  return typeof said === 'string' && /^[a-z][a-z0-9-]{0,31}$/.test(said) ? said : 'api';
};

export function registerRulesRoutes(app: FastifyInstance, o: RulesRoutesOptions): void {
  app.register(async (scope) => {
    // a malformed body anyone can send: said once a minute at most (engine/core/io/throttle.ts)
    const sayMalformed = throttledSay(o.say);
    jsonOnly(scope, MAX_BODY, (e) => sayMalformed(`rules API: ${e.message}`));

    const who = (req: FastifyRequest, reply: FastifyReply, scopeNeeded: Scope): Principal | undefined => {
      const r = o.auth.authenticate(req.raw);
      if (!r.ok) {
        refuse(reply, 401, 'unauthorized', 'present the hookmap token (Authorization: Bearer) or sign in to the inbox');
        return undefined;
      }
      if (!can(r.principal, scopeNeeded)) {
        refuse(
          reply,
          403,
          'forbidden',
          `${r.principal.name} has no ${scopeNeeded} scope: ` +
            (scopeNeeded === 'control' ? 'a read-only token cannot add or revoke rules' : 'it cannot read the rules'),
        );
        return undefined;
      }
      return r.principal;
    };
    const sender = (p: Principal, req: FastifyRequest): Sender => ({ name: p.name, scopes: p.scopes, via: surfaceOf(p, req), key: p.credential ?? p.name });
    const pendingAsk = async (id: unknown, s: Sender) => {
      const a = await o.door.ask(s, id);
      return a?.rulable ? a : undefined;
    };

    scope.get('/rules', async (req, reply) => {
      if (!who(req, reply, 'read')) return reply;
      const st = o.book.learned?.current() ?? { errors: [] };
      return reply.send({
        rules: o.book.list(),
        learned_file: o.book.learned?.file ?? null,
        errors: st.errors.map((e) => ({ code: e.code, line: e.line, col: e.col, path: e.path, message: e.message })),
      });
    });

    scope.get('/rules/propose', async (req, reply) => {
      const p = who(req, reply, 'control');
      if (!p) return reply;
      const a = await pendingAsk((req.query as Record<string, unknown>).request, sender(p, req));
      if (!a) return refuse(reply, 404, 'no-such-request', 'no pending request with that id can become a rule (it was answered, or it is a form)');
      return reply.send({
        agent: a.agent,
        tool: a.tool,
        command: a.command,
        plain: a.plain,
        refused: a.refused,
        // the very text an exact rule will hold (its words, quoted to read back the same)
        exact: a.exact,
        prefixes: a.prefixes ?? [],
        paths: a.paths ?? [],
        project: a.project,
        session: a.session,
        native: a.native,
        floor: a.floor,
      });
    });

    scope.post('/rules', async (req, reply) => {
      const p = who(req, reply, 'control');
      if (!p) return reply;
      const b = (req.body ?? {}) as Record<string, unknown>;
      if (!MATCHES.includes(b.match as string)) return refuse(reply, 400, 'bad-request', `match is one of ${MATCHES.join(', ')}`);
      if (!SCOPES.includes(b.scope as string)) return refuse(reply, 400, 'bad-request', `scope is one of ${SCOPES.join(', ')}`);
      if (b.prefix !== undefined && (typeof b.prefix !== 'string' || b.prefix.length > 500))
        return refuse(reply, 400, 'bad-request', 'prefix is the words a command must start with');
      if (b.native !== undefined && typeof b.native !== 'boolean') return refuse(reply, 400, 'bad-request', 'native is true or false');
      const s = sender(p, req);
      const a = await pendingAsk(b.request, s);
      const held = o.door.pending(b.request);
      if (!a || !held)
        return refuse(
          reply,
          404,
          'no-such-request',
          'no pending request with that id (it was answered, timed out, or is a form): a rule is made from a request still waiting',
        );
      if (b.native === true && !a.native)
        return refuse(reply, 422, 'no-native', `${a.agent} cannot persist an allow itself: hookmap's rule is the one that persists`);
      // the daemon holding the request saves the rule in its own book (engine/runtime/daemon/door.ts), as this principal
      const r = await o.door.send(s, ALWAYS_COMMAND, held, { match: b.match, prefix: b.prefix, scope: b.scope, native: b.native === true, via: s.via });
      if (!r.ok) {
        const detail = r.detail.replace(/^[a-z][a-z-]*: /, '');
        return refuse(reply, STATUS[r.error as RuleError['code']] ?? (r.error === 'no-native' ? 422 : r.status), r.error, detail);
      }
      const res = ((r.ack.data ?? {}) as { result?: Record<string, any> }).result ?? {};
      const rule = o.book.list().find((x) => x.id === res.rule) ?? res.view ?? { id: res.rule };
      return reply.send({ rule, existed: res.existed, note: res.note, native: res.native ?? null });
    });

    scope.post('/rules/revoke', async (req, reply) => {
      const p = who(req, reply, 'control');
      if (!p) return reply;
      const id = ((req.body ?? {}) as Record<string, unknown>).id;
      if (typeof id !== 'string' || !id) return refuse(reply, 400, 'bad-request', 'send { "id": "<rule id>" }');
      try {
        o.book.revoke(id, { by: p.name, via: surfaceOf(p, req) });
        return reply.send({ revoked: id });
      } catch (e) {
        if (e instanceof RuleError) return refuse(reply, STATUS[e.code], e.code, e.message);
        throw e;
      }
    });
  });
}
