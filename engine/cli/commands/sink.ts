// `hookmap sink <dir>`: durable capture of the relay's stream (AEP-0003 §5's
// history store): rotated JSONL per day and session, fsynced before the
// resume positions are saved, resumed after a restart or a crash without
// duplicates or gaps, disk bounded by a retention in days and a size budget.
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { CAPTURE_ORDER, type CaptureLevel } from '../../core/aep/schemas.ts';
import { runSink } from '../../person/bridge/sink-store.ts';
import { ENDPOINT_FLAGS, endpoint } from './command-common.ts';
import { resolveSessionOrAsGiven } from './id-prefix.ts';
import { buildFilter } from './tail.ts';

const SPEC = {
  ...ENDPOINT_FLAGS,
  filter: { type: 'string', multiple: true },
  session: { type: 'string' },
  capture: { type: 'string' },
  'retain-days': { type: 'string' },
  'max-mb': { type: 'string' },
  'flush-ms': { type: 'string' },
  'no-fsync': { type: 'boolean' },
} as const;

export async function run(argv: string[]): Promise<number> {
  let flags, positionals, filter, capture: CaptureLevel;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (positionals.length !== 1) throw new ArgError('one directory: hookmap sink <dir>');
    filter = buildFilter((flags.filter as string[] | undefined) ?? [], flags.session as string | undefined);
    capture = (flags.capture as CaptureLevel | undefined) ?? 'metadata';
    if (!CAPTURE_ORDER.includes(capture)) throw new ArgError(`--capture must be one of ${CAPTURE_ORDER.join(', ')}`);
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap sink: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const ep = endpoint(flags);
  try {
    if (typeof flags.session === 'string') filter.session = await resolveSessionOrAsGiven(ep, flags.session); // any unique prefix
  } catch (e) {
    process.stderr.write(`hookmap sink: ${(e as Error).message}\n`);
    return 2;
  }
  const say = (l: string) => process.stderr.write(`hookmap sink: ${l}\n`);
  const sink = await runSink({
    dir: positionals[0],
    url: ep.url,
    token: ep.token,
    filter,
    capture,
    retainDays: intFlag(flags['retain-days'], 'retain-days', 30),
    maxBytes: intFlag(flags['max-mb'], 'max-mb', 2048) * 1024 * 1024,
    flushMs: intFlag(flags['flush-ms'], 'flush-ms', 250),
    fsync: !flags['no-fsync'],
    say,
  });
  say(
    `capturing ${ep.url} into ${positionals[0]} (capture ceiling ${capture}; ${sink.store.positions.size} ` +
      `session position(s) resumed${sink.store.stats.recovered ? `, ${sink.store.stats.recovered} event(s) recovered from the files` : ''})`,
  );
  const stop = () => void sink.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await sink.done;
    say(`stopped: ${sink.store.stats.written} event(s) written`);
    return 0;
  } catch (e) {
    say((e as Error).message);
    return 2;
  }
}
