// `hookmap attach <session>`: takes over, at the desk, a session `hookmap run
// --tmux` started. The session (any unique prefix, a `~N` lineage included,
// or the launch id) is looked up among the running `up`'s runs (GET /launch,
// the owner token: the control scope), which name its tmux session and the
// tmux server's socket (launch.tmux_socket); then the tmux on PATH attaches
// to it (`tmux [-L socket] attach -t <name>`) in this terminal, and its exit
// is this command's. Nothing the server sends is run: only a session name and
// a socket name, each checked, go into tmux's argv.
import { spawnSync } from 'node:child_process';
import { ArgError, parseArgs } from '../args.ts';
import { authHeaders } from '../../runtime/relay/client-sse.ts';
import { lineOf } from '../../core/kernel/fold/story.ts';
import { ENDPOINT_FLAGS, endpoint, explainRefusal, type Endpoint } from './command-common.ts';
import { resolveSessionOrAsGiven, type AmbiguousId } from './id-prefix.ts';

const SPEC = { ...ENDPOINT_FLAGS, print: { type: 'boolean' } } as const;
const USAGE = 'usage: hookmap attach <session> [--print]';
const NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

interface Run {
  id: string;
  agent: string;
  mode: string;
  state: string;
  session?: string;
  tmux?: { name: string; socket?: string };
}

export async function run(argv: string[]): Promise<number> {
  let flags, asked: string;
  try {
    const p = parseArgs(argv, SPEC);
    flags = p.flags;
    if (p.positionals.length !== 1) throw new ArgError(USAGE);
    asked = p.positionals[0];
  } catch (e) {
    if (e instanceof ArgError) return fail(e.message, 2);
    throw e;
  }
  let ep: Endpoint;
  let session: string;
  try {
    ep = endpoint(flags, 'hookmap attach');
    session = await resolveSessionOrAsGiven(ep, asked); // any unique prefix the relay holds
  } catch (e) {
    return fail((e as AmbiguousId).message, (e as AmbiguousId).exit ?? 2);
  }
  let runs: Run[];
  try {
    const res = await fetch(`${ep.url.replace(/\/+$/, '')}/launch`, { headers: { ...authHeaders(ep.token), 'x-hookmap-surface': 'cli' } });
    const j = (await res.json().catch(() => ({}))) as { runs?: Run[]; error?: string; detail?: string };
    if (res.status === 401) return fail(explainRefusal(ep, `refused: 401 ${j.detail ?? ''}`), 1);
    if (!res.ok || !Array.isArray(j.runs)) return fail(`refused: ${j.error ?? res.status}${j.detail ? `: ${j.detail}` : ''}`, 1);
    runs = j.runs;
  } catch (e) {
    return fail(`cannot reach hookmap up at ${ep.url}: ${(e as Error).message} (is it running?)`, 2);
  }
  const picked = pickRun(runs, session, asked);
  if ('error' in picked) return fail(picked.error, picked.exit);
  const r = picked.run;
  const who = `${r.agent} session ${r.session ?? '(not yet known)'} (launch ${r.id})`;
  if (!r.tmux)
    return fail(
      `${who} runs headless: there is no terminal to attach to. Follow it with hookmap tail --session ${r.session ?? r.id}, ` +
        'steer it with hookmap steer, stop it with hookmap cancel.',
      1,
    );
  if (r.state !== 'running' && r.state !== 'starting') return fail(`${who} has ended (${r.state}): its tmux session is gone.`, 1);
  const { name, socket } = r.tmux;
  if (!NAME.test(name) || (socket !== undefined && !NAME.test(socket))) return fail(`up named a tmux session hookmap will not pass to tmux: ${name}`, 1);
  const args = [...(socket ? ['-L', socket] : []), 'attach', '-t', `=${name}`];
  if (flags.print) {
    process.stdout.write(`${['tmux', ...args].join(' ')}\n`);
    return 0;
  }
  const t = spawnSync('tmux', args, { stdio: 'inherit' });
  const where = `tmux session ${name}${socket ? ` on the server -L ${socket}` : ''}`;
  if (t.error)
    return fail(
      (t.error as NodeJS.ErrnoException).code === 'ENOENT'
        ? `tmux is not installed here (or not on PATH): ${who} runs in ${where} (Debian: apt install tmux)`
        : `could not run tmux: ${t.error.message}`,
      1,
    );
  return t.status ?? 1;
}

/** The run `asked` names among up's runs: by its session (resolved, or a prefix of it; a `~N` lineage is the same run) or its launch id. */
export function pickRun(runs: readonly Run[], session: string, asked: string): { run: Run } | { error: string; exit: number } {
  const byId = runs.find((r) => r.id === asked);
  if (byId) return { run: byId };
  const exact = runs.filter((r) => r.session !== undefined && (r.session === session || lineOf(r.session) === lineOf(session)));
  const found = exact.length ? exact : runs.filter((r) => r.session?.startsWith(asked));
  const sessions = [...new Set(found.map((r) => r.session))];
  if (sessions.length > 1)
    return { error: `session '${asked}' is ambiguous among up's runs (give more of it):\n${sessions.map((s) => `  ${s}`).join('\n')}`, exit: 2 };
  if (!found.length)
    return {
      error:
        `no run of this hookmap up is session ${asked}: hookmap attach takes over the sessions \`hookmap run --tmux\` ` +
        '(or New session, in a terminal) started, and up forgets its runs when it restarts',
      exit: 1,
    };
  // its attachable run still under way, else the newest (up lists them newest first)
  return { run: found.find((r) => r.tmux && r.state === 'running') ?? found[0] };
}

function fail(msg: string, code: number): number {
  process.stderr.write(`hookmap attach: ${msg}\n`);
  return code;
}
