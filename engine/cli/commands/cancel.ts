// `hookmap cancel <session> [--run R]`: send control.cancel through the
// relay and report the ack and the outcome (the run's cancelled end, or the
// session's end: read from the kernel's lifecycle).
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { runCommand, ENDPOINT_FLAGS, endedSession, endpoint } from './command-common.ts';
import { makeCommand } from '../../runtime/relay/client.ts';
import { resolveSessionOrAsGiven } from './id-prefix.ts';
import { isSessionTerminal, runEnd } from '../../core/kernel/lifecycle.ts';
import { stopLaunched } from './launch-stop.ts';

const SPEC = { ...ENDPOINT_FLAGS, run: { type: 'string' }, reason: { type: 'string' }, wait: { type: 'string' }, json: { type: 'boolean' } } as const;

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(argv, SPEC);
    if (parsed.positionals.length !== 1) throw new ArgError('usage: hookmap cancel <session> [--run R] [--reason TEXT]');
  } catch (e) {
    if (e instanceof ArgError) return usageError('cancel', e.message);
    throw e;
  }
  const { flags, positionals } = parsed;
  const run = flags.run as string | undefined;
  const data: Record<string, unknown> = { scope: run ? 'run' : 'session' };
  if (flags.reason) data.reason = flags.reason;
  let ep;
  try {
    ep = endpoint(flags, 'hookmap cancel');
  } catch (e) {
    return usageError('cancel', (e as Error).message);
  }
  let session = positionals[0];
  try {
    session = await resolveSessionOrAsGiven(ep, session); // any unique prefix
  } catch (e) {
    return usageError('cancel', (e as Error).message); // ambiguous: the matches listed
  }
  const launched = run ? undefined : await stopLaunched(ep, session, (l) => process.stdout.write(`${l}\n`)); // a headless `hookmap run`
  if (launched !== undefined) return launched;
  const cmd = makeCommand('control.cancel', session, { run, data });
  const target = ep;
  return runCommand(ep, cmd, {
    name: 'hookmap cancel',
    explainRefusal: (code) => endedSession(target, session, code),
    outcomeWindowMs: intFlag(flags.wait, 'wait', 10) * 1000,
    json: Boolean(flags.json),
    // the fold's reading of a run's and a session's end (engine/core/kernel/lifecycle.ts)
    isFinal: (ev) => runEnd(ev.type) === 'cancelled' || isSessionTerminal(ev.type),
  });
}

function usageError(cmd: string, msg: string): number {
  process.stderr.write(`hookmap ${cmd}: ${msg}\n`);
  return 2;
}
