// `hookmap search TEXT [--agent A] [--project P] [--since D] [--until D]
// [--json]`: the sessions with an event whose logged text has every word of
// TEXT (FTS5 over what the capture ceiling let into the logs), newest first,
// each with its matching events; the filters are the inbox's.
import { ArgError, parseArgs } from '../args.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { resolveConfig } from '../config.ts';
import { search, SearchQueryError } from '../../person/history/search.ts';
import { openHomeHistory, usageError, usd } from './history-common.ts';

const SPEC = {
  agent: { type: 'string' },
  project: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let flags, positionals;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (!positionals.length) throw new ArgError('what to search for: hookmap search TEXT');
  } catch (e) {
    return usageError('search', e);
  }
  const limit = flags.limit === undefined ? 50 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return usageError('search', new ArgError('--limit takes an integer from 1 to 1000'));
  const db = openHomeHistory(config);
  try {
    let hits;
    try {
      const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
      hits = search(db, positionals.join(' '), {
        limit,
        agent: str(flags.agent),
        project: str(flags.project),
        since: str(flags.since),
        until: str(flags.until),
      });
    } catch (e) {
      if (e instanceof SearchQueryError || (e instanceof Error && e.message.startsWith('not a date or time')))
        return usageError('search', new ArgError(e.message));
      throw e;
    }
    if (flags.json) process.stdout.write(`${JSON.stringify(hits)}\n`);
    else {
      for (const h of hits) {
        const s = h.session;
        process.stdout.write(`${s.last.slice(0, 19).replace('T', ' ')}  ${s.agent}  ${s.project ?? '-'}  ${s.session}  (${s.state}, ${usd(s.cost_usd)})\n`);
        for (const e of h.events) process.stdout.write(`    ${e.time.slice(11, 19)}  ${e.type}${e.subject ? ` ${e.subject}` : ''}  ${e.id}\n`);
      }
      if (!hits.length) process.stderr.write('hookmap search: nothing found (only what the capture ceiling let into the logs can be found)\n');
    }
    return hits.length ? 0 : 1;
  } finally {
    db.close();
  }
}
