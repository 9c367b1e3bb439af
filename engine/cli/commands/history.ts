// `hookmap history reindex [--json]`: delete the history database and index
// every JSONL log again (the logs are the durable record); `history status`:
// what it holds; `history import`: the sessions from before hookmap
// (history-import.ts).
import { ArgError, intFlag, parseArgs } from '../args.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { resolveConfig } from '../config.ts';
import { historyFile, reindex } from '../../person/history/history.ts';
import { openHomeHistory, usageError } from './history-common.ts';

const SPEC = { json: { type: 'boolean' }, 'max-seconds': { type: 'string' } } as const;

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let flags, positionals;
  let maxSeconds: number | undefined;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (positionals[0] === 'import') maxSeconds = intFlag(flags['max-seconds'], 'max-seconds', 600);
    else if (positionals.length !== 1 || !['reindex', 'status'].includes(positionals[0]))
      throw new ArgError('hookmap history reindex | status | import [agent...]');
    else if (flags['max-seconds'] !== undefined) throw new ArgError('--max-seconds is for history import');
  } catch (e) {
    return usageError('history', e);
  }
  if (maxSeconds !== undefined) return (await import('./history-import.ts')).runImport(positionals.slice(1), { json: flags.json === true, maxSeconds }, config);
  const started = Date.now();
  const { db, indexed } = positionals[0] === 'reindex' ? reindex(config.home) : { db: openHomeHistory(config), indexed: undefined };
  try {
    const count = (t: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
    const out = {
      file: historyFile(config.home),
      sessions: count('sessions'),
      events: count('events'),
      usage: count('usage'),
      ...(indexed ? { indexed: indexed.events, ms: Date.now() - started } : {}),
    };
    if (flags.json) process.stdout.write(`${JSON.stringify(out)}\n`);
    else
      process.stdout.write(
        `${out.file}: ${out.sessions} sessions, ${out.events} events, ${out.usage} usage records` +
          `${indexed ? ` (reindexed ${indexed.events} events in ${out.ms} ms)` : ''}\n`,
      );
    return 0;
  } finally {
    db.close();
  }
}
