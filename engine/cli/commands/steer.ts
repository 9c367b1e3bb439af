// `hookmap steer <session> "text" [--agent A]`: send x.<agent>.control.instruct
// (steering, the design record control-steering-design.md) through the
// relay and report the ack and the outcome: `x.<agent>.instruction.delivered`
// once the agent's next eligible hook reply carried the text (while a turn
// runs) or its next-turn carrier woke the idle session with it (the daemon
// picks the carrier the session has now; `carrier` says which), or
// `.dropped` (why). Without --agent the session's owner is found in the relay's
// roster (AEP-0003 §4.1): the claimant that declares an `x.*.control.instruct`.
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { makeCommand, openSocket } from '../../runtime/relay/client.ts';
import { ENDPOINT_FLAGS, endedSession, endpoint, runCommand, type Endpoint } from './command-common.ts';
import { resolveSessionOrAsGiven, type AmbiguousId } from './id-prefix.ts';

const SPEC = { ...ENDPOINT_FLAGS, agent: { type: 'string' }, wait: { type: 'string' }, json: { type: 'boolean' } } as const;
const USAGE = 'usage: hookmap steer <session> "instruction text" [--agent A] [--wait SECONDS]';
const INSTRUCT = /^x\.([a-z0-9-]+)\.control\.instruct$/;

export async function run(argv: string[]): Promise<number> {
  let flags, session: string, text: string;
  try {
    const p = parseArgs(argv, SPEC);
    flags = p.flags;
    if (p.positionals.length !== 2) throw new ArgError(USAGE);
    [session, text] = p.positionals;
    if (text.trim() === '') throw new ArgError('the instruction text is empty');
    if (flags.agent !== undefined && !/^[a-z0-9-]+$/.test(flags.agent as string)) throw new ArgError(`--agent: '${flags.agent}' is not an agent id`);
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap steer: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const ep = endpoint(flags);
  try {
    session = await resolveSessionOrAsGiven(ep, session); // any unique prefix
  } catch (e) {
    process.stderr.write(`hookmap steer: ${(e as AmbiguousId).message}\n`);
    return (e as AmbiguousId).exit;
  }
  let agent = flags.agent as string | undefined;
  if (!agent) {
    try {
      agent = await ownerOf(ep, session);
    } catch (e) {
      const ended = await endedSession(ep, session, 'no-route').catch(() => undefined);
      process.stderr.write(`hookmap steer: ${ended ?? (e as Error).message}\n`);
      return ended ? 1 : 2;
    }
  }
  const cmd = makeCommand(`x.${agent}.control.instruct`, session, { data: { text } });
  return runCommand(ep, cmd, {
    name: 'hookmap steer',
    outcomeWindowMs: intFlag(flags.wait, 'wait', 30) * 1000,
    json: Boolean(flags.json),
    isFinal: (ev) => ev.type === `x.${agent}.instruction.delivered` || ev.type === `x.${agent}.instruction.dropped`,
    pending: "queued: it rides the agent's next eligible hook reply, or wakes the idle session where the agent has a next-turn carrier on",
    explainRefusal: (code) => endedSession(ep, session, code),
  });
}

/** The agent that owns `session` per the relay's roster: the one declaring a steering verb, else the only claimant. */
async function ownerOf(ep: Endpoint, session: string): Promise<string> {
  const s = await openSocket(ep.url, ep.token);
  try {
    const entries = await new Promise<any[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no roster from the relay in time')), 5_000);
      const off = s.on((m) => {
        if (m.id !== 'steer-roster') return;
        clearTimeout(timer);
        off();
        if (m.type === 'roster') resolve(Array.isArray(m.entries) ? m.entries : []);
        else reject(new Error(`the relay refused the roster: ${m.code ?? m.type} ${m.detail ?? ''}`));
      });
      s.send({ type: 'roster', id: 'steer-roster' });
    });
    const claims = entries.filter((e) => e.session === session);
    if (!claims.length) throw new Error(`no connected agent claims session ${session} (is it running, and is hookmap up?); pass --agent to send anyway`);
    for (const c of claims) {
      for (const t of c.control?.accepts ?? []) {
        const m = INSTRUCT.exec(String(t));
        if (m) return m[1];
      }
    }
    const agents = [...new Set(claims.map((c) => c.agent).filter((a) => typeof a === 'string'))];
    if (agents.length === 1) return agents[0]; // its daemon (or the relay) refuses it, coded
    throw new Error(`session ${session} is claimed by ${agents.join(', ') || 'an unnamed emitter'} and none declares steering; pass --agent`);
  } finally {
    s.close();
  }
}
