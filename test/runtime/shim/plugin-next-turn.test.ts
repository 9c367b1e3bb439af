// The next-turn carrier of the generated plugins (engine/runtime/shim/plugin/next-turn.ts,
// `shim.plugin.next_turn`): the generated file loaded the way its host loads it,
// against the REAL daemon behind the real hook routes (instruct + next_turn on).
// The host's way in (OpenCode's client.session.promptAsync, pi's
// sendUserMessage) is a stand-in: it is the one thing a Node test cannot run
// for real (test/live drives the real agents). Pinned: delivered only after
// the host call resolved; a failing call gives the text back at once (not lost,
// not twice); a session end drops what waits; two waiters deliver once; a daemon
// that is down costs one refused POST, no throw, no loop. The daemon's routes are
// mounted behind the hook guard as `hookmap up` mounts them, the home's hook key
// required: the plugin reads it from HOOKMAP_HOME for every post, waiter, ack and
// nack; a plugin of another home is refused and its host never called.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { installHookGuard } from '../../../engine/runtime/daemon/hook-guard.ts';
import { registerHookRoutes } from '../../../engine/runtime/daemon/http.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import type { Descriptor } from '../../../engine/core/descriptor/types.ts';
import type { AepEvent } from '../../../engine/core/map/envelope.ts';
import { MemoryLink, instructCommand } from '../daemon/helpers.ts';
import { busContext, hostHandlers, importPlugin } from './plugin-harness.ts';
import { ensureHookKey } from '../../../engine/runtime/auth/hook-key.mjs';

const dir = mkdtempSync(join(tmpdir(), 'hookmap-plugin-nt-'));
// the home the plugin runs in (its host's environment; vitest gives this file its own process)
const home = join(dir, 'home');
const hookKey = ensureHookKey(home).key;
const wasHome = process.env.HOOKMAP_HOME;
process.env.HOOKMAP_HOME = home;
afterAll(() => {
  if (wasHome === undefined) delete process.env.HOOKMAP_HOME;
  else process.env.HOOKMAP_HOME = wasHome;
  rmSync(dir, { recursive: true, force: true });
});
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function liveDaemon(d: Descriptor, config: Record<string, unknown> = { instruct: true, next_turn: true }) {
  const events: AepEvent[] = [];
  const daemon = Daemon.open({ descriptor: d, logDir: mkdtempSync(join(dir, 'log-')), config, onEvent: (e) => events.push(e), say: () => {} });
  daemon.attach(new MemoryLink(), true);
  const app = Fastify();
  const daemons = new Map([[d.vendor, daemon]]);
  // as `hookmap up` mounts them: the guard (loopback, JSON bodies only: a bodiless ack was refused live) before the routes
  installHookGuard(app, { daemons, hookKey });
  registerHookRoutes(app, { daemons });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  cleanups.push(async () => {
    await daemon.close();
    await app.close();
  });
  const of = (kind: string) => events.filter((e) => e.type === `x.${d.vendor}.instruction.${kind}`);
  return { url, events, daemon, of };
}

