// Issue 25, start on demand: a shim that finds no daemon starts `hookmap up`
// once (detached, under a lock), answers its own hook neutrally, and the next
// hooks reach the daemon; a stampede starts one; a failed start backs off;
// HOOKMAP_AUTOSTART=0 and `setup --no-autostart` start nothing. Real shims,
// a real `up` on a free loopback port, a real home.
import { hookKeyHeaders } from '../../../engine/runtime/auth/hook-key.mjs';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { recordedUp } from '../../../engine/app/up-parts.ts';
import { writeShims } from '../../../engine/runtime/shim/generate.ts';
import { BACKOFF_FILE, LAUNCHER, LOCK_DIR, OFF_FILE, readBackoff, takeLock, UP_LOG, writeLauncher } from '../../../engine/runtime/shim/autostart.mjs';
import { runCli } from '../../helpers/cli.ts';
import { hookmapVersion } from '../../../engine/core/io/version.ts';
import { until } from '../daemon/helpers.ts';
import { BIN, runProcess } from './helpers.ts';
import { hostHandlers, importPlugin, withEnv } from './plugin-harness.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-autostart-'));
const started: number[] = [];
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
afterEach(async () => {
  // stop every up a test started (by its recorded pid) and wait for it to end, so none outlives the test
  for (const pid of started.splice(0)) {
    if (alive(pid)) process.kill(pid, 'SIGTERM');
    await until(`up (pid ${pid}) stopped`, () => !alive(pid), 15_000);
  }
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface Home {
  home: string;
  url: string;
  env: NodeJS.ProcessEnv;
  sh: string;
}

/** A home as `hookmap setup` leaves it: the claude-code shims and the launcher; nothing listening at its URL. */
async function wiredHome(name: string, extra: Record<string, string> = {}): Promise<Home> {
  const home = join(tmp, name);
  const url = `http://127.0.0.1:${await freePort()}`;
  const env = { PATH: process.env.PATH, HOME: home, HOOKMAP_HOME: home, HOOKMAP_URL: url, ...extra };
  const { sh } = writeShims(loadVendor('claude-code'), resolveTarget(env));
  writeLauncher(home, 'test');
  return { home, url, env, sh };
}

const payload = (hook: string, session: string) =>
  JSON.stringify({
    hook_event_name: hook,
    session_id: session,
    cwd: tmp,
    transcript_path: '/dev/null',
    ...(hook === 'UserPromptSubmit' ? { prompt: 'hi' } : { source: 'startup' }),
  });
const fireSh = (h: Home, hook: string, session: string, env: NodeJS.ProcessEnv = h.env) => runProcess('sh', [h.sh, hook], payload(hook, session), env);
const fireNode = (h: Home, hook: string, session: string) => runProcess(process.execPath, [BIN, 'hook', 'claude-code', hook], payload(hook, session), h.env);

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

/** up answers, the start-on-demand lock is released, and the started up is stopped after the test. */
async function upStarted(h: Home): Promise<void> {
  await until('up answering', () => answers(h.url), 25_000);
  await until('the lock released', () => !existsSync(join(h.home, LOCK_DIR)), 10_000);
  const rec = recordedUp(h.home);
  expect(rec?.url).toBe(h.url);
  started.push(rec!.pid);
}

const starts = (h: Home) =>
  existsSync(join(h.home, UP_LOG))
    ? readFileSync(join(h.home, UP_LOG), 'utf8')
        .split('\n')
        .filter((l) => / autostart: starting hookmap up /.test(l)).length
    : 0;

describe.each(['sh', 'node'] as const)('start on demand, %s shim', (kind) => {
  it('the first firing starts up and answers neutral; the next firings of two sessions reach the stream', async () => {
    const h = await wiredHome(`first-${kind}`);
    const fire = kind === 'sh' ? fireSh : fireNode;
    const first = await fire(h, 'SessionStart', 's1');
    expect(first.code).toBe(0);
    expect(first.stdout.toString()).toBe(''); // claude-code's neutral reply: nothing
    await upStarted(h);
    expect((await fire(h, 'UserPromptSubmit', 's1')).code).toBe(0);
    expect((await fire(h, 'SessionStart', 's2')).code).toBe(0);
    // the started up keeps the hand-started one's token (the home's) and address
    const tail = await runCli(['tail', '--json', '--from', 'all', '--count', '2'], h.env, 20_000);
    expect(tail.code, tail.stderr).toBe(0);
    const sessions = tail.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).session);
    expect(new Set(sessions)).toEqual(new Set(['s1', 's2']));
    expect(starts(h)).toBe(1);
    expect(existsSync(join(h.home, BACKOFF_FILE))).toBe(false);
    // the started up pointed the launcher (written by "hookmap test") at the hookmap it is
    expect(readFileSync(join(h.home, LAUNCHER), 'utf8')).toContain(`GENERATED by hookmap ${hookmapVersion()} `);
    if (kind === 'node') return;
    // a permission prompt in that very first session is held and answered with `hookmap answer`
    const held = fetch(`${h.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hookKeyHeaders(h.home) }, // the key the started up created in the home
      body: JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: 's1',
        transcript_path: '/dev/null',
        cwd: tmp,
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command: 'touch x' },
        permission_suggestions: [],
      }),
    }).then((r) => r.text());
    const ask = await runCli(['tail', '--json', '--from', 'all', '--count', '1', '--filter', 'type=attention.requested'], h.env, 20_000);
    const id = JSON.parse(ask.stdout.trim()).id;
    const answer = await runCli(['answer', id, '--allow'], h.env, 20_000);
    expect(answer.code, answer.stderr).toBe(0);
    expect(await held).toBe('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}');
  });
});

describe('start on demand', () => {
  it('20 shims fired at once start exactly one up', async () => {
    const h = await wiredHome('stampede');
    const runs = await Promise.all(Array.from({ length: 20 }, (_, i) => fireSh(h, 'SessionStart', `s${i}`)));
    expect(runs.map((r) => r.code)).toEqual(Array(20).fill(0));
    await upStarted(h);
    expect(starts(h)).toBe(1);
    const log = readFileSync(join(h.home, UP_LOG), 'utf8');
    expect(log).not.toMatch(/already running/);
    expect((await fireSh(h, 'SessionStart', 'after')).code).toBe(0);
    expect(starts(h)).toBe(1);
  });

  it('a start that fails (a broken configuration) backs off: the next hooks stay fail-open and do not retry', async () => {
    const h = await wiredHome('broken', { HOOKMAP_ATTENTION_TIMEOUT_MS: 'soon' });
    expect((await fireSh(h, 'SessionStart', 's1')).code).toBe(0);
    await until('the back-off file', () => existsSync(join(h.home, BACKOFF_FILE)) && !existsSync(join(h.home, LOCK_DIR)), 25_000);
    const b = readBackoff(h.home)!;
    expect(b.active).toBe(true);
    expect(b.url).toBe(h.url);
    expect(b.why).toMatch(/HOOKMAP_ATTENTION_TIMEOUT_MS must be a positive integer/);
    const again = await Promise.all([fireSh(h, 'SessionStart', 's2'), fireNode(h, 'SessionStart', 's3'), fireSh(h, 'UserPromptSubmit', 's1')]);
    expect(again.map((r) => [r.code, r.stdout.toString()])).toEqual([
      [0, ''],
      [0, ''],
      [0, ''],
    ]);
    expect(existsSync(join(h.home, LOCK_DIR))).toBe(false); // nobody took the lock to try again
    expect(starts(h)).toBe(1);
    // doctor names it, with the reason
    const { HOOKMAP_ATTENTION_TIMEOUT_MS: _, ...fixed } = h.env;
    const doc = await runCli(['doctor', 'claude-code'], fixed, 20_000);
    expect(doc.stdout).toMatch(/start on demand failed .*HOOKMAP_ATTENTION_TIMEOUT_MS/);
    // past the back-off, the next hook tries again (and fails again, the config is still broken)
    const old = (Date.now() - 6 * 60_000) / 1000;
    utimesSync(join(h.home, BACKOFF_FILE), old, old);
    expect((await fireSh(h, 'SessionStart', 's4')).code).toBe(0);
    await until('a second start', () => starts(h) === 2 && !existsSync(join(h.home, LOCK_DIR)), 25_000);
    expect(readBackoff(h.home)!.active).toBe(true);
  });

  it('HOOKMAP_AUTOSTART=0 and setup --no-autostart start nothing', async () => {
    const h = await wiredHome('off');
    for (const env of [{ ...h.env, HOOKMAP_AUTOSTART: '0' }]) {
      expect((await fireSh(h, 'SessionStart', 's1', env)).code).toBe(0);
      expect((await runProcess(process.execPath, [BIN, 'hook', 'claude-code', 'SessionStart'], payload('SessionStart', 's1'), env)).code).toBe(0);
    }
    // the lock is taken by the shim itself before it exits: none means no start was tried
    expect(existsSync(join(h.home, LOCK_DIR))).toBe(false);
    expect(existsSync(join(h.home, UP_LOG))).toBe(false);
    const setup = await runCli(['setup', 'claude-code', '--no-autostart'], h.env);
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toMatch(/autostart: off/);
    expect(existsSync(join(h.home, OFF_FILE))).toBe(true);
    expect((await fireSh(h, 'SessionStart', 's2')).code).toBe(0);
    expect((await fireNode(h, 'SessionStart', 's2')).code).toBe(0);
    expect(existsSync(join(h.home, LOCK_DIR))).toBe(false);
    expect(existsSync(join(h.home, UP_LOG))).toBe(false);
    const on = await runCli(['setup', 'claude-code', '--autostart'], h.env);
    expect(on.stdout).toMatch(/autostart: on: a hook that finds no hookmap up at http:\/\/127\.0\.0\.1:\d+ starts one/);
    expect(existsSync(join(h.home, OFF_FILE))).toBe(false);
  });

  it('a plugin (in its host process) that finds no daemon starts up through the launcher; the held moment gets the neutral result', async () => {
    const h = await wiredHome('plugin');
    const d = loadVendor('opencode');
    const mod = await importPlugin(d, h.home, { HOOKMAP_URL: h.url });
    const handlers = await hostHandlers(d, mod, {});
    const output = { status: 'ask' };
    await withEnv({ HOOKMAP_HOME: h.home, HOOKMAP_AUTOSTART: '1' }, async () => {
      expect(await handlers.get('permission.ask')!({ id: 'p', type: 'bash', sessionID: 's' }, output)).toBeUndefined();
    });
    expect(output).toEqual({ status: 'ask' });
    await upStarted(h);
    expect(starts(h)).toBe(1);
  });

  it.each(['sh', 'node'] as const)(
    'a %s hook that finds a start under way (the lock) waits for it and reaches the daemon, instead of failing open too; HOOKMAP_AUTOSTART=0 does not wait',
    async (kind) => {
      const h = await wiredHome(`wait-for-start-${kind}`);
      const fire = (hook: string, session: string, env: NodeJS.ProcessEnv = h.env) =>
        kind === 'sh' ? fireSh(h, hook, session, env) : runProcess(process.execPath, [BIN, 'hook', 'claude-code', hook], payload(hook, session), env);
      expect(takeLock(h.home)).toBe(true); // the first hook's start, under way
      const port = Number(new URL(h.url).port);
      const { bodies, server } = recordingServer('{"ok":true}');
      // the started daemon listens a little later, then the start releases its lock
      const later = setTimeout(() => server.listen(port, '127.0.0.1', () => rmSync(join(h.home, LOCK_DIR), { recursive: true, force: true })), 700);
      try {
        const r = await fire('UserPromptSubmit', 'wait-1');
        expect(r.code).toBe(0);
        expect(bodies).toHaveLength(1);
        expect(JSON.parse(bodies[0]).session_id).toBe('wait-1');
        expect(existsSync(join(h.home, 'failed-open.log'))).toBe(false);
        // turned off for the firing: no wait, fail-open at once (nothing listens now)
        await new Promise<void>((r2) => server.close(() => r2()));
        expect(takeLock(h.home)).toBe(true);
        const t0 = Date.now();
        const off = await fire('UserPromptSubmit', 'wait-2', { ...h.env, HOOKMAP_AUTOSTART: '0' });
        expect(off.code).toBe(0);
        expect(Date.now() - t0).toBeLessThan(5_000);
        expect(bodies).toHaveLength(1);
      } finally {
        clearTimeout(later);
        server.close();
      }
    },
  );

  it('a plugin moment that finds a start under way (the lock) waits for it and reaches the daemon; HOOKMAP_AUTOSTART=0 does not wait', async () => {
    const h = await wiredHome('wait-for-start-plugin');
    const d = loadVendor('opencode');
    const mod = await importPlugin(d, h.home, { HOOKMAP_URL: h.url });
    const handlers = await hostHandlers(d, mod, {});
    const port = Number(new URL(h.url).port);
    const { bodies, server } = recordingServer('{}');
    const moment = (id: string) => handlers.get('tool.execute.before')!({ tool: 'bash', sessionID: id, callID: id }, { args: { command: 'ls' } });
    try {
      await withEnv({ HOOKMAP_HOME: h.home, HOOKMAP_AUTOSTART: '1' }, async () => {
        expect(takeLock(h.home)).toBe(true); // the first moment's start, under way
        // the started daemon listens a little later (well past the moment's own 1.5 s bound), then the start releases its lock
        const later = setTimeout(() => server.listen(port, '127.0.0.1', () => rmSync(join(h.home, LOCK_DIR), { recursive: true, force: true })), 2500);
        try {
          // the host is not kept waiting by an ordinary moment: it goes out through the plugin's queue
          expect(await moment('wait-1')).toBeUndefined();
          await until('the moment reached the daemon once it listened', () => bodies.length === 1, 10_000);
          expect(JSON.parse(bodies[0]).input.sessionID).toBe('wait-1');
        } finally {
          clearTimeout(later);
        }
      });
      // turned off for the host: no wait, the moment is dropped at once (nothing listens now), nothing is started
      await new Promise<void>((r) => server.close(() => r()));
      await withEnv({ HOOKMAP_HOME: h.home, HOOKMAP_AUTOSTART: '0' }, async () => {
        expect(takeLock(h.home)).toBe(true);
        const t0 = Date.now();
        // a held moment: the host waits for it
        const output = { status: 'ask' };
        expect(await handlers.get('permission.ask')!({ id: 'p', type: 'bash', sessionID: 'wait-2' }, output)).toBeUndefined();
        expect(Date.now() - t0).toBeLessThan(2_000);
        expect(output).toEqual({ status: 'ask' });
      });
      expect(bodies).toHaveLength(1);
      expect(starts(h)).toBe(0);
    } finally {
      server.close();
    }
  });

  it('a lock left by a start that died is broken once it is stale, a fresh one is respected', () => {
    const home = mkdtempSync(join(tmp, 'lock-'));
    expect(takeLock(home)).toBe(true);
    expect(takeLock(home)).toBe(false);
    const old = (Date.now() - 2 * 60_000) / 1000;
    utimesSync(join(home, LOCK_DIR), old, old);
    expect(takeLock(home)).toBe(true);
    expect(takeLock(home)).toBe(false);
  });
});

/** A stand-in daemon (not listening yet) that answers every POST with `reply` and keeps the bodies. */
function recordingServer(reply: string) {
  const bodies: string[] = [];
  const server = createHttpServer((req, res) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => {
      bodies.push(b);
      res.setHeader('content-type', 'application/json');
      res.end(reply);
    });
  });
  return { bodies, server };
}
