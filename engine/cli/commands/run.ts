// `hookmap run <agent> [--dir D] [--tmux] [--model M] [--option K=V] PROMPT`
// and `hookmap run <agent> --resume <session> PROMPT`: asks the running `up`
// (POST /launch, the owner token like every control command) to start the
// agent in an allowed project folder, or to continue one of its sessions, and
// prints the hookmap session id once the agent's first hook reached the
// stream (the session is known to be wired); `--tmux` prints the line that
// attaches to the interactive agent. Exit: 0 the session is on the stream, 1
// refused or no session in time (the run's log is named), 2 usage.
import { resolve } from 'node:path';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { authHeaders } from '../../runtime/relay/client-sse.ts';
import { ENDPOINT_FLAGS, endpoint, explainRefusal, type Endpoint } from './command-common.ts';
import { resolveSessionOrAsGiven, type AmbiguousId } from './id-prefix.ts';

const SPEC = {
  ...ENDPOINT_FLAGS,
  dir: { type: 'string' },
  tmux: { type: 'boolean' },
  model: { type: 'string' },
  option: { type: 'string', multiple: true },
  resume: { type: 'string' },
  wait: { type: 'string' },
  json: { type: 'boolean' },
} as const;
const USAGE = 'usage: hookmap run <agent> [--dir D] [--tmux] [--model M] [--option K=V] "prompt"  |  hookmap run <agent> --resume <session> "prompt"';
const POLL_MS = 200;

interface Run {
  id: string;
  agent: string;
  state: string;
  session?: string;
  pid?: number;
  log?: string;
  tmux?: { name: string; attach: string };
  exit?: number | null;
  signal?: string | null;
  error?: string;
}

export async function run(argv: string[]): Promise<number> {
  let flags, agent: string, prompt: string;
  const options: Record<string, string> = {};
  try {
    const p = parseArgs(argv, SPEC);
    flags = p.flags;
    if (p.positionals.length !== 2) throw new ArgError(USAGE);
    [agent, prompt] = p.positionals;
    if (!/^[a-z0-9-]+$/.test(agent)) throw new ArgError(`'${agent}' is not an agent id`);
    for (const o of (flags.option as string[] | undefined) ?? []) {
      const m = /^([a-z][a-z0-9_]*)=(.+)$/.exec(o);
      if (!m) throw new ArgError(`--option ${o}: write NAME=VALUE`);
      options[m[1]] = m[2];
    }
    if (flags.model !== undefined) options.model = flags.model as string;
    if (flags.resume !== undefined && flags.tmux) throw new ArgError('--resume runs headless: drop --tmux');
  } catch (e) {
    if (e instanceof ArgError) return fail(e.message, 2);
    throw e;
  }
  const waitMs = intFlag(flags.wait, 'wait', 60) * 1000;
  let ep: Endpoint;
  try {
    ep = endpoint(flags, 'hookmap run');
  } catch (e) {
    return fail((e as Error).message, 2);
  }
  let resume = flags.resume as string | undefined;
  if (resume !== undefined) {
    try {
      resume = await resolveSessionOrAsGiven(ep, resume); // any unique prefix, a ~N lineage included
    } catch (e) {
      return fail((e as AmbiguousId).message, (e as AmbiguousId).exit ?? 2);
    }
  }
  const body = {
    agent,
    project: resolve((flags.dir as string | undefined) ?? process.cwd()),
    prompt,
    mode: flags.tmux ? 'tmux' : 'headless',
    ...(resume !== undefined ? { resume } : {}),
    ...(Object.keys(options).length ? { options } : {}),
  };
  const base = ep.url.replace(/\/+$/, '');
  const headers = { ...authHeaders(ep.token), 'content-type': 'application/json', 'x-hookmap-surface': 'cli' };
  let started: Run;
  try {
    const res = await fetch(`${base}/launch`, { method: 'POST', headers, body: JSON.stringify(body) });
    const j = (await res.json().catch(() => ({}))) as { run?: Run; error?: string; detail?: string };
    if (res.status === 401) return fail(explainRefusal(ep, `refused: 401 ${j.detail ?? ''}`), 1);
    if (!res.ok || !j.run) return fail(`refused: ${j.error ?? res.status}${j.detail ? `: ${j.detail}` : ''}`, 1);
    started = j.run;
  } catch (e) {
    return fail(`cannot reach hookmap up at ${ep.url}: ${(e as Error).message} (is it running?)`, 2);
  }
  const json = Boolean(flags.json);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (!json) {
    out(`started ${started.agent} (launch ${started.id}${started.pid ? `, pid ${started.pid}` : ''})${started.log ? `, log ${started.log}` : ''}`);
    if (started.tmux) out(`attach: ${started.tmux.attach}`);
  }
  // the session, once the agent's first hook reached the stream
  const deadline = Date.now() + waitMs;
  let last = started;
  while (Date.now() < deadline) {
    const res = await fetch(`${base}/launch/${encodeURIComponent(started.id)}`, { headers }).catch(() => undefined);
    const j = res?.ok ? ((await res.json()) as { run: Run }) : undefined;
    if (j) last = j.run;
    if (last.session) {
      if (json) out(JSON.stringify(last));
      else out(`session ${last.session}`);
      return 0;
    }
    if (last.state !== 'running' && last.state !== 'starting') break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  if (json) out(JSON.stringify(last));
  const ended = last.state === 'running' ? `no hook from it within ${waitMs / 1000} s (still running)` : `it ${last.state}${endDetail(last)} before any hook`;
  return fail(`${ended}: is ${agent} wired (hookmap doctor ${agent})?${last.log ? ` Its output: ${last.log}` : ''}`, 1);
}

const endDetail = (r: Run) => (r.error ? `: ${r.error}` : r.exit !== undefined && r.exit !== null ? ` (exit ${r.exit})` : r.signal ? ` (${r.signal})` : '');

function fail(msg: string, code: number): number {
  process.stderr.write(`hookmap run: ${msg}\n`);
  return code;
}
