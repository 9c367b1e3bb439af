// `hookmap search TEXT [--json]`: the sessions with an event whose logged
// text has every word of TEXT (FTS5 over what the capture ceiling let into
// the logs), newest first, each with its matching events.
import { ArgError, parseArgs } from '../args.ts';
import type { RuntimeConfig } from '../../config/schema.ts';
import { resolveConfig } from '../config.ts';
import { search, SearchQueryError } from '../../history/search.ts';
import { openHomeHistory, usageError, usd } from './history-common.ts';

const SPEC = { limit: { type: 'string' }, json: { type: 'boolean' } } as const;

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let flags, positionals;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (!positionals.length) throw new ArgError('what to search for: hookmap search TEXT');
  } catch (e) {
    return usageError('search', e);
  }
  const db = openHomeHistory(config);
  try {
    let hits;
    try {
      hits = search(db, positionals.join(' '), { limit: flags.limit === undefined ? 50 : Number(flags.limit) });
    } catch (e) {
      if (e instanceof SearchQueryError) return usageError('search', new ArgError(e.message));
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
