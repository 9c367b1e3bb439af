// `hookmap sessions [--agent A] [--project P] [--since D] [--state S] [--json]`:
// the sessions the history holds (every logged one, not only what the
// relay's buffer still has), newest first, with their tokens and cost; a
// resumed session's line (`<id>`, `<id>~2`, ...) summed beside its own row.
import { ArgError, parseArgs } from '../args.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { resolveConfig } from '../config.ts';
import { sessions } from '../../person/history/query.ts';
import { openHomeHistory, table, usageError, usd } from './history-common.ts';

const SPEC = {
  agent: { type: 'string' },
  project: { type: 'string' },
  since: { type: 'string' },
  state: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let flags;
  try {
    ({ flags } = parseArgs(argv, SPEC));
  } catch (e) {
    return usageError('sessions', e);
  }
  const limit = flags.limit === undefined ? 50 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1) return usageError('sessions', new ArgError('--limit takes a positive integer'));
  const db = openHomeHistory(config);
  try {
    const rows = sessions(db, {
      agent: flags.agent as string | undefined,
      project: flags.project as string | undefined,
      since: flags.since as string | undefined,
      state: flags.state as string | undefined,
      limit,
    });
    if (flags.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
    else {
      const view = rows.map((r) => ({
        ...r,
        last: r.last.slice(0, 19).replace('T', ' '),
        tokens: r.input_tokens + r.output_tokens,
        cost: usd(r.cost_usd),
        // a resumed session's whole story: every part of its line summed (the row's own figures stay its own)
        line: r.line ? `${r.line.parts.length} parts: ${r.line.input_tokens + r.line.output_tokens} tokens ${usd(r.line.cost_usd)}` : undefined,
      }));
      const cols = ['last', 'agent', 'project', 'state', 'runs', 'tools', 'tokens', 'cost', 'session'];
      for (const l of table(view, rows.some((r) => r.line) ? [...cols, 'line'] : cols)) process.stdout.write(`${l}\n`);
    }
    return 0;
  } catch (e) {
    process.stderr.write(`hookmap sessions: ${(e as Error).message}\n`);
    return 2;
  } finally {
    db.close();
  }
}
