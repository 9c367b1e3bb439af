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
// here from the pending request itself (the command the agent really asked
// to run), never from text the caller sends: a caller chooses only how much
// of it the rule covers. The proposal's command is redacted like the card's.
import { throttledSay } from '../io/throttle.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authorizer } from '../auth/authorizer.ts';
import { can, type Principal, type Scope } from '../auth/principal.ts';
import type { Daemon } from '../daemon/daemon.ts';
import { proposePrefixes, quoteArgv, RuleError, type AlwaysSpec, type RuleBook } from '../policy/rulebook.ts';
import { readPlainCommand } from '../policy/shell/match.ts';
import { jsonOnly } from '../inbox/json-scope.ts';

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
  daemons: ReadonlyMap<string, Daemon>;
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
    // a malformed body anyone can send: said once a minute at most (engine/io/throttle.ts)
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
    const pendingAsk = async (id: unknown) => {
      if (typeof id !== 'string' || !id) return undefined;
      for (const d of o.daemons.values()) {
        const a = await d.askOf(id);
        if (a) return { daemon: d, ...a };
      }
      return undefined;
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
      if (!who(req, reply, 'control')) return reply;
      const a = await pendingAsk((req.query as Record<string, unknown>).request);
      if (!a) return refuse(reply, 404, 'no-such-request', 'no pending request with that id can become a rule (it was answered, or it is a form)');
      const s = a.subject;
      const plain = s.command === undefined ? undefined : readPlainCommand(s.command);
      const red = (t: string) => a.daemon.redactor.text(t);
      const floor = o.book.floor(s);
      return reply.send({
        agent: s.agent,
        tool: s.tool,
        command: s.command === undefined ? undefined : red(s.command),
        plain: plain ? !('refused' in plain) : undefined,
        refused: plain && 'refused' in plain ? plain.refused : undefined,
        // the very text an exact rule will hold (its words, quoted to read back the same)
        exact: plain && !('refused' in plain) ? red(quoteArgv(plain.words)) : undefined,
        prefixes: s.command === undefined ? [] : proposePrefixes(s.command).map(red),
        paths: s.paths.map(red),
        project: s.project,
        session: s.session,
        native: a.native,
        floor: floor ? floor.row : undefined,
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
      const a = await pendingAsk(b.request);
      if (!a)
        return refuse(
          reply,
          404,
          'no-such-request',
          'no pending request with that id (it was answered, timed out, or is a form): a rule is made from a request still waiting',
        );
      const spec: AlwaysSpec = { match: b.match as AlwaysSpec['match'], prefix: b.prefix as string | undefined, scope: b.scope as AlwaysSpec['scope'] };
      const native = b.native === true ? a.native : undefined;
      if (b.native === true && !native)
        return refuse(reply, 422, 'no-native', `${a.subject.agent} cannot persist an allow itself: hookmap's rule is the one that persists`);
      try {
        const r = o.book.learn(a.subject, spec, { by: p.name, via: surfaceOf(p, req), request: a.hold.id, native });
        if (native) {
          const c = r.rule.command;
          a.daemon.markAlways(a.hold.id, {
            match: spec.match,
            scope: spec.scope,
            tool: a.subject.tool,
            command: c?.kind === 'exact' ? c.text : a.subject.command,
            prefix: c?.kind === 'prefix' ? c.text : undefined,
          });
        }
        return reply.send({ rule: o.book.list().find((x) => x.id === r.rule.id), existed: r.existed, note: r.note, native: native ?? null });
      } catch (e) {
        if (e instanceof RuleError) return refuse(reply, STATUS[e.code], e.code, e.message);
        throw e;
      }
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
