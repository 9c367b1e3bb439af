// `hookmap answer <attention-id> --allow|--deny|--option ID|--text T|--values J`:
// send control.attention.respond to the session that asked, and report the
// ack and the outcome (attention.answered, attention.resolved). Without
// --session the session is found in the relay's replay buffer by the id.
// A rejection is explained from the stream: the request's own terminal
// (attention.resolved / attention.timeout) says whether it was already
// answered (exit 3) or timed out (exit 4).
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { authHeaders, makeCommand, readSse } from '../../relay/client.ts';
import { ENDPOINT_FLAGS, endpoint, explainRefusal, runCommand, type Endpoint, type Explanation } from './command-common.ts';

/** Exit codes beyond command-common's 0/1/2. */
export const EXIT_ALREADY_ANSWERED = 3;
export const EXIT_TIMED_OUT = 4;

const SPEC = {
  ...ENDPOINT_FLAGS,
  session: { type: 'string' }, allow: { type: 'boolean' }, deny: { type: 'boolean' }, option: { type: 'string' },
  text: { type: 'string' }, values: { type: 'string' }, wait: { type: 'string' }, json: { type: 'boolean' },
} as const;

const USAGE = 'usage: hookmap answer <attention-id> --allow | --deny | --option ID | --text "..." | --values \'{...}\' [--session S]';

export async function run(argv: string[]): Promise<number> {
  let flags, attentionId: string, answer: Record<string, unknown>;
  try {
    const p = parseArgs(argv, SPEC);
    flags = p.flags;
    if (p.positionals.length !== 1) throw new ArgError(USAGE);
    attentionId = p.positionals[0];
    answer = buildAnswer(flags);
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap answer: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  let ep: Endpoint;
  try {
    ep = endpoint(flags, 'hookmap answer');
  } catch (e) {
    process.stderr.write(`hookmap answer: ${(e as Error).message}\n`);
    return 2;
  }
  let session = flags.session as string | undefined;
  if (!session) {
    try {
      session = await findSession(ep, attentionId);
    } catch (e) {
      process.stderr.write(`hookmap answer: ${explainRefusal(ep, (e as Error).message)}\n`);
      return 2;
    }
    if (!session) {
      process.stderr.write(`hookmap answer: no attention.requested '${attentionId}' in the relay's buffer; pass --session\n`);
      return 2;
    }
  }
  const cmd = makeCommand('control.attention.respond', session, { subject: attentionId, data: { answer } });
  return runCommand(ep, cmd, {
    outcomeWindowMs: intFlag(flags.wait, 'wait', 10) * 1000,
    json: Boolean(flags.json),
    isFinal: (ev) => ev.type === 'attention.resolved' || ev.type === 'attention.timeout',
    explainRejection: () => explain(ep, session!, attentionId),
  });
}

/** The request's terminal, from the relay's buffer of its session: why an answer came too late. */
async function explain(ep: Endpoint, session: string, attentionId: string): Promise<Explanation | undefined> {
  const u = new URL(`${ep.url.replace(/\/+$/, '')}/events`);
  u.searchParams.set('from', JSON.stringify([{ session, epoch: 0, seq: 0 }]));
  u.searchParams.set('live', '0');
  u.searchParams.set('filter', JSON.stringify({ session, subject: attentionId, type: ['attention.resolved', 'attention.timeout'] }));
  let terminal: { type?: string; data?: Record<string, unknown> } | undefined;
  await readSse(u.toString(), authHeaders(ep.token), (m) => {
    if (!m.data) return;
    try {
      terminal = JSON.parse(m.data);
    } catch {
      return;
    }
    return false;
  });
  if (!terminal) return undefined;
  if (terminal.type === 'attention.timeout') return { why: 'timed out (the agent\'s own dialog took over)', exit: EXIT_TIMED_OUT };
  const resolution = terminal.data?.resolution;
  if (resolution === 'dismissed') return { why: 'already closed (dismissed)', exit: EXIT_ALREADY_ANSWERED };
  return { why: 'already answered', exit: EXIT_ALREADY_ANSWERED };
}

function buildAnswer(flags: Record<string, unknown>): Record<string, unknown> {
  const options = [flags.allow && 'allow', flags.deny && 'deny', flags.option as string | undefined].filter(Boolean);
  if (options.length > 1) throw new ArgError('choose one of --allow, --deny, --option');
  const answer: Record<string, unknown> = {};
  if (options.length) answer.option = options[0];
  if (flags.text !== undefined) answer.text = flags.text;
  if (flags.values !== undefined) {
    let v: unknown;
    try {
      v = JSON.parse(flags.values as string);
    } catch {
      throw new ArgError('--values must be a JSON object');
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ArgError('--values must be a JSON object');
    answer.values = v;
  }
  if (Object.keys(answer).length === 0) throw new ArgError(USAGE);
  return answer;
}

/** Replay everything the relay holds (live=0), filtered to the one attention.requested event. */
async function findSession(ep: Endpoint, attentionId: string): Promise<string | undefined> {
  const u = new URL(`${ep.url.replace(/\/+$/, '')}/events`);
  u.searchParams.set('from', 'all');
  u.searchParams.set('live', '0');
  u.searchParams.set('filter', JSON.stringify({ type: 'attention.requested', id: attentionId }));
  let session: string | undefined;
  await readSse(u.toString(), authHeaders(ep.token), (m) => {
    if (!m.data) return;
    try {
      session = JSON.parse(m.data).session;
    } catch {
      return;
    }
    return false;
  });
  return session;
}
