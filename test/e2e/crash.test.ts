// Crash safety: a `hookmap serve` child is SIGKILLed mid-session (while its
// relay is down and firings are in flight), then restarted. No event whose
// firing was acknowledged to the agent is missing from the log, the epoch
// bumps, positions stay monotonic, and the (restarted) relay receives what
// the first relay never saw.
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { createRelay, type Relay } from '../../engine/runtime/relay/index.ts';
import { validateStream } from '../../engine/core/validate/index.ts';
import { readLogs, tempDir, until } from '../runtime/daemon/helpers.ts';

const TOKEN = 'crash-token';
const SESSION = 'crash-s1';
const children: ChildProcess[] = [];
const relays: Relay[] = [];
const tmp = tempDir('hookmap-crash-');
/** What a shim sends: JSON and the home's hook key (serve created it in HOOKMAP_HOME). */
const keyed = () => ({ 'content-type': 'application/json', ...hookKeyHeaders(tmp.dir) });

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const r of relays) await r.close().catch(() => {});
  tmp.done();
});

async function relayOn(port: number) {
  const relay = createRelay({ port, token: TOKEN });
  relays.push(relay);
  const { port: bound, url } = await relay.listen();
  const seen: any[] = [];
  relay.subscribe({ from: 'all' }, (ev) => seen.push(ev));
  return { relay, port: bound, url, seen };
}

/** `node bin/hookmap.mjs serve codex ...` as a child; resolves with its base URL (first stdout line). */
function serveChild(relayUrl: string): Promise<{ child: ChildProcess; url: string }> {
  return serveChildIn(relayUrl, join(tmp.dir, 'codex'));
}

function serveChildIn(relayUrl: string, logDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/hookmap.mjs'), 'serve', 'codex', '--port', '0', '--relay', relayUrl, '--token', TOKEN, '--log-dir', logDir],
    {
      env: { ...process.env, HOOKMAP_HOME: tmp.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ child, url: line.trim() });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code} before listening: ${err}`)));
  });
}

const pre = (call: string) =>
  JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: SESSION,
    turn_id: 't1',
    tool_name: 'Bash',
    tool_input: { command: `echo ${call}` },
    tool_use_id: call,
  });
const callsIn = (evs: any[]) => new Set(evs.filter((e) => e.type === 'tool.requested').map((e) => e.data?.tool?.call_id));

describe('SIGKILL mid-session', () => {
  it('loses no acknowledged event, bumps the epoch, and the relay gets the rest after reconnect', async () => {
    let r = await relayOn(0);
    const port = r.port;
    const first = await serveChild(r.url);
    const health = (url: string) =>
      fetch(`${url}/healthz`)
        .then((x) => x.json())
        .then(
          (j) => j.relay,
          () => false,
        );
    await until('the first hello', () => health(first.url));
    const fire = (url: string, call: string) => fetch(`${url}/hooks/codex`, { method: 'POST', headers: keyed(), body: pre(call) });

    const acked: string[] = [];
    for (const c of ['c1', 'c2', 'c3']) {
      const res = await fire(first.url, c);
      expect(res.status).toBe(200);
      acked.push(c);
    }
    await until('c1..c3 at the first relay', () => ['c1', 'c2', 'c3'].every((c) => callsIn(r.seen).has(c)));

    await r.relay.close(); // the relay goes away...
    await until('the daemon to notice', async () => !(await health(first.url)));
    for (const c of ['c4', 'c5', 'c6']) {
      const res = await fire(first.url, c); // ...so these are only in the log
      expect(res.status).toBe(200);
      acked.push(c);
    }
    // firings in flight when the daemon dies: only the ones answered count as acknowledged
    const inflight = Array.from({ length: 30 }, (_, i) => `f${i}`);
    const answered = inflight.map((c) =>
      fire(first.url, c).then(
        (res) => (res.status === 200 ? c : undefined),
        () => undefined,
      ),
    );
    await Promise.race(answered);
    first.child.kill('SIGKILL');
    await new Promise((res) => first.child.once('exit', res));
    for (const c of await Promise.all(answered)) if (c) acked.push(c);

    const logDir = join(tmp.dir, 'codex');
    const before = readLogs(logDir);
    const loggedCalls = callsIn(before);
    expect(acked.filter((c) => !loggedCalls.has(c))).toEqual([]);
    const epoch0 = before[0].epoch;

    r = await relayOn(port);
    const second = await serveChild(r.url);
    await until('the second hello', () => health(second.url));
    const res = await fire(second.url, 'after');
    expect(res.status).toBe(200);

    const after = readLogs(logDir);
    const restarted = after.find((e: any) => e.data?.tool?.call_id === 'after')!;
    expect(restarted.epoch).toBe(epoch0! + 1);
    expect(validateStream(after)).toEqual([]); // (epoch, seq) never regresses, no position reused
    // the new relay sees what the first one missed (c4.. and the in-flight ones), then the new events
    const missed = [...loggedCalls].filter((c) => !['c1', 'c2', 'c3'].includes(c));
    await until('the rest at the restarted relay', () => [...missed, 'after'].every((c) => callsIn(r.seen).has(c)));
    second.child.kill('SIGTERM');
    await new Promise((res2) => second.child.once('exit', res2));
    expect(second.child.exitCode).toBe(0);
  }, 90_000);

  it('closes a request that was held when the daemon died (one terminal per request)', async () => {
    const r = await relayOn(0);
    const logDir = join(tmp.dir, 'codex-held');
    const start = () => serveChildIn(r.url, logDir);
    const first = await start();
    await until('the hello', () =>
      fetch(`${first.url}/healthz`)
        .then((x) => x.json())
        .then(
          (j) => j.relay,
          () => false,
        ),
    );
    const held = fetch(`${first.url}/hooks/codex`, {
      method: 'POST',
      headers: keyed(),
      body: JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: 'held-s1',
        turn_id: 't1',
        tool_name: 'Bash',
        tool_input: { command: 'touch x' },
      }),
    }).catch(() => undefined);
    const request = await until('the held request', () => readLogs(logDir).find((e: any) => e.type === 'attention.requested'));
    first.child.kill('SIGKILL');
    await new Promise((res) => first.child.once('exit', res));
    await held;
    const second = await start();
    const closed = await until('the orphan closed', () => readLogs(logDir).find((e: any) => e.type === 'attention.resolved' && e.cause === request.id));
    expect(closed.data?.resolution).toBe('dismissed');
    expect(validateStream(readLogs(logDir))).toEqual([]);
    second.child.kill('SIGTERM');
    await new Promise((res) => second.child.once('exit', res));
  }, 60_000);
});
