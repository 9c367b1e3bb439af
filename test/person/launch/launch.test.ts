// `hookmap run` end to end against an in-process `hookmap up` (issue 42): a
// stand-in agent (fake-agent.mjs) described by a generic descriptor with a
// launch block is started by up's launcher, its first hook names the session,
// and the CLI prints it. Every refusal is tested: a read-only token, a project
// outside the allow-list, an unwired project, an option outside the list, the
// run cap; a prompt of `$(touch pwned)` or `; rm -rf ~` reaches the agent as
// its one argument and nothing runs; `hookmap cancel` stops a headless run,
// the wall time stops another; every start is audited on hookmap's session.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addToken } from '../../../engine/runtime/auth/tokens.ts';
import { run as runCmd } from '../../../engine/cli/commands/run.ts';
import { run as cancelCmd } from '../../../engine/cli/commands/cancel.ts';
import { recordWiring } from '../../../engine/runtime/setup/wirings.ts';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { launchAgentDescriptor as descriptor } from './stand-in.ts';

const HERE = import.meta.dirname;
const launchEnv: Record<string, string | undefined> = { PATH: process.env.PATH };
let s: UpStack;
let project: string;
let unwired: string;
let outside: string;

beforeAll(async () => {
  s = await upStack({
    prefix: 'hookmap-launch-',
    hello: true,
    launchEnv,
    setup: (home) => {
      project = join(home, 'shop-api');
      unwired = join(home, 'other');
      outside = join(home, 'elsewhere');
      for (const d of [project, unwired, outside]) mkdirSync(d);
      recordWiring(home, { agent: 'launch-agent', scope: 'project', path: join(project, '.agent.json'), dir: project });
      return {
        agents: [{ descriptor: descriptor(home) }],
        launch: { projects: [unwired], maxRuns: 1, timeoutMs: 20_000, tmux: join(HERE, 'fake-tmux.mjs') },
      };
    },
  });
  launchEnv.HOOKMAP_URL = s.url;
}, 30_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await s?.done();
});

