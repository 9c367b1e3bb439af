// `up`'s budgets (docs/usage.md "Budgets"): the book (engine/runtime/usage/budgets.ts)
// reads the relay's stream from its start (the replay buffer once the logs
// refilled it, then live), the daemons ask it at each hook, warnings and
// reached caps go on hookmap's own session, and GET /budgets lists caps,
// spend and what happens next (read scope) for `hookmap budgets`.
import type { FastifyInstance } from 'fastify';
import type { Authorizer } from '../runtime/auth/authorizer.ts';
import { can } from '../runtime/auth/principal.ts';
import { OPERATOR_AGENT, type OperatorLog } from '../runtime/daemon/operator-log.ts';
import { sourceHost } from '../core/map/envelope.ts';
import type { Relay } from '../runtime/relay/index.ts';
import type { Budget } from '../runtime/usage/budget-schema.ts';
import { BudgetBook } from '../runtime/usage/budgets.ts';
import { PRICE_TABLE, type PriceBook } from '../runtime/usage/prices.ts';

export interface UpParts {
  app: FastifyInstance;
  relay: Pick<Relay, 'subscribe'>;
  auth: Authorizer;
  prices: PriceBook;
}

export interface BudgetSettings {
  budgets?: Budget[];
  hostId?: string;
  /** The clock the windows are read with (tests: a day boundary). */
  budgetClock?: () => number;
}

/** The book (undefined without budgets) and its route; it follows the stream once up listens (after the logs refilled the relay). */
export function startBudgets(p: UpParts, o: BudgetSettings, operator: () => OperatorLog | undefined, say: (line: string) => void): BudgetBook | undefined {
  const own = `aep://${sourceHost(o.hostId)}/`;
  const book = o.budgets?.length
    ? new BudgetBook(o.budgets, {
        prices: p.prices,
        now: o.budgetClock,
        announcer: OPERATOR_AGENT,
        mine: (ev) => typeof ev.source === 'string' && ev.source.startsWith(own),
        announce: (type, data) => {
          const op = operator();
          if (!op) throw new Error('the operator session is not open yet');
          op.publish(type, data);
          say(String(data.text));
        },
        say,
      })
    : undefined;
  let sub: { close(): void } | undefined;
  if (book) {
    p.app.addHook('onReady', async () => {
      sub = p.relay.subscribe({ from: 'all', live: true }, (ev) => book.add(ev as unknown as Record<string, unknown>));
    });
    p.app.addHook('onClose', async () => sub?.close());
  }
  p.app.register(async (scope) => {
    scope.addHook('onRequest', async (req, reply) => {
      const r = p.auth.authenticate(req.raw);
      if (!r.ok) return reply.code(401).send({ error: 'unauthorized', detail: 'present the hookmap token (Authorization: Bearer) or sign in to the inbox' });
      if (!can(r.principal, 'read')) return reply.code(403).send({ error: 'forbidden', detail: `${r.principal.name} cannot read the budgets` });
    });
    scope.get('/budgets', async () => ({ budgets: book?.view() ?? [], prices: PRICE_TABLE }));
  });
  return book;
}
