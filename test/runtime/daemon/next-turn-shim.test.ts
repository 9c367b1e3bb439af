// The next-turn carrier end to end below the agent: the generated sh shim in
// its waiter mode (`<shim> next-turn`, what `hookmap setup claude-code`
// registers as the background asyncRewake Stop handler), and the Node shim's
// (`hookmap hook claude-code next-turn`, setup --shim node), against the real
// daemon behind the real routes. An idle session's instruction comes out on
// stderr with exit 2 (Claude Code's wake signal) and is reported delivered;
// a waiter killed while it waits, or a daemon that is down, delivers nothing
// and loses nothing; setup writes the background handler beside the Stop one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon, type Timers } from '../../../engine/runtime/daemon/daemon.ts';
import { ACK_WINDOW_MS } from '../../../engine/runtime/daemon/next-turn.ts';
import { registerHookRoutes } from '../../../engine/runtime/daemon/http.ts';
import { loadVendor, ROOT } from '../../../engine/core/descriptor/registry.ts';
import type { AepEvent } from '../../../engine/core/map/envelope.ts';
import { registrations } from '../../../engine/runtime/setup/registrations.ts';
import { planFor } from '../../../engine/runtime/shim/generate.ts';
import { renderShShim } from '../../../engine/runtime/shim/sh.ts';
import { MemoryLink, instructCommand } from './helpers.ts';

