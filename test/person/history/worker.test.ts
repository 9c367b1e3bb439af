// The history's indexer in its worker thread, end to end through `hookmap up`:
// what a daemon logs is found by search, a stop and start goes on where it
// stopped without counting an event twice, a killed worker is started again
// while hooks are answered, a worker that keeps dying is given up on (said,
// and reported by /history/status), and the search route's hostile input.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookKeyHeaders } from '../../../engine/runtime/auth/hook-key.mjs';
import { startUp, type Up } from '../../../engine/app/up.ts';
import { historyFile, historyRoots } from '../../../engine/person/history/history.ts';
import type { ChildProcess } from 'node:child_process';
import { IndexerHost, MAX_RESTARTS } from '../../../engine/person/history/worker-host.ts';
import { tempDir, until } from '../../runtime/daemon/helpers.ts';

const TOKEN = 'history-worker-token-0123456789';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function up(home: string, lines: string[] = []): Promise<Up> {
  const u = await startUp({ port: 0, token: TOKEN, home, logDir: join(home, 'logs'), agents: [{ descriptor: 'claude-code' }], say: (l) => lines.push(l) });
  cleanups.push(() => u.close());
  await u.warmed;
  return u;
}

const hook = async (u: Up, home: string, session: string, name: string, extra: Record<string, unknown> = {}) => {
  const r = await fetch(`${u.url}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...hookKeyHeaders(home) },
    body: JSON.stringify({ session_id: session, hook_event_name: name, cwd: '/work/shop', ...extra }),
  });
  expect(r.status).toBe(200);
};
const turn = async (u: Up, home: string, session: string, tool: string) => {
  await hook(u, home, session, 'UserPromptSubmit', { prompt: 'p' });
  await hook(u, home, session, 'PreToolUse', { tool_name: tool, tool_use_id: `c-${tool}`, tool_input: { command: 'ls' } });
  await hook(u, home, session, 'Stop');
};
const get = async (u: Up, path: string) => {
  const r = await fetch(`${u.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: r.status, body: (await r.json()) as any };
};
/** The events the daemon logged for a session (every log of the agent's folder, read). */
const logged = (home: string, session: string) => {
  const dir = join(home, 'logs', 'claude-code');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))
    .filter((l) => (JSON.parse(l) as { session?: string }).session === session).length;
};

/** Kill the indexer's process outright (a crash): resolves once it is gone. */
const kill = (p: ChildProcess) => new Promise<void>((done) => (p.once('exit', () => done()), p.kill('SIGKILL')));

