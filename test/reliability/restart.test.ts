// Durable resume across restarts of `hookmap up` (the embedded default): a
// stream of acknowledged hook firings, `up` killed mid-stream (SIGKILL, then
// SIGTERM) and started again on the same port, and a subscriber that
// resumes by position. Every acknowledged event reaches the subscriber
// exactly once after dedupe on id: the restarted relay refills its replay
// buffer from the daemons' session logs, so nothing the old relay held (or
// never got) is lost. Subscribers: hookmap's own resuming WebSocket client
// (engine/runtime/relay/client.ts) and `hookmap tail` (SSE).
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { subscribeResuming, type ResumeNotice } from '../../engine/runtime/relay/client.ts';
import { readLogs, tempDir, until } from '../runtime/daemon/helpers.ts';

const TOKEN = 'restart-token';
const tmp = tempDir('hookmap-restart-');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  tmp.done();
});

const BIN = join(ROOT, 'bin/hookmap.mjs');

function upChild(home: string, port: number): Promise<{ child: ChildProcess; url: string }> {
  mkdirSync(home, { recursive: true });
  const cfg = join(home, 'up.yaml');
  writeFileSync(cfg, 'agents: [codex]\n');
  const child = spawn(process.execPath, [BIN, 'up', '--port', String(port), '--token', TOKEN, '--config', cfg], {
    env: { ...process.env, HOOKMAP_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve({ child, url: out.split('\n')[0].trim() });
    });
    child.once('exit', (code) => reject(new Error(`up exited ${code} before listening: ${err}`)));
  });
}

/** Fires PreToolUse hooks back to back over 3 sessions; `acked` holds the call ids answered 200 without an error. */
function producer(getUrl: () => string, home: string) {
  const acked: string[] = [];
  let n = 0;
  let stop = false;
  const loops = Array.from({ length: 3 }, async () => {
    while (!stop) {
      const call = `c${++n}`;
      const body = JSON.stringify({
        hook_event_name: 'PreToolUse',
        session_id: `rs-${n % 3}`,
        turn_id: 't1',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_use_id: call,
      });
      try {
        // as a shim: the home's hook key (up created it), read per firing
        const r = await fetch(`${getUrl()}/hooks/codex`, { method: 'POST', headers: { 'content-type': 'application/json', ...hookKeyHeaders(home) }, body });
        await r.text();
        if (r.status === 200 && !r.headers.get('x-hookmap-error')) acked.push(call);
      } catch {
        await new Promise((res) => setTimeout(res, 20)); // `up` is down: not acknowledged
      }
    }
  });
  return {
    acked,
    stop: async () => {
      stop = true;
      await Promise.all(loops);
    },
  };
}

const exited = (c: ChildProcess) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)));

interface Watcher {
  got: Map<string, number>;
  notices: string[];
  stop(): Promise<void>;
}

/** hookmap's resuming WebSocket client; `from`: positions to resume from (a second run), else live. */
async function clientWatcher(
  url: string,
  from?: { session: string; epoch: number; seq: number }[],
): Promise<Watcher & { positions: () => { session: string; epoch: number; seq: number }[] }> {
  const got = new Map<string, number>();
  const notices: string[] = [];
  const sub = subscribeResuming({
    url,
    token: TOKEN,
    from,
    onEvent: (ev: any) => {
      if (ev.type === 'tool.requested') got.set(ev.data.tool.call_id, (got.get(ev.data.tool.call_id) ?? 0) + 1);
    },
    onNotice: (n: ResumeNotice) => notices.push(n.kind),
  });
  await until('the client connected', () => notices.includes('connected'));
  return { got, notices, stop: () => sub.close(), positions: () => sub.state.list() };
}

/** `hookmap tail --json` as a child, resuming from its state file. */
async function tailWatcher(url: string, state: string): Promise<Watcher> {
  const got = new Map<string, number>();
  const notices: string[] = [];
  const tail = spawn(process.execPath, [BIN, 'tail', '--json', '--url', url, '--token', TOKEN, '--state', state], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(tail);
  let buf = '';
  tail.stdout!.on('data', (c) => {
    buf += c;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const ev = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (ev.type === 'tool.requested') got.set(ev.data.tool.call_id, (got.get(ev.data.tool.call_id) ?? 0) + 1);
    }
  });
  tail.stderr!.on('data', (c) => notices.push(String(c)));
  await until('tail subscribed', () => notices.length > 0 || got.size > 0 || tail.exitCode !== null, 2_000).catch(() => undefined);
  return {
    got,
    notices,
    stop: async () => {
      tail.kill('SIGTERM');
      await exited(tail);
    },
  };
}

