// `hookmap usage [--since D] [--by agent|project|day|model|session] [--agent A] [--json]`:
// tokens and cost from the history, grouped (by session: a resumed session and
// its `~N` parts are one row, the parts named); --json also has each session
// (agent, session, project, models, token counts, cost_usd: null when unknown).
import { ArgError, parseArgs } from '../args.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { resolveConfig } from '../config.ts';
import { usage, USAGE_BY, usageSessions, type UsageBy } from '../../person/history/query.ts';
import { PRICE_TABLE } from '../../runtime/usage/prices.ts';
import { openHomeHistory, table, usageError, usd } from './history-common.ts';

const SPEC = { since: { type: 'string' }, by: { type: 'string' }, agent: { type: 'string' }, json: { type: 'boolean' } } as const;

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let flags;
  try {
    ({ flags } = parseArgs(argv, SPEC));
    if (flags.by !== undefined && !USAGE_BY.includes(flags.by as UsageBy)) throw new ArgError(`--by takes one of ${USAGE_BY.join(', ')}`);
  } catch (e) {
    return usageError('usage', e);
  }
  const by = (flags.by as UsageBy | undefined) ?? 'agent';
  const o = { since: flags.since as string | undefined, agent: flags.agent as string | undefined };
  const db = openHomeHistory(config);
  try {
    const groups = usage(db, { ...o, by });
    if (flags.json) {
      const prices = { table: PRICE_TABLE.name, version: PRICE_TABLE.version, published: PRICE_TABLE.published };
      process.stdout.write(`${JSON.stringify({ by, groups, sessions: usageSessions(db, o), prices })}\n`);
    } else {
      const view = groups.map((g) => ({
        ...g,
        [by]: g.key,
        input: g.input_tokens,
        output: g.output_tokens,
        cache_read: g.cache_read_tokens,
        cache_write: g.cache_write_tokens,
        cost: usd(g.cost_usd),
        parts: g.parts?.join(' '),
        subagents: g.subagents?.map((x) => `${x.part}: ${x.input_tokens} in, ${x.output_tokens} out`).join('; '),
      }));
      // by session, a resumed session's parts are one row (its line), each part named; its sub-agents' share apart
      const cols = [
        by,
        'sessions',
        'input',
        'output',
        'cache_read',
        'cache_write',
        'cost',
        ...(by === 'session' ? ['parts'] : []),
        ...(groups.some((g) => g.subagents) ? ['subagents'] : []),
      ];
      for (const l of table(view, cols)) process.stdout.write(`${l}\n`);
      process.stdout.write(
        `prices: ${PRICE_TABLE.name} ${PRICE_TABLE.version} (${PRICE_TABLE.published}) or your prices file; - = a model no price is known for\n`,
      );
    }
    return 0;
  } catch (e) {
    process.stderr.write(`hookmap usage: ${(e as Error).message}\n`);
    return 2;
  } finally {
    db.close();
  }
}
