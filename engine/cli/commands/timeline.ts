// `hookmap timeline <session> [--dag]`: one session as a readable tree of
// runs, tool calls and attention waits (or, with --dag, of `cause` links),
// from the relay's buffer (replay only, live=0) or from a JSONL file (an
// agent's session log, a `hookmap sink` file). The session may be any
// unique prefix of its id (id-prefix.ts); --verbose keeps the rows the tree
// folds (vendor x.* events, answer rows).
import { ArgError, parseArgs } from '../args.ts';
import { readEventFile } from '../../person/bridge/file-source.ts';
import type { AepEvent } from '../../person/bridge/projection/common.ts';
import { renderDag, renderTree, sessionNodes, sortSession } from '../../person/bridge/timeline.ts';
import { ENDPOINT_FLAGS, endpoint } from './command-common.ts';
import { replayHeld, sessionsOf } from './held.ts';
import { AmbiguousId, pickSession, resolveSession } from './id-prefix.ts';

const SPEC = { ...ENDPOINT_FLAGS, file: { type: 'string' }, dag: { type: 'boolean' }, json: { type: 'boolean' }, verbose: { type: 'boolean' } } as const;

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
  let session = positionals[0];
  let events: AepEvent[] = [];
  let problems = 0;
  const file = flags.file as string | undefined;
  try {
    if (file) {
      const all: AepEvent[] = [];
      for await (const ev of readEventFile(file, (p) => (problems++, process.stderr.write(`${file}:${p.line}: ${p.code}: ${p.detail}\n`)))) all.push(ev);
      session = pickSession(session, sessionsOf(all));
      events = all.filter((ev) => ev.session === session);
    } else {
      const ep = endpoint(flags);
      session = await resolveSession(ep, session);
      await replayHeld(ep, { session }, (ev) => void events.push(ev));
    }
  } catch (e) {
    process.stderr.write(`hookmap timeline: ${(e as Error).message}\n`);
    return e instanceof AmbiguousId ? e.exit : 2;
  }
  if (!events.length) {
    process.stderr.write(`hookmap timeline: no events for session ${session}${file ? ` in ${file}` : " in the relay's buffer (try --file with its log)"}\n`);
    return 1;
  }
  events = sortSession(events);
  const out = (l: string) => process.stdout.write(`${l}\n`);
  if (flags.json) out(JSON.stringify(flags.dag ? events : sessionNodes(events)));
  else for (const l of flags.dag ? renderDag(events) : renderTree(events, { verbose: Boolean(flags.verbose) })) out(l);
  return problems ? 1 : 0;
}
