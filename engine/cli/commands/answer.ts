// `hookmap answer <attention-id> --allow|--deny|--option ID|--text T|--values J`:
// send control.attention.respond to the session that asked, and report the
// ack and the outcome (attention.answered, attention.resolved). The id may be
// any unique prefix (id-prefix.ts); without --session the session is found
// in the relay's replay buffer by the id. The request's fate is read first
// (held.ts): one already answered or closed (its session ended included)
// exits 3, one that timed out exits 4, each saying who or what settled it,
// and nothing is sent. A rejection after sending (a race) is explained the
// same way.
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { makeCommand } from '../../runtime/relay/client.ts';
import { answerableViaControl } from '../../core/kernel/option-effects.ts';
import type { AepEvent } from '../../runtime/relay/store.ts';
import { ENDPOINT_FLAGS, endpoint, explainRefusal, runCommand, type Endpoint, type Explanation } from './command-common.ts';
import { fateOf, type Fate } from './held.ts';
import { isAttentionTerminal } from '../../core/kernel/lifecycle.ts';
import { AmbiguousId, resolveRequest, resolveSession } from './id-prefix.ts';

/** Exit codes beyond command-common's 0/1/2. */
export const EXIT_ALREADY_ANSWERED = 3;
export const EXIT_TIMED_OUT = 4;

const SPEC = {
  ...ENDPOINT_FLAGS,
  session: { type: 'string' },
  allow: { type: 'boolean' },
  deny: { type: 'boolean' },
  option: { type: 'string' },
  text: { type: 'string' },
  values: { type: 'string' },
  wait: { type: 'string' },
  json: { type: 'boolean' },
  always: { type: 'boolean' },
  match: { type: 'string' },
  prefix: { type: 'string' },
  scope: { type: 'string' },
  native: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
} as const;

const USAGE =
  'usage: hookmap answer <attention-id> --allow [--always [--match exact|prefix|tool] ' +
  '[--prefix "words"] [--scope session|project|user] [--native] [--dry-run]] | --deny | --option ID | ' +
  '--text "..." | --values \'{...}\' [--session S]';