async function cli(cmd: (argv: string[]) => Promise<number>, argv: string[], token = s.token): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const keep = (c: unknown) => (lines.push(String(c)), true);
  const o = vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  const e = vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  try {
    return { code: await cmd([...argv, '--url', s.url, '--token', token]), out: lines.join('') };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

const post = (body: unknown, token = s.token) =>
  fetch(`${s.url}/launch`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const runs = (dir: string) =>
  existsSync(join(dir, '.fake-agent.jsonl'))
    ? readFileSync(join(dir, '.fake-agent.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
const operator = () => readLogs(join(s.logDir, '_operator'));
/** Waits for the run to end (the cap of 1 counts a run until its process exits). */
const ended = (text: string) => {
  const id = /launch (l[0-9a-f]{12})/.exec(text)![1];
  return until(`launch ${id} ended`, async () => {
    const r = await (await fetch(`${s.url}/launch/${id}`, { headers: { authorization: `Bearer ${s.token}` } })).json();
    return r.run.ended ? r.run : undefined;
  });
};

describe('hookmap run', () => {
  let first: string;

  it('starts the agent in an allowed, wired project and prints the session once its first hook arrived', async () => {
    const r = await cli(runCmd, ['launch-agent', '--dir', project, '--model', 'small', 'fix the red tests']);
    expect(r.out).toMatch(/started launch-agent \(launch l[0-9a-f]{12}, pid \d+\), log .*launch\/l[0-9a-f]{12}\.log/);
    first = /session (fake-[0-9a-f]+)/.exec(r.out)![1];
    expect(r.code).toBe(0);
    expect(await ended(r.out)).toMatchObject({ state: 'exited', exit: 0, session: first });
    const rec = runs(project).find((x) => x.session === first)!;
    expect(rec.argv).toEqual(['--model', 'small', project, 'fix the red tests']);
    expect(rec.cwd).toBe(project);
    const started = await until('the audit record', () => operator().find((e) => e.type === 'x.hookmap.launch.started'));
    expect(started.data).toMatchObject({ agent: 'launch-agent', mode: 'headless', project, by: 'owner', via: 'cli', options: { model: 'small' } });
    await until('the session record', () => operator().find((e) => e.type === 'x.hookmap.launch.session' && e.data?.session === first));
  });

  it('a prompt of `$(touch pwned)` or `; rm -rf ~` is one argument, never run', async () => {
    for (const prompt of ['$(touch pwned)', '; rm -rf ~', '`touch pwned2` && touch pwned3']) {
      const r = await cli(runCmd, ['launch-agent', '--dir', project, prompt]);
      expect(r.code, r.out).toBe(0);
      await ended(r.out);
      const session = /session (\S+)/.exec(r.out)![1];
      expect(runs(project).find((x) => x.session === session)!.argv).toEqual([project, prompt]);
    }
    for (const f of ['pwned', 'pwned2', 'pwned3']) for (const d of [project, s.home, HERE]) expect(existsSync(join(d, f))).toBe(false);
  });

  it('refuses a read-only token (403): nothing starts', async () => {
    const before = runs(project).length;
    const reader = addToken(s.home, 'reader', ['read']).token;
    const res = await post({ agent: 'launch-agent', project, prompt: 'hello' }, reader);
    expect(res.status).toBe(403);
    expect((await res.json()).detail).toMatch(/read-only token cannot start/);
    const r = await cli(runCmd, ['launch-agent', '--dir', project, 'hello'], reader);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/refused: forbidden/);
    expect(runs(project).length).toBe(before);
  });

  it('refuses a cookie from another origin, a foreign Host, a made-up token, no credential and a form post: nothing starts', async () => {
    const before = runs(project).length;
    const login = await fetch(`${s.url}/inbox/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: s.token }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const body = JSON.stringify({ agent: 'launch-agent', project, prompt: 'hello' });
    const send = (headers: Record<string, string>, payload = body) =>
      fetch(`${s.url}/launch`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload });
    expect([401, 403]).toContain((await send({ cookie, origin: 'http://evil.example' })).status);
    expect((await send({})).status).toBe(401);
    expect((await send({ authorization: 'Bearer hmk_stolen-or-made-up' })).status).toBe(401);
    // a DNS-rebinding page (fetch cannot set Host; node:http can): refused even with the owner's token
    const foreign = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${s.url}/launch`);
      const r = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: { host: 'evil.example', authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        },
        (res) => (res.resume(), resolve(res.statusCode!)),
      );
      r.on('error', reject);
      r.end(body);
    });
    expect(foreign).toBeGreaterThanOrEqual(400);
    // a form a page could post without a preflight is not read at all
    const form = await fetch(`${s.url}/launch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'agent=launch-agent&prompt=hello',
    });
    expect(form.status).toBeGreaterThanOrEqual(400);
    expect(runs(project).length).toBe(before);
  });

  it('refuses a project outside the allow-list, by path or by name, and an unwired one (with the setup line)', async () => {
    const out = await post({ agent: 'launch-agent', project: outside, prompt: 'hello' });
    expect(out.status).toBe(403);
    expect(await out.json()).toMatchObject({ error: 'project-refused' });
    expect((await post({ agent: 'launch-agent', project: '/etc', prompt: 'hello' })).status).toBe(403);
    expect((await post({ agent: 'launch-agent', project: '../elsewhere', prompt: 'hello' })).status).toBe(403);
    const un = await post({ agent: 'launch-agent', project: 'other', prompt: 'hello' });
    expect(un.status).toBe(409);
    expect((await un.json()).detail).toMatch(/not wired .*hookmap setup launch-agent --project --dir /);
    for (const d of [outside, unwired]) expect(runs(d)).toEqual([]);
    // by its name, the allowed folder itself
    const named = await cli(runCmd, ['launch-agent', '--dir', project, 'by path']);
    expect(named.code).toBe(0);
    await ended(named.out);
    const res = await post({ agent: 'launch-agent', project: 'shop-api', prompt: 'by name' });
    expect(res.status).toBe(201);
    const run = (await res.json()).run;
    expect(run.dir).toBe(project);
    await ended(`launch ${run.id}`);
  });

  it('refuses an option or a value outside the descriptor list, and a prompt that reads as an option', async () => {
    for (const [options, re] of [
      [{ model: 'huge' }, /model "huge" is not allowed \(one of small, large\)/],
      [{ dangerously_skip_permissions: 'yes' }, /no option dangerously_skip_permissions/],
      [{ model: '--dangerously-skip-permissions' }, /not a value/],
    ] as const) {
      const res = await post({ agent: 'launch-agent', project, prompt: 'hello', options });
      expect(res.status).toBe(422);
      expect((await res.json()).detail).toMatch(re);
    }
    const dash = await post({ agent: 'launch-agent', project, prompt: '--dangerously-skip-permissions' });
    expect(dash.status).toBe(400);
    const refused = operator().filter((e) => e.type === 'x.hookmap.launch.refused');
    expect(refused.some((e) => e.data?.code === 'option-refused' && e.data?.by === 'owner')).toBe(true);
  });

  it('caps the runs per agent; `hookmap cancel <session>` stops a headless run', async () => {
    const r = await cli(runCmd, ['launch-agent', '--dir', project, 'SLEEP a while']);
    expect(r.code, r.out).toBe(0);
    const session = /session (\S+)/.exec(r.out)![1];
    const capped = await post({ agent: 'launch-agent', project, prompt: 'one more' });
    expect(capped.status).toBe(429);
    expect(await capped.json()).toMatchObject({ error: 'run-cap' });
    const c = await cli(cancelCmd, [session.slice(0, 9)]);
    expect(c.out).toMatch(new RegExp(`stopped launch-agent \\(launch l[0-9a-f]+\\), session ${session}`));
    expect(c.code).toBe(0);
    const stop = await until('the run stopped', () => operator().find((e) => e.type === 'x.hookmap.launch.ended' && e.data?.session === session));
    expect(stop.data?.state).toBe('stopped');
  });

  it('continues a session by a unique prefix (--resume): the agent gets its own id', async () => {
    const r = await cli(runCmd, ['launch-agent', '--dir', project, '--resume', first.slice(0, 10), 'and now the docs']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(new RegExp(`session ${first}`));
    await ended(r.out);
    expect(runs(project).at(-1)).toMatchObject({ argv: [project, 'and now the docs', '--resume', first], session: first });
    const started = operator()
      .filter((e) => e.type === 'x.hookmap.launch.started')
      .at(-1);
    expect(started?.data).toMatchObject({ mode: 'resume', resumed: first });
  });

  it('--tmux runs the interactive argv in a named tmux session, the prompt one argument, and prints the attach line', async () => {
    const r = await cli(runCmd, ['launch-agent', '--dir', project, '--tmux', 'look; at $(this)']);
    expect(r.code, r.out).toBe(0);
    const attach = /attach: (.*fake-tmux\.mjs attach -t (hookmap-launch-agent-[0-9a-f]{6}))/.exec(r.out)!;
    expect(attach).not.toBeNull();
    const argv = JSON.parse(readFileSync(join(project, '.fake-tmux.jsonl'), 'utf8').trim().split('\n').at(-1)!);
    expect(argv.slice(0, 6)).toEqual(['new-session', '-d', '-s', attach[2], '-c', project]);
    expect(argv).not.toContain('-e'); // only the descriptor's launch.env would ride tmux's argv (public in ps)
    expect(argv.slice(-4)).toEqual([process.execPath, join(HERE, 'fake-agent.mjs'), project, 'look; at $(this)']);
  });
});
