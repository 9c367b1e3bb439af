// `hookmap timeline <session> [--dag]`: one session as a readable tree of
// runs, tool calls and attention waits (or, with --dag, of `cause` links),
// from the relay's buffer (replay only, live=0) or from a JSONL file (an
// agent's session log, a `hookmap sink` file).
import { ArgError, parseArgs } from '../args.ts';
import { authHeaders, readSse } from '../../relay/client.ts';
import { readEventFile } from '../../bridge/file-source.ts';
import type { AepEvent } from '../../bridge/projection/common.ts';
import { renderDag, renderTree, sessionNodes, sortSession } from '../../bridge/timeline.ts';
import { ENDPOINT_FLAGS, endpoint } from './command-common.ts';

const SPEC = { ...ENDPOINT_FLAGS, file: { type: 'string' }, dag: { type: 'boolean' }, json: { type: 'boolean' } } as const;

export async function run(argv: string[]): Promise<number> {
  let flags, positionals;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (positionals.length !== 1) throw new ArgError('one session: hookmap timeline <session>');
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap timeline: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const session = positionals[0];
  let events: AepEvent[] = [];
  let problems = 0;
  const file = flags.file as string | undefined;
  try {
    if (file) {
      for await (const ev of readEventFile(file, (p) => (problems++, process.stderr.write(`${file}:${p.line}: ${p.code}: ${p.detail}\n`)))) {
        if (ev.session === session) events.push(ev);
      }
    } else {
      const ep = endpoint(flags);
      const u = new URL(`${ep.url.replace(/\/+$/, '')}/events`);
      u.searchParams.set('filter', JSON.stringify({ session }));
      u.searchParams.set('from', 'all');
      u.searchParams.set('live', '0');
      const seen = new Set<string>();
      await readSse(u.toString(), authHeaders(ep.token), (m) => {
        if (!m.data) return;
        try {
          const ev = JSON.parse(m.data) as AepEvent;
          const k = `${ev.source}\u0000${ev.id}`;
          if (!seen.has(k)) {
            seen.add(k);
            events.push(ev);
          }
        } catch {}
      }, AbortSignal.timeout(30_000));
    }
  } catch (e) {
    process.stderr.write(`hookmap timeline: ${(e as Error).message}\n`);
    return 2;
  }
  if (!events.length) {
    process.stderr.write(`hookmap timeline: no events for session ${session}${file ? ` in ${file}` : ' in the relay\'s buffer (try --file with its log)'}\n`);
    return 1;
  }
  events = sortSession(events);
  const out = (l: string) => process.stdout.write(`${l}\n`);
  if (flags.json) out(JSON.stringify(flags.dag ? events : sessionNodes(events)));
  else for (const l of flags.dag ? renderDag(events) : renderTree(events)) out(l);
  return problems ? 1 : 0;
}