const d = loadVendor('claude-code');
let dir: string;
let daemon: Daemon;
let app: FastifyInstance;
let url: string;
let shim: string;
const events: AepEvent[] = [];
const spawned: number[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hookmap-next-turn-'));
  // the ack window shortened (an orphaned waiter gives its instruction back sooner); every other timer as is
  const timers: Timers = { set: (fn, ms) => setTimeout(fn, ms === ACK_WINDOW_MS ? 300 : ms), clear: (h) => clearTimeout(h as NodeJS.Timeout) };
  daemon = Daemon.open({ descriptor: d, logDir: join(dir, 'log'), config: { instruct: true, next_turn: true }, timers, onEvent: (e) => events.push(e) });
  daemon.attach(new MemoryLink(), true);
  app = Fastify();
  registerHookRoutes(app, { daemons: new Map([[d.vendor, daemon]]) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  shim = join(dir, 'claude-code.sh');
  writeFileSync(shim, renderShShim(planFor(d, { home: dir, url })), { mode: 0o755 });
});
afterAll(async () => {
  for (const pid of spawned) {
    try {
      process.kill(-pid, 'SIGKILL'); // the group: an orphaned curl too
    } catch {}
  }
  await daemon.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const payload = (hook: string, session: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ hook_event_name: hook, session_id: session, transcript_path: '/tmp/t.jsonl', cwd: '/w', permission_mode: 'default', ...extra });
const fire = (hook: string, session: string, extra: Record<string, unknown> = {}) => daemon.handle({ body: payload(hook, session, extra) });
const instruct = (text: string, session = 's1'): AepEvent => instructCommand(text, session);

const BIN = join(ROOT, 'bin', 'hookmap.mjs');
type Kind = 'sh' | 'node';
let kind: Kind = 'sh';

/** The TUI's hook environment (Claude Code 2.1.328: CLAUDE_CODE_SESSION_ATTENDED=1; print mode sets 0). */
const ATTENDED = { CLAUDE_CODE_SESSION_ATTENDED: '1' };

function waiter(session: string, env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOOKMAP_URL: url, ...ATTENDED }) {
  const argv = kind === 'sh' ? [shim, 'next-turn'] : [BIN, 'hook', 'claude-code', 'next-turn'];
  const p = spawn(kind === 'sh' ? 'sh' : process.execPath, argv, {
    env: { HOOKMAP_HOME: join(dir, 'home'), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  spawned.push(p.pid!);
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (c) => (stdout += c));
  p.stderr.on('data', (c) => (stderr += c));
  p.stdin.on('error', () => {}); // a waiter that exits at once (nobody at the prompt) never reads its stdin: EPIPE is expected
  p.stdin.end(payload('Stop', session, { stop_hook_active: false }));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((r) => p.on('close', (code) => r({ code, stdout, stderr })));
  return { p, done };
}

async function idle(session: string) {
  await fire('SessionStart', session, { source: 'startup' });
  await fire('UserPromptSubmit', session, { prompt: 'go' });
  await fire('Stop', session, { stop_hook_active: false });
}

/** Until `check` holds (the waiter's request reaching the daemon is outside the test's control). */
async function until(check: () => boolean, ms = 5000) {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
const waiting = (session: string) => (daemon as any).commands.nextTurn.waiting(session) as boolean;
const delivered = (cmd: AepEvent) => events.filter((e) => e.type === 'x.claude-code.instruction.delivered' && e.cause === cmd.id);

describe.each(['sh', 'node'] as const)('the %s shim as a next-turn waiter', (k) => {
  beforeAll(() => void (kind = k));
  const S = (n: number) => `nt-${k}-${n}`;
  it('an idle session: the text on stderr, exit 2, stdout empty; delivered with carrier next-turn', async () => {
    await idle(S(1));
    const w = waiter(S(1));
    await until(() => waiting(S(1)));
    const c = instruct("Now update the changelog (it's 'quoted' $HOME `x`)", S(1));
    await daemon.onCommand(c);
    const r = await w.done;
    expect(r).toEqual({ code: 2, stdout: '', stderr: "Now update the changelog (it's 'quoted' $HOME `x`)" });
    await until(() => delivered(c).length === 1);
    expect(delivered(c)[0].data).toMatchObject({ carrier: 'next-turn' });
  });

  it('a waiter whose shim is killed while it waits (sh: its curl orphaned) wakes nothing, and the instruction comes back for the next carrier', async () => {
    await idle(S(2));
    const w = waiter(S(2));
    await until(() => waiting(S(2)));
    w.p.kill('SIGKILL'); // what an agent's hook timeout does: the shim dies (sh: its curl lives on and still reads the reply; node: gone)
    await w.done;
    const c = instruct('still here after the kill', S(2));
    await daemon.onCommand(c);
    await until(() => !waiting(S(2))); // the orphan took it, but nobody acks: nothing printed, nothing delivered
    await daemon.flush();
    expect(delivered(c)).toEqual([]);
    await until(() => (daemon as any).commands.queue.list(S(2)).length === 1, 10_000); // the ack window passed: queued again
    const again = await waiter(S(2)).done;
    expect([again.code, again.stderr]).toEqual([2, 'still here after the kill']);
    await until(() => delivered(c).length === 1);
  });

  it('an ack the daemon refuses (already delivered, or requeued) makes the waiter exit 0 with no bytes', async () => {
    await idle(S(5));
    const w = waiter(S(5));
    await until(() => waiting(S(5)));
    const nt = (daemon as any).commands.nextTurn;
    const ack = nt.acknowledge.bind(nt);
    nt.acknowledge = () => false; // the window passed just before the ack arrived
    try {
      await daemon.onCommand(instruct('too late', S(5)));
      expect(await w.done).toEqual({ code: 0, stdout: '', stderr: '' });
    } finally {
      nt.acknowledge = ack;
    }
  });

  it('a session end releases the waiter: exit 0, no bytes', async () => {
    await idle(S(3));
    const w = waiter(S(3));
    await until(() => waiting(S(3)));
    await fire('SessionEnd', S(3), { reason: 'exit' });
    expect(await w.done).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('the daemon down: exit 0 at once, no bytes (the agent is never held)', async () => {
    const r = await waiter(S(4), { PATH: process.env.PATH, HOOKMAP_URL: 'http://127.0.0.1:1', HOOKMAP_AUTOSTART: '0', ...ATTENDED }).done;
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('nobody at the prompt (print mode: CLAUDE_CODE_SESSION_ATTENDED=0, or unset): exit 0 at once, no waiter, the instruction stays queued', async () => {
    await idle(S(6));
    for (const attended of ['0', undefined]) {
      const t0 = Date.now();
      const env = { PATH: process.env.PATH, HOOKMAP_URL: url, ...(attended ? { CLAUDE_CODE_SESSION_ATTENDED: attended } : {}) };
      expect(await waiter(S(6), env).done).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(waiting(S(6))).toBe(false);
    }
    const c = instruct('for a later turn', S(6));
    await daemon.onCommand(c);
    await daemon.flush();
    expect((daemon as any).commands.queue.list(S(6)).length).toBe(1);
    expect(delivered(c)).toEqual([]);
  });
});

describe('the waiter routes', () => {
  it('hostile requests on the waiter routes get neutral bytes or a refusal, never text', async () => {
    const post = (path: string, body = '{}') => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const unknown = await post('/next-turn/nope', payload('Stop', 'nt-h'));
    expect([unknown.status, unknown.headers.get('x-hookmap-exit'), unknown.headers.get('x-hookmap-error'), await unknown.text()]).toEqual([
      200,
      '0',
      'unknown-agent',
      '',
    ]);
    const extra = await post('/next-turn/claude-code/more/segments', payload('Stop', 'nt-h'));
    expect([extra.headers.get('x-hookmap-exit'), extra.headers.get('x-hookmap-error'), await extra.text()]).toEqual(['0', 'bad-hook-path', '']);
    const badToken = await post('/next-turn/claude-code/ack/not-a-token');
    expect([badToken.headers.get('x-hookmap-error'), await badToken.text()]).toEqual(['bad-hook-path', '']);
    expect((await post(`/next-turn/claude-code/ack/${'a'.repeat(32)}`)).status).toBe(409); // no such waiter in flight
    expect((await post(`/next-turn/claude-code/nack/${'a'.repeat(32)}`)).status).toBe(409); // nor a refusal of one
    const badNack = await post('/next-turn/claude-code/nack/../ack');
    expect([badNack.headers.get('x-hookmap-error'), await badNack.text()]).toEqual(['bad-hook-path', '']);
    const other = await post(`/next-turn/claude-code/deliver/${'a'.repeat(32)}`);
    expect([other.headers.get('x-hookmap-error'), await other.text()]).toEqual(['bad-hook-path', '']);
    const junk = await post('/next-turn/claude-code', '{not json');
    expect([junk.headers.get('x-hookmap-exit'), await junk.text()]).toEqual(['0', '']);
  });

  it('setup registers the waiter as a second, background Stop handler of the shim (sh, or node)', () => {
    const regs = registrations(d, { shim: 'sh', shPath: '/h/shims/claude-code.sh', nodeCommand: ['hookmap'], baseUrl: url }).filter((r) => r.hook === 'Stop');
    expect(regs.map((r) => [r.target, r.fields])).toEqual([
      ['/h/shims/claude-code.sh Stop', undefined],
      ['/h/shims/claude-code.sh next-turn', { asyncRewake: true }],
    ]);
    const node = registrations(d, { shim: 'node', shPath: '', nodeCommand: ['/usr/bin/node', '/h/bin/hookmap.mjs'], baseUrl: url }).filter(
      (r) => r.hook === 'Stop',
    );
    expect(node.map((r) => [r.target, r.fields])).toEqual([
      ['/usr/bin/node /h/bin/hookmap.mjs hook claude-code Stop', undefined],
      ['/usr/bin/node /h/bin/hookmap.mjs hook claude-code next-turn', { asyncRewake: true }],
    ]);
    // its timeout outlasts the daemon's wait (the daemon releases it first)
    expect(regs[1].timeoutMs).toBeGreaterThan(d.commands.get('x.claude-code.control.instruct')!.nextTurn!.waitMs);
  });
});