const merged = (...ws: Watcher[]) => {
  const all = new Map<string, number>();
  for (const w of ws) for (const [k, n] of w.got) all.set(k, (all.get(k) ?? 0) + n);
  return all;
};

/**
 * Two watchers: one stays connected through the restart (its reconnect
 * path), one is offline around it (stopped before the kill, started again
 * afterwards from its saved positions), the case where only the refilled
 * buffer can supply what the old relay held and the daemons had already
 * seen confirmed.
 */
async function scenario(signal: 'SIGKILL' | 'SIGTERM', kind: 'client' | 'tail') {
  const home = join(tmp.dir, signal);
  let up = await upChild(home, 0);
  const port = Number(new URL(up.url).port);
  const url = up.url;
  const state = join(home, 'tail-state.json');
  const live = kind === 'client' ? await clientWatcher(url) : await tailWatcher(url, join(home, 'tail-live.json'));
  const away = kind === 'client' ? await clientWatcher(url) : await tailWatcher(url, state);
  await until('both watching', async () => (await (await fetch(`${url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).subscribers >= 2);
  const p = producer(() => url, home);
  await until('a stream under way', () => p.acked.length >= 100);
  await away.stop(); // offline from here on
  const awayFrom = 'positions' in away ? (away as Awaited<ReturnType<typeof clientWatcher>>).positions() : undefined;
  await until('more while it is away', () => p.acked.length >= 250);
  up.child.kill(signal);
  await exited(up.child);
  const before = p.acked.length;
  up = await upChild(home, port);
  await until('firings acknowledged after the restart', () => p.acked.length >= before + 150, 30_000);
  await p.stop();
  const back = kind === 'client' ? await clientWatcher(url, awayFrom) : await tailWatcher(url, state);
  const missing = (w: Map<string, number>) => p.acked.filter((c) => !w.has(c));
  await until('every acknowledged event delivered', () => missing(live.got).length === 0 && missing(merged(away, back)).length === 0, 30_000).catch(
    () => undefined,
  );
  // the watcher that stayed connected: every acknowledged event, exactly once
  expect(missing(live.got)).toEqual([]);
  expect([...live.got].filter(([, n]) => n > 1)).toEqual([]);
  // the one that was away: its two runs together, every acknowledged event exactly once
  const both = merged(away, back);
  expect(missing(both)).toEqual([]);
  expect([...both].filter(([, n]) => n > 1)).toEqual([]);
  // it said it resumed
  expect(live.notices.join('\n')).toMatch(
    kind === 'client' ? /disconnected/ : /(reconnecting to resume|resuming where this stopped)[^]*connected again; resuming from/,
  );
  // nothing delivered that the log does not hold
  const logged = new Set(
    readLogs(join(home, 'logs', 'codex'))
      .filter((e) => e.type === 'tool.requested')
      .map((e: any) => e.data.tool.call_id),
  );
  expect([...live.got.keys()].filter((c) => !logged.has(c))).toEqual([]);
  await live.stop();
  await back.stop();
  up.child.kill('SIGTERM');
  await exited(up.child);
  return { acked: p.acked.length };
}

describe('durable resume across restarts of hookmap up', () => {
  it("SIGKILL mid-stream: hookmap's resuming client, connected through it or away, gets every acknowledged event exactly once", async () => {
    const r = await scenario('SIGKILL', 'client');
    expect(r.acked).toBeGreaterThanOrEqual(300);
  }, 120_000);

  it('SIGTERM mid-stream: hookmap tail, running through it or re-run from its state file, prints every acknowledged event exactly once', async () => {
    const r = await scenario('SIGTERM', 'tail');
    expect(r.acked).toBeGreaterThanOrEqual(300);
  }, 120_000);
});
