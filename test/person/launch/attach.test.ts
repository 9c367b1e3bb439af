// `hookmap attach <session>` (issue 42) with Debian's tmux: `hookmap run
// --tmux` starts the stand-in agent (fake-agent.mjs) in a tmux session on a
// private server (launch.tmux_socket: never a user's tmux); `hookmap attach`
// with a prefix of its session, run in a terminal (a pane of a second private
// tmux server), becomes a client of that session, and leaves when the client
// is detached. The run's end (its session ended and its tmux session gone) is
// learned by up. Refused with a clear word: a headless run, an unknown and an
// ambiguous id, an ended run, tmux missing, a read-only token and none.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addToken } from '../../../engine/runtime/auth/tokens.ts';
import { run as attachCmd } from '../../../engine/cli/commands/attach.ts';
import { run as runCmd } from '../../../engine/cli/commands/run.ts';
import { recordWiring } from '../../../engine/runtime/setup/wirings.ts';
import { until } from '../../runtime/daemon/helpers.ts';
import { BIN } from '../../helpers/cli.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { launchAgentDescriptor as descriptor } from './stand-in.ts';

const TMUX = '/usr/bin/tmux';
const hasTmux = existsSync(TMUX);
const SOCKET = `hookmap-test-attach-${process.pid}`;
const DESK = `hookmap-test-desk-${process.pid}`;
const tmux = (socket: string, ...args: string[]) => spawnSync(TMUX, ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
const launchEnv: Record<string, string | undefined> = { PATH: process.env.PATH };
let s: UpStack;
let project: string;

beforeAll(async () => {
  if (!hasTmux) return;
  s = await upStack({
    prefix: 'hookmap-attach-',
    hello: true,
    launchEnv,
    setup: (home) => {
      project = join(home, 'shop-api');
      mkdirSync(project);
      recordWiring(home, { agent: 'launch-agent', scope: 'project', path: join(project, '.agent.json'), dir: project });
      return { agents: [{ descriptor: descriptor(home) }], launch: { timeoutMs: 20_000, tmux: TMUX, tmuxSocket: SOCKET } };
    },
  });
  launchEnv.HOOKMAP_URL = s.url;
}, 30_000);

afterAll(async () => {
  vi.restoreAllMocks();
  if (!hasTmux) return;
  for (const socket of [SOCKET, DESK]) {
    tmux(socket, 'kill-server');
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid!()}`, socket), { force: true }); // the server leaves its socket file
  }
  await s?.done();
});

async function cli(cmd: (argv: string[]) => Promise<number>, argv: string[], token = s.token): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const keep = (c: unknown) => (lines.push(String(c)), true);
  const o = vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  const e = vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  const before = process.env.HOOKMAP_TOKEN;
  process.env.HOOKMAP_TOKEN = token; // not --token: its warning (argv is public) would be in the output
  try {
    return { code: await cmd([...argv, '--url', s.url]), out: lines.join('') };
  } finally {
    o.mockRestore();
    e.mockRestore();
    if (before === undefined) delete process.env.HOOKMAP_TOKEN;
    else process.env.HOOKMAP_TOKEN = before;
  }
}

const hook = (body: object) =>
  fetch(`${s.url}/hooks/launch-agent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const runOf = async (id: string) => (await (await fetch(`${s.url}/launch/${id}`, { headers: { authorization: `Bearer ${s.token}` } })).json()).run;

describe.skipIf(!hasTmux)('hookmap attach', () => {
  let session: string;
  let name: string;
  let launch: string;

  it('`hookmap run --tmux` starts the agent on the private tmux server; the attach line names it', async () => {
    const r = await cli(runCmd, ['launch-agent', '--dir', project, '--tmux', 'SLEEP at the desk; $(touch pwned)']);
    expect(r.code, r.out).toBe(0);
    session = /session (fake-[0-9a-f]+)/.exec(r.out)![1];
    launch = /launch (l[0-9a-f]{12})/.exec(r.out)![1];
    const m = new RegExp(`attach: ${TMUX} -L ${SOCKET} attach -t (hookmap-launch-agent-[0-9a-f]{6})`).exec(r.out);
    expect(m, r.out).not.toBeNull();
    name = m![1];
    expect(tmux(SOCKET, 'has-session', '-t', `=${name}`).status).toBe(0);
    expect(existsSync(join(project, 'pwned'))).toBe(false);
    expect(await runOf(launch)).toMatchObject({ mode: 'tmux', state: 'running', session, tmux: { name, socket: SOCKET } });
  });

  it('--print: the tmux command for a unique prefix of the session, and for the launch id', async () => {
    for (const id of [session.slice(0, 9), launch]) {
      const r = await cli(attachCmd, [id, '--print']);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toBe(`tmux -L ${SOCKET} attach -t =${name}\n`);
    }
  });

  it("in a terminal, `hookmap attach <prefix>` becomes a client of the run's tmux session; detached, it exits 0", async () => {
    const done = join(s.home, 'attach.exit');
    // the desk: a terminal (a pane of another private tmux server) where a person types the command; the token is found
    // in $HOOKMAP_HOME as for the owner, never in argv
    const line = `node ${JSON.stringify(BIN)} attach ${session.slice(0, 9)}; echo $? > ${JSON.stringify(done)}`;
    const desk = spawnSync(TMUX, ['-L', DESK, 'new-session', '-d', '-s', 'desk', '-x', '120', '-y', '30', line], {
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, HOME: s.home, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url, TERM: 'xterm-256color' },
      encoding: 'utf8',
    });
    expect(desk.status, desk.stderr).toBe(0);
    const client = await until(
      "a client on the run's session",
      () => tmux(SOCKET, 'list-clients', '-t', `=${name}`, '-F', '#{client_session}').stdout.trim() || undefined,
      30_000,
    );
    expect(client).toBe(name);
    tmux(SOCKET, 'detach-client', '-s', `=${name}`);
    const code = await until('hookmap attach exited', () => (existsSync(done) ? readFileSync(done, 'utf8').trim() : undefined), 15_000);
    expect(code).toBe('0');
    expect(tmux(SOCKET, 'has-session', '-t', `=${name}`).status).toBe(0); // detached: the agent goes on
  }, 60_000);

  it('tmux missing: says so, with the session and the server', async () => {
    const path = process.env.PATH;
    process.env.PATH = join(s.home, 'no-tmux'); // a PATH where no tmux is
    mkdirSync(process.env.PATH);
    try {
      const r = await cli(attachCmd, [session.slice(0, 9)]);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain(`hookmap attach: tmux is not installed here (or not on PATH): launch-agent session ${session}`);
      expect(r.out).toContain(`tmux session ${name} on the server -L ${SOCKET}`);
    } finally {
      process.env.PATH = path;
    }
  });

  it('refuses a headless run, an unknown id and an ambiguous one, a read-only token and none', async () => {
    const h = await cli(runCmd, ['launch-agent', '--dir', project, 'SLEEP headless']);
    expect(h.code, h.out).toBe(0);
    const headless = /session (fake-[0-9a-f]+)/.exec(h.out)![1];
    const r1 = await cli(attachCmd, [headless]);
    expect(r1.code).toBe(1);
    expect(r1.out).toMatch(new RegExp(`launch-agent session ${headless} \\(launch l[0-9a-f]{12}\\) runs headless: there is no terminal to attach to`));
    await cli((a) => import('../../../engine/cli/commands/cancel.ts').then((m) => m.run(a)), [headless]);
    const r2 = await cli(attachCmd, ['no-such-session']);
    expect(r2.code).toBe(1);
    expect(r2.out).toMatch(/no run of this hookmap up is session no-such-session/);
    const r3 = await cli(attachCmd, ['fake-']); // both sessions start so
    expect(r3.code).toBe(2);
    expect(r3.out).toMatch(/'fake-' is ambiguous/);
    const reader = addToken(s.home, 'attach-reader', ['read']).token;
    const r4 = await cli(attachCmd, [session], reader);
    expect(r4.code).toBe(1);
    expect(r4.out).toMatch(/refused: forbidden: attach-reader has no control scope/);
    const r5 = await cli(attachCmd, [session], 'hmk_made-up');
    expect(r5.code).toBe(1);
    expect(r5.out).toMatch(/refused: 401/);
  });

  it('the session ended and its tmux session gone: up marks the run exited, and attach says it has ended', async () => {
    await hook({ hook_event_name: 'SessionEnd', session_id: session, cwd: project, reason: 'normal' });
    tmux(SOCKET, 'kill-session', '-t', `=${name}`);
    const over = await until('the run is over', async () => {
      const r = await runOf(launch);
      return r.state === 'exited' ? r : undefined;
    });
    expect(over.ended).toBeTruthy();
    const r = await cli(attachCmd, [session.slice(0, 9)]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/has ended \(exited\): its tmux session is gone/);
  });
});