const until = async (ok: () => boolean, ms = 4000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A host call the test settles by hand. */
function handCall() {
  const calls: unknown[][] = [];
  const settle: ((v: { ok: boolean; value?: unknown }) => void)[] = [];
  const fn = (...args: unknown[]) => {
    calls.push(args);
    return new Promise((resolve, reject) => settle.push((v) => (v.ok ? resolve(v.value) : reject(new Error('host refused')))));
  };
  return { calls, fn, settle: (i: number, v: { ok: boolean; value?: unknown }) => settle[i](v) };
}

const SID = 'ses_nt1';
const bus = (type: string, properties: Record<string, unknown>) => ({ event: { id: `evt_${type}`, type, properties } });

/** An OpenCode plugin instance whose SDK client is `promptAsync`. */
async function opencodePlugin(url: string, promptAsync: (...a: unknown[]) => unknown) {
  const d = loadVendor('opencode');
  const mod = await importPlugin(d, dir, { HOOKMAP_URL: url, HOOKMAP_AUTOSTART: '0' });
  const h = await hostHandlers(d, mod, { client: { session: { promptAsync } }, serverUrl: new URL('http://127.0.0.1:9') });
  const event = h.get('event')!;
  return {
    start: async () => {
      await event(bus('session.created', { info: { id: SID, version: '1.18.33', title: 't', directory: '/w' } }));
      await event(bus('message.updated', { info: { id: 'msg_1', role: 'user', sessionID: SID } }));
    },
    idle: () => event(bus('session.idle', { sessionID: SID })),
    deleted: () => event(bus('session.deleted', { info: { id: SID } })),
    event,
  };
}

describe('OpenCode: the plugin waiter calls client.session.promptAsync', () => {
  it('delivered only once the host call resolved, with the text as a user message part', async () => {
    const live = await liveDaemon(loadVendor('opencode'));
    const host = handCall();
    const p = await opencodePlugin(live.url, host.fn);
    await p.start();
    await p.idle();
    await until(() => live.events.some((e) => e.type === 'run.finished'));
    await sleep(100); // the waiter is parked on the daemon
    await live.daemon.onCommand(instructCommand('Now write the changelog', SID, 'opencode'));
    await until(() => host.calls.length === 1);
    expect(host.calls[0]).toEqual([{ path: { id: SID }, body: { parts: [{ type: 'text', text: 'Now write the changelog' }] } }]);
    await sleep(150);
    expect(live.of('delivered')).toHaveLength(0); // taken, not yet delivered
    host.settle(0, { ok: true, value: { data: undefined, response: { ok: true, status: 204 } } });
    await until(() => live.of('delivered').length === 1);
    expect(live.of('delivered')[0].data).toMatchObject({ carrier: 'next-turn' });
    await sleep(150);
    expect(host.calls).toHaveLength(1);
  });

  it('a plugin in another home (another key): its moments and waiter are refused, the steer stays queued, the host never called', async () => {
    const live = await liveDaemon(loadVendor('opencode'));
    const host = handCall();
    const other = join(dir, 'other-home');
    ensureHookKey(other);
    process.env.HOOKMAP_HOME = other;
    try {
      const p = await opencodePlugin(live.url, host.fn);
      await p.start();
      await p.idle();
      await sleep(300);
      expect(live.events).toEqual([]); // nothing it sent was taken
      await live.daemon.onCommand(instructCommand('Not for another home', SID, 'opencode'));
      await sleep(300);
      expect(host.calls).toEqual([]);
      expect(live.of('delivered')).toHaveLength(0);
    } finally {
      process.env.HOOKMAP_HOME = home;
    }
  });

  it('a failing host call (an SDK result naming an error, or a rejection) gives the text back at once: not lost, not twice', async () => {
    const live = await liveDaemon(loadVendor('opencode'));
    const host = handCall();
    const p = await opencodePlugin(live.url, host.fn);
    await p.start();
    await p.idle();
    await sleep(100);
    await live.daemon.onCommand(instructCommand('try again later', SID, 'opencode'));
    await until(() => host.calls.length === 1);
    host.settle(0, { ok: true, value: { error: { name: 'NotFoundError' }, response: { ok: false, status: 404 } } });
    await sleep(200);
    expect(live.of('delivered')).toHaveLength(0);
    expect(host.calls).toHaveLength(1); // no retry loop: the text waits for the next idle moment
    // the next idle moment (well inside the 15 s ack window): the text is there again, at once
    await p.idle();
    await until(() => host.calls.length === 2);
    expect(host.calls[1]).toEqual(host.calls[0]);
    host.settle(1, { ok: false }); // a rejection: back again
    await sleep(200);
    await p.idle();
    await until(() => host.calls.length === 3);
    host.settle(2, { ok: true, value: { response: { ok: true } } });
    await until(() => live.of('delivered').length === 1);
    await sleep(150);
    expect(live.of('delivered')).toHaveLength(1);
    expect(host.calls).toHaveLength(3);
  });

  it('a session that ends first drops the instruction (audited) and releases its waiter; the host is never called', async () => {
    const live = await liveDaemon(loadVendor('opencode'));
    const host = handCall();
    const p = await opencodePlugin(live.url, host.fn);
    await p.start(); // a turn runs: the instruction waits for the idle moment
    await until(() => live.events.some((e) => e.type === 'run.started'));
    await live.daemon.onCommand(instructCommand('too late', SID, 'opencode'));
    await until(() => live.events.some((e) => e.type === 'control.accepted'));
    await p.deleted();
    await until(() => live.of('dropped').length === 1);
    expect(live.of('dropped')[0].data).toMatchObject({ reason: 'session-ended' });
    await p.idle(); // a late idle of the ended session arms nothing that delivers
    await sleep(300);
    expect(host.calls).toHaveLength(0);
    expect(live.of('delivered')).toHaveLength(0);
  });

  it('two plugin instances on one session (two waiters): one delivery', async () => {
    const live = await liveDaemon(loadVendor('opencode'));
    const a = handCall();
    const b = handCall();
    const p1 = await opencodePlugin(live.url, a.fn);
    const p2 = await opencodePlugin(live.url, b.fn);
    await p1.start();
    await p1.idle();
    await p2.idle();
    await sleep(200);
    await live.daemon.onCommand(instructCommand('once only', SID, 'opencode'));
    await until(() => a.calls.length + b.calls.length === 1);
    (a.calls.length ? a : b).settle(0, { ok: true, value: { response: { ok: true } } });
    await until(() => live.of('delivered').length === 1);
    await sleep(300);
    expect(a.calls.length + b.calls.length).toBe(1);
    expect(live.of('delivered')).toHaveLength(1);
  });

  it('off by default: the waiter is answered neutral at once, the host never called', async () => {
    const live = await liveDaemon(loadVendor('opencode'), {});
    const host = handCall();
    const p = await opencodePlugin(live.url, host.fn);
    await p.start();
    await p.idle();
    await sleep(300);
    expect(host.calls).toHaveLength(0);
    expect(live.events.some((e) => e.type === 'run.finished')).toBe(true);
  });

  it('daemon down: no throw, one refused POST per idle moment, no loop', async () => {
    const app = Fastify();
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    await app.close(); // nothing listens there now
    const real = globalThis.fetch;
    const seen: string[] = [];
    globalThis.fetch = ((u: any, o: any) => (seen.push(String(u)), real(u, o))) as typeof fetch;
    try {
      const host = handCall();
      const p = await opencodePlugin(url, host.fn);
      await expect(p.idle()).resolves.toBeUndefined();
      await sleep(2000);
      expect(seen.filter((u) => u.includes('/next-turn/'))).toHaveLength(1);
      expect(host.calls).toHaveLength(0);
    } finally {
      globalThis.fetch = real;
    }
  });
});

describe('pi: the extension waiter calls pi.sendUserMessage', () => {
  async function piExtension(url: string, sendUserMessage: (...a: unknown[]) => unknown) {
    const d = loadVendor('pi');
    const mod = await importPlugin(d, dir, { HOOKMAP_URL: url, HOOKMAP_AUTOSTART: '0' });
    const handlers = new Map<string, (...a: unknown[]) => unknown>();
    mod.default({ on: (name: string, h: (...a: unknown[]) => unknown) => handlers.set(name, h), sendUserMessage });
    const ctx = busContext({ id: 'pi_s1', file: '/tmp/s.jsonl', cwd: '/w' });
    const fire = (type: string, extra: Record<string, unknown> = {}) => handlers.get(type)!({ type, ...extra }, ctx);
    return { fire };
  }

  it('delivered once sendUserMessage returned (as a follow-up); a throwing call gives the text back at once', async () => {
    const live = await liveDaemon(loadVendor('pi'));
    const calls: unknown[][] = [];
    let fail = true;
    const x = await piExtension(live.url, (...a: unknown[]) => {
      calls.push(a);
      if (fail) throw new Error('Agent is already processing');
    });
    await x.fire('session_start', { reason: 'startup' });
    await x.fire('agent_start');
    await x.fire('agent_end', { messages: [] });
    await until(() => live.events.some((e) => e.type === 'run.finished'));
    await sleep(100);
    await live.daemon.onCommand(instructCommand('and now the docs', 'pi_s1', 'pi'));
    await until(() => calls.length === 1);
    expect(calls[0]).toEqual(['and now the docs', { deliverAs: 'followUp' }]);
    await sleep(200);
    expect(live.of('delivered')).toHaveLength(0);
    fail = false;
    await x.fire('agent_end', { messages: [] }); // the next loop end: the text is back in the queue, at once
    await until(() => live.of('delivered').length === 1);
    expect(calls).toHaveLength(2);
    await x.fire('session_shutdown', { reason: 'quit' });
  });

  it('session_shutdown aborts the waiter and drops what waits', async () => {
    const live = await liveDaemon(loadVendor('pi'));
    const calls: unknown[][] = [];
    const x = await piExtension(live.url, (...a: unknown[]) => void calls.push(a));
    await x.fire('session_start', { reason: 'startup' });
    await x.fire('agent_start');
    await until(() => live.events.some((e) => e.type === 'run.started'));
    await live.daemon.onCommand(instructCommand('never', 'pi_s1', 'pi'));
    await until(() => live.events.some((e) => e.type === 'control.accepted'));
    await x.fire('session_shutdown', { reason: 'quit' });
    await until(() => live.of('dropped').length === 1);
    await sleep(200);
    expect(calls).toHaveLength(0);
  });
});