describe("the history's indexer in a process of up's own", () => {
  it('indexes what a daemon logs; a stop and a start go on without counting an event twice', async () => {
    const t = tempDir('hookmap-history-worker-');
    cleanups.push(t.done);
    let u = await up(t.dir);
    await hook(u, t.dir, 's1', 'SessionStart', { source: 'startup' });
    await turn(u, t.dir, 's1', 'FirstTool');
    const found = await until('the first turn found', async () => ((await get(u, '/history/search?q=firsttool')).body.hits.length ? true : undefined));
    expect(found).toBe(true);
    expect((await get(u, '/history/status')).body.indexer).toMatchObject({ state: 'running', restarts: 0 });
    await u.close();
    u = await up(t.dir);
    await turn(u, t.dir, 's1', 'SecondTool');
    await u.history!()!.caughtUp();
    const s = (await get(u, '/history/sessions')).body.sessions;
    expect(s).toEqual([expect.objectContaining({ session: 's1', tools: 2, runs: 2 })]);
    expect(s[0].events).toBe(logged(t.dir, 's1'));
    expect((await get(u, '/history/search?q=firsttool')).body.hits[0].events).toHaveLength(1);
    expect((await get(u, '/history/search?q=secondtool')).body.hits[0].events).toHaveLength(1);
  }, 60_000);

  it('a killed worker is said, started again, and hooks are answered all along', async () => {
    const t = tempDir('hookmap-history-worker-');
    cleanups.push(t.done);
    const lines: string[] = [];
    const u = await up(t.dir, lines);
    await hook(u, t.dir, 's2', 'SessionStart', { source: 'startup' });
    const history = u.history!()!;
    await history.caughtUp();
    await kill(history.worker.process!);
    // while it is down and starting again: hooks answer (200) as ever
    await turn(u, t.dir, 's2', 'WhileDown');
    expect(lines.some((l) => /\[history\] history: the indexer stopped \(killed by SIGKILL\): hooks are answered as before; starting it again/.test(l))).toBe(
      true,
    );
    await until('the worker started again', () => history.status().state === 'running' && history.status().restarts === 1);
    // /healthz (with a token: details) says the indexer's state too, restarts counted
    expect((await get(u, '/healthz')).body.history).toMatchObject({ state: 'running', restarts: 1 });
    await until('what was logged meanwhile found', async () => ((await get(u, '/history/search?q=whiledown')).body.hits.length ? true : undefined));
    expect((await get(u, '/history/sessions')).body.sessions[0].events).toBe(logged(t.dir, 's2'));
  }, 60_000);

  it('a worker that keeps dying is given up on after a bounded number of starts, and says so', async () => {
    const t = tempDir('hookmap-history-worker-');
    cleanups.push(t.done);
    const lines: string[] = [];
    const host = new IndexerHost({ file: historyFile(t.dir), roots: historyRoots(t.dir), stepBytes: 1024, everyMs: 50 }, (l) => lines.push(l), [10]).start();
    cleanups.push(() => host.close());
    for (let i = 0; i <= MAX_RESTARTS; i++) {
      await kill(await until('a worker running', () => host.process));
    }
    await until('given up', () => host.status().state === 'failed');
    expect(host.status()).toMatchObject({ state: 'failed', restarts: MAX_RESTARTS });
    expect(lines.at(-1)).toMatch(/not started again; hooks are answered as before/);
    await new Promise((r) => setTimeout(r, 100));
    expect(host.process).toBeUndefined();
  }, 60_000);

  it('search: hostile input is a clear 400 or a literal search, never a 500; filters narrow it', async () => {
    const t = tempDir('hookmap-history-worker-');
    cleanups.push(t.done);
    const u = await up(t.dir);
    await hook(u, t.dir, 's3', 'SessionStart', { source: 'startup' });
    await turn(u, t.dir, 's3', 'Bash');
    await u.history!()!.caughtUp();
    for (const q of [
      '"',
      'NEAR(bash',
      'bash*',
      '-bash',
      'bash OR x',
      '^bash',
      'bash:',
      '(bash)',
      'a"b\'c;--',
      '\u0000bash\u0007',
      '\u202ebash',
      'bash '.repeat(32),
    ]) {
      const r = await get(u, `/history/search?q=${encodeURIComponent(q)}`);
      expect(r.status, q).toBe(200);
      expect(r.body.hits.length, q).toBeLessThanOrEqual(1);
    }
    expect((await get(u, `/history/search?q=${encodeURIComponent('"bash"')}`)).body.hits).toHaveLength(1);
    const long = await get(u, `/history/search?q=${'x'.repeat(1001)}`);
    expect(long).toMatchObject({ status: 400, body: { error: 'bad-request', detail: expect.stringMatching(/at most 1000 characters/) } });
    const words = await get(u, `/history/search?q=${encodeURIComponent('bash '.repeat(33))}`);
    expect(words).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/at most 32 words/) } });
    expect((await get(u, '/history/search?q=bash&since=notadate')).status).toBe(400);
    const hits = async (f: string) => (await get(u, `/history/search?q=bash&${f}`)).body.hits.length;
    expect(await hits('agent=claude-code')).toBe(1);
    expect(await hits('agent=codex')).toBe(0);
    expect(await hits(`agent=${encodeURIComponent("' OR 1=1 --")}`)).toBe(0);
    expect(await hits('project=shop')).toBe(1);
    expect(await hits('project=other')).toBe(0);
    expect(await hits('since=2000-01-01')).toBe(1);
    expect(await hits('since=2999-01-01')).toBe(0);
    expect(await hits('until=2000-01-01')).toBe(0);
    // no token, another origin
    expect((await fetch(`${u.url}/history/search?q=bash`)).status).toBe(401);
    expect((await fetch(`${u.url}/history/status`)).status).toBe(401);
    const origin = await fetch(`${u.url}/history/search?q=bash`, { headers: { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' } });
    expect(origin.status).toBe(403);
  }, 60_000);
});