export async function run(argv: string[]): Promise<number> {
  let flags, attentionId: string, answer: Record<string, unknown>, always: AlwaysFlags | undefined;
  try {
    const p = parseArgs(argv, SPEC);
    flags = p.flags;
    if (p.positionals.length !== 1) throw new ArgError(USAGE);
    attentionId = p.positionals[0];
    answer = buildAnswer(flags);
    always = alwaysOf(flags);
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
  let request: AepEvent | undefined;
  try {
    ({ id: attentionId, request } = await resolveRequest(ep, attentionId));
    if (session) session = await resolveSession(ep, session);
  } catch (e) {
    process.stderr.write(`hookmap answer: ${e instanceof AmbiguousId ? e.message : explainRefusal(ep, (e as Error).message)}\n`);
    return 2;
  }
  session ??= request?.session;
  if (!session) {
    process.stderr.write(`hookmap answer: no attention.requested '${attentionId}' in the relay's buffer; pass --session\n`);
    return 2;
  }
  if (request && !answerableViaControl(request.data)) {
    // AEP-0008: e.g. the watch's "waits at its terminal": the answer is given at the agent itself
    process.stderr.write(`hookmap answer: ${attentionId} is answered at the agent, not through hookmap (its respond_via has no control)\n`);
    return 1;
  }
  const asked = request ?? ({ id: attentionId, session } as AepEvent);
  const settled = await fateOf(ep, asked).catch(() => undefined);
  if (settled) {
    if (flags.json) process.stdout.write(`${JSON.stringify({ sent: false, id: attentionId, session, settled: settled.kind, why: settled.why })}\n`);
    else process.stdout.write(`not sent: ${attentionId} ${settled.why.replace(/^already /, 'was already ')}\n`);
    return exitFor(settled);
  }
  if (always?.dryRun) {
    // what the rule would allow, exactly as it would be saved: nothing saved, nothing sent
    const shown = await previewRule(ep, attentionId, always);
    process.stdout.write(`${shown.line}\n`);
    return shown.ok ? 0 : 1;
  }
  if (always) {
    // the rule first (made by up from the pending request itself), then the answer; a refused rule sends no answer
    const made = await learnRule(ep, attentionId, always);
    if (!made.ok) {
      process.stderr.write(`hookmap answer: no rule made, nothing sent: ${made.detail}\n`);
      return 1;
    }
    if (!flags.json) process.stdout.write(`${made.line}\n`);
  }
  const cmd = makeCommand('control.attention.respond', session, { subject: attentionId, data: { answer } });
  const explain = async (): Promise<Explanation | undefined> => {
    const f = await fateOf(ep, asked);
    return f && { why: f.why, exit: exitFor(f) };
  };
  return runCommand(ep, cmd, {
    outcomeWindowMs: intFlag(flags.wait, 'wait', 10) * 1000,
    json: Boolean(flags.json),
    isFinal: (ev) => isAttentionTerminal(ev.type),
    explainRejection: explain,
    // no-route: the session's connection is gone, and with it (usually) the request
    explainRefusal: (code) => (code === 'no-route' ? explain() : Promise.resolve(undefined)),
  });
}

const exitFor = (f: Fate) => (f.kind === 'timed-out' ? EXIT_TIMED_OUT : EXIT_ALREADY_ANSWERED);

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

interface AlwaysFlags {
  match: string;
  prefix?: string;
  scope: string;
  native: boolean;
  dryRun: boolean;
}

function alwaysOf(flags: Record<string, unknown>): AlwaysFlags | undefined {
  const rest = ['match', 'prefix', 'scope', 'native', 'dry-run'].filter((k) => flags[k] !== undefined);
  if (!flags.always) {
    if (rest.length) throw new ArgError(`--${rest[0]} goes with --always`);
    return undefined;
  }
  if (!flags.allow) throw new ArgError('--always goes with --allow (a rule that allows)');
  const match = (flags.match as string | undefined) ?? (flags.prefix !== undefined ? 'prefix' : 'exact');
  if (!['exact', 'prefix', 'tool'].includes(match)) throw new ArgError('--match is exact, prefix or tool');
  if (flags.prefix !== undefined && match !== 'prefix') throw new ArgError('--prefix goes with --match prefix');
  const scope = (flags.scope as string | undefined) ?? 'project';
  if (!['session', 'project', 'user'].includes(scope)) throw new ArgError('--scope is session, project or user');
  return { match, prefix: flags.prefix as string | undefined, scope, native: Boolean(flags.native), dryRun: Boolean(flags['dry-run']) };
}

async function learnRule(ep: Endpoint, request: string, a: AlwaysFlags): Promise<{ ok: true; line: string } | { ok: false; detail: string }> {
  let res: Response;
  try {
    res = await fetch(`${ep.url.replace(/\/$/, '')}/rules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hookmap-surface': 'cli', ...(ep.token ? { authorization: `Bearer ${ep.token}` } : {}) },
      body: JSON.stringify({
        request,
        match: a.match,
        scope: a.scope,
        ...(a.prefix !== undefined ? { prefix: a.prefix } : {}),
        ...(a.native ? { native: true } : {}),
      }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (e) {
    return { ok: false, detail: `${ep.url}/rules: ${(e as Error).message}` };
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, any>;
  if (!res.ok) return { ok: false, detail: `${body.error ?? res.status}: ${body.detail ?? res.statusText}` };
  const r = body.rule ?? {};
  const how = body.existed ? 'already in force' : 'added';
  return {
    ok: true,
    line:
      `rule ${r.id} ${how}: allow ${r.matches} (${r.scope === 'user' ? 'everywhere' : `this ${r.scope}`})` +
      `${body.native ? `; the agent persists it too (${body.native})` : ''}` +
      `${body.note ? `; ${body.note}` : ''}`,
  };
}

/** The rule `--always` would save for this request, as up proposes it (GET /rules/propose): the exact text, or why none. */
async function previewRule(ep: Endpoint, request: string, a: AlwaysFlags): Promise<{ ok: boolean; line: string }> {
  const url = `${ep.url.replace(/\/$/, '')}/rules/propose?request=${encodeURIComponent(request)}`;
  let p: Record<string, any>;
  try {
    const res = await fetch(url, { headers: ep.token ? { authorization: `Bearer ${ep.token}` } : {}, signal: AbortSignal.timeout(10_000) });
    p = (await res.json().catch(() => ({}))) as Record<string, any>;
    if (!res.ok) return { ok: false, line: `no rule: ${p.error ?? res.status}: ${p.detail ?? res.statusText}` };
  } catch (e) {
    return { ok: false, line: `no rule: ${ep.url}/rules/propose: ${(e as Error).message}` };
  }
  const where = a.scope === 'user' ? 'everywhere' : `this ${a.scope}`;
  const tool = p.tool ? `${p.tool} ` : '';
  let what: string | undefined;
  if (a.match === 'tool') what = p.tool ? `every ${p.tool} request` : undefined;
  else if (p.command !== undefined) {
    if (p.plain === false) return { ok: false, line: `no rule: the command ${p.refused}: a rule matches one plain command only` };
    if (a.match === 'exact') what = `${tool}exactly: ${p.exact}`;
    else {
      const prefix = a.prefix ?? p.prefixes?.[0];
      what = prefix === undefined ? undefined : `${tool}commands starting with: ${prefix}`;
    }
  } else if (a.match === 'exact' && p.paths?.length) what = `${tool}${p.paths.join(', ')}`;
  if (!what) return { ok: false, line: `no rule: the request ${p.tool ? `(${p.tool}) ` : ''}runs no shell command and names no path: --match tool` };
  const floor = p.floor ? `; this very request hits the floor (${p.floor}): it stays with you` : '';
  return { ok: true, line: `would add: allow ${what} (${where})${floor}; nothing saved, nothing sent` };
}
