// The generated in-process shims (engine/runtime/shim/plugin) loaded the way their
// hosts load them (ESM dynamic import of the generated file, the documented
// hook signatures), forwarding to the REAL daemon (Daemon + the hook routes
// `hookmap serve` mounts) — and with the daemon down or hung, giving the
// host its neutral result at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Daemon, type PendingHold } from '../../../engine/runtime/daemon/daemon.ts';
import { registerHookRoutes } from '../../../engine/runtime/daemon/http.ts';
import type { EventLink } from '../../../engine/runtime/daemon/relay-link.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import type { Descriptor } from '../../../engine/core/descriptor/types.ts';
import { respondCommand } from '../../../engine/tools/cases/run-decisions.ts';
import type { AepEvent } from '../../../engine/core/map/envelope.ts';
import { renderPlugin } from '../../../engine/runtime/shim/plugin/generate.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookmap-plugin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

class MemoryLink implements EventLink {
  readonly ready = true;
  deliver(): void {}
  resend(): void {}
  async close(): Promise<void> {}
}

interface Live {
  url: string;
  events: AepEvent[];
  holds: PendingHold[];
  daemon: Daemon;
  close(): Promise<void>;
}

/** The real daemon behind the real hook routes, control on (an in-memory relay link). */
async function liveDaemon(d: Descriptor): Promise<Live> {
  const events: AepEvent[] = [];
  const holds: PendingHold[] = [];
  const daemon = Daemon.open({ descriptor: d, logDir: mkdtempSync(join(dir, 'log-')), onEvent: (e) => events.push(e), onHold: (h) => holds.push(h) });
  daemon.attach(new MemoryLink(), true);
  const app = Fastify();
  registerHookRoutes(app, { daemons: new Map([[d.vendor, daemon]]) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    url,
    events,
    holds,
    daemon,
    close: async () => {
      await daemon.close();
      await app.close();
    },
  };
}

/** A daemon that accepts and never answers. */
async function hungServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<any>();
  const srv: Server = createServer(() => {});
  srv.on('connection', (s) => sockets.add(s));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    close: async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise((r) => srv.close(r));
    },
  };
}

async function deadUrl(): Promise<string> {
  const h = await hungServer();
  await h.close();
  return h.url;
}

/** A descriptor copy with the plugin's bounds shortened (a hung daemon must not cost a test 58 s). */
function shortBounds(d: Descriptor, ms: number): Descriptor {
  const p: any = structuredClone(d.shim.plugin);
  p.timeout_ms = Math.min(p.timeout_ms, ms);
  for (const h of Object.values<any>(p.hooks ?? {})) {
    if (h.timeout_ms) h.timeout_ms = ms;
    for (const v of Object.values<any>(h.holds?.values ?? {})) v.timeout_ms = ms;
  }
  for (const o of Object.values<any>(p.optin ?? {})) o.timeout_ms = ms;
  return { ...d, shim: { ...d.shim, plugin: p } };
}

let n = 0;
/** Generate, write and import the plugin as its host would, with HOOKMAP_URL pointing at `url`. */
async function load(d: Descriptor, url: string): Promise<any> {
  const file = join(dir, `${d.vendor}-${++n}.mjs`);
  writeFileSync(file, renderPlugin(d));
  const prev = process.env.HOOKMAP_URL;
  process.env.HOOKMAP_URL = url;
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    if (prev === undefined) delete process.env.HOOKMAP_URL;
    else process.env.HOOKMAP_URL = prev;
  }
}

const until = async (ok: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
};

const opencode = () => loadVendor('opencode');
const kilocode = () => loadVendor('kilocode');
const pi = () => loadVendor('pi');

describe('generated plugins are host-clean', () => {
  for (const agent of ['opencode', 'kilocode', 'pi']) {
    it(`${agent}: ESM, fetch, no imports at all (built-ins only through a guarded process.getBuiltinModule)`, () => {
      const src = renderPlugin(loadVendor(agent));
      expect(src).not.toMatch(/\brequire\(|^\s*import\s|from\s+['"]node:|import\(/m);
      expect(src).toMatch(/export default/);
      expect(src).toMatch(/fetch\(/);
      expect(src.match(/getBuiltinModule\(/g)).toHaveLength(1);
      expect(src).toMatch(/typeof globalThis\.process\.getBuiltinModule === "function"/);
    });
  }
});

describe('OpenCode plugin (default export: async (input) => hooks)', () => {
  let live: Live;
  beforeAll(async () => {
    live = await liveDaemon(opencode());
  });
  afterAll(() => live.close());

  it('bus and tool moments reach the daemon in order; the host never waits on them', async () => {
    const mod = await load(opencode(), live.url);
    const hooks = await mod.default({ project: {}, client: {}, $: () => {}, directory: '/p', worktree: '/p' });
    const t0 = Date.now();
    await hooks.event({
      event: { type: 'session.created', properties: { info: { id: 's_pl_1', version: '1.17.18', directory: '/p', title: 't', time: { created: 1 } } } },
    });
    await hooks.event({ event: { type: 'message.updated', properties: { info: { id: 'm1', sessionID: 's_pl_1', role: 'user' } } } });
    await hooks['tool.execute.before']({ tool: 'bash', sessionID: 's_pl_1', callID: 'c1' }, { args: { command: 'npm test' } });
    await hooks['tool.execute.after']({ tool: 'bash', sessionID: 's_pl_1', callID: 'c1' }, { title: 'npm test', output: 'ok', metadata: {} });
    await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 's_pl_1' } } });
    // the five moments are handed off, not round-tripped: far below one hook
    // timeout even on a loaded machine (a 200 ms bound failed under CI load)
    expect(Date.now() - t0).toBeLessThan(2_000);
    await until(() => live.events.length >= 5);
    expect(live.events.map((e) => e.type)).toEqual(['session.started', 'run.started', 'tool.requested', 'tool.completed', 'run.finished']);
    expect(live.events.every((e) => e.agent === 'opencode' && e.session === 's_pl_1')).toBe(true);
  });

  it('permission.ask is held and the relay answer settles output.status', async () => {
    const mod = await load(opencode(), live.url);
    const hooks = await mod.default({});
    const output: any = { status: 'ask' };
    const done = hooks['permission.ask']({ id: 'perm_9', type: 'bash', sessionID: 's_pl_1', callID: 'c2', title: 'rm -rf build' }, output);
    await until(() => live.holds.some((h) => h.key === 'perm_9'));
    const hold = live.holds.find((h) => h.key === 'perm_9')!;
    expect((hold.request.data as any).options.map((o: any) => o.id)).toEqual(['allow', 'deny']);
    await live.daemon.onCommand(respondCommand(hold, { option: 'allow' }));
    await done;
    expect(output.status).toBe('allow');
  });

  it('daemon down: every hook returns the neutral result at once (output untouched)', async () => {
    const mod = await load(opencode(), await deadUrl());
    const hooks = await mod.default({});
    const output: any = { status: 'ask' };
    const t0 = Date.now();
    await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 's' } } });
    await hooks['tool.execute.before']({ tool: 'bash', sessionID: 's', callID: 'c' }, { args: {} });
    await hooks['permission.ask']({ id: 'p', type: 'bash', sessionID: 's' }, output);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(output).toEqual({ status: 'ask' });
  });

  it('daemon hung: forwards stay off the host path; the held ask gives up at its own bound', async () => {
    const hung = await hungServer();
    try {
      const mod = await load(shortBounds(opencode(), 300), hung.url);
      const hooks = await mod.default({});
      const t0 = Date.now();
      await hooks['tool.execute.before']({ tool: 'bash', sessionID: 's', callID: 'c' }, { args: {} });
      expect(Date.now() - t0).toBeLessThan(50);
      const output: any = { status: 'ask' };
      await hooks['permission.ask']({ id: 'p', type: 'bash', sessionID: 's' }, output);
      expect(Date.now() - t0).toBeLessThan(1500);
      expect(output).toEqual({ status: 'ask' });
    } finally {
      await hung.close();
    }
  });
});

describe('Kilo Code plugin (export default { server })', () => {
  let live: Live;
  let kilo: Server;
  const replies: { url: string; body: any }[] = [];
  let kiloUrl = '';
  beforeAll(async () => {
    live = await liveDaemon(kilocode());
    // Kilo's own server: the >= 7.4.6 reply routes the plugin applies answers through
    kilo = createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        replies.push({ url: req.url!, body: JSON.parse(b || 'null') });
        res.end('true');
      });
    });
    await new Promise<void>((r) => kilo.listen(0, '127.0.0.1', r));
    kiloUrl = `http://127.0.0.1:${(kilo.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await live.close();
    await new Promise((r) => kilo.close(r));
  });

  it('module shape is { server }', async () => {
    const mod = await load(kilocode(), live.url);
    expect(typeof mod.default.server).toBe('function');
  });

  it('bus permission.asked: held in the background, the answer POSTed to the reply route', async () => {
    const mod = await load(kilocode(), live.url);
    const hooks = await mod.default.server({ serverUrl: new URL(kiloUrl) });
    const t0 = Date.now();
    await hooks.event({
      event: { type: 'permission.asked', properties: { id: 'perm_k', type: 'bash', sessionID: 's_k', callID: 'c9', title: 'rm -rf dist' } },
    });
    expect(Date.now() - t0).toBeLessThan(100); // the event hook never waits for the human
    await until(() => live.holds.some((h) => h.key === 'perm_k'));
    const hold = live.holds.find((h) => h.key === 'perm_k')!;
    await live.daemon.onCommand(respondCommand(hold, { text: 'use the clean script' }));
    await until(() => replies.length > 0);
    expect(replies[0]).toEqual({ url: '/session/s_k/permissions/perm_k', body: { response: 'reject', message: 'use the clean script' } });
  });

  it('bus question.asked: the values come back as the vendor labels', async () => {
    const mod = await load(kilocode(), live.url);
    const hooks = await mod.default.server({ serverUrl: new URL(kiloUrl) });
    await hooks.event({
      event: {
        type: 'question.asked',
        properties: {
          id: 'que_k',
          sessionID: 's_k',
          questions: [{ question: 'Which DB?', header: 'DB', options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }] }],
        },
      },
    });
    await until(() => live.holds.some((h) => h.key === 'que_k'));
    await live.daemon.onCommand(
      respondCommand(
        live.holds.find((h) => h.key === 'que_k')!,
        { values: { '1': '1' } },
      ),
    );
    await until(() => replies.some((r) => r.url === '/question/que_k/reply'));
    expect(replies.find((r) => r.url === '/question/que_k/reply')!.body).toEqual({ answers: [['PostgreSQL']] });
  });

  it('daemon down: the hold gives up at once and nothing is POSTed to Kilo', async () => {
    const before = replies.length;
    const mod = await load(kilocode(), await deadUrl());
    const hooks = await mod.default.server({ serverUrl: new URL(kiloUrl) });
    const output: any = { status: 'ask' };
    const t0 = Date.now();
    await hooks['permission.ask']({ id: 'p', type: 'bash', sessionID: 's' }, output);
    await hooks.event({ event: { type: 'permission.asked', properties: { id: 'p2', type: 'bash', sessionID: 's' } } });
    expect(Date.now() - t0).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 100));
    expect(output).toEqual({ status: 'ask' });
    expect(replies.length).toBe(before);
  });
});

describe('pi extension (export default function (pi))', () => {
  let live: Live;
  beforeAll(async () => {
    live = await liveDaemon(pi());
  });
  afterAll(() => live.close());

  function fakePi() {
    const handlers = new Map<string, (event: any, ctx: any) => unknown>();
    return { handlers, api: { on: (name: string, h: any) => handlers.set(name, h) } };
  }
  const ctx = (id: string) => ({ sessionManager: { getSessionId: () => id, getSessionFile: () => `/tmp/${id}.jsonl`, getCwd: () => '/p' }, hasUI: false });

  it('registers exactly the notification set by default: no interception surface', async () => {
    const mod = await load(pi(), live.url);
    const { handlers, api } = fakePi();
    delete process.env.HOOKMAP_PI_CONTROL;
    mod.default(api);
    expect(handlers.has('tool_call')).toBe(false);
    for (const s of ['tool_result', 'context', 'input', 'before_agent_start']) expect(handlers.has(s)).toBe(false);
    expect([...handlers.keys()]).toEqual(pi().shim.plugin!.events);
  });

  it('notification moments carry the session identity and are never awaited', async () => {
    const mod = await load(pi(), live.url);
    const { handlers, api } = fakePi();
    mod.default(api);
    const t0 = Date.now();
    expect(await handlers.get('agent_start')!({ type: 'agent_start' }, ctx('s_pi_1'))).toBeUndefined();
    await handlers.get('turn_start')!({ type: 'turn_start', turnIndex: 0, timestamp: 1 }, ctx('s_pi_1'));
    await handlers.get('agent_end')!(
      { type: 'agent_end', messages: [{ role: 'assistant', stopReason: 'stop', usage: { input: 1, output: 2 } }] },
      ctx('s_pi_1'),
    );
    expect(Date.now() - t0).toBeLessThan(100);
    await until(() => live.events.filter((e) => e.session === 's_pi_1').length >= 3);
    expect(live.events.filter((e) => e.session === 's_pi_1').map((e) => [e.type, e.step])).toEqual([
      ['run.started', undefined],
      ['run.step.started', '0'],
      ['run.finished', undefined],
    ]);
  });

  it('HOOKMAP_PI_CONTROL=1: registration is the opt-in; a deny blocks with the reason', async () => {
    const mod = await load(pi(), live.url);
    const { handlers, api } = fakePi();
    process.env.HOOKMAP_PI_CONTROL = '1';
    try {
      mod.default(api);
    } finally {
      delete process.env.HOOKMAP_PI_CONTROL;
    }
    expect(handlers.has('tool_call')).toBe(true);
    const r = handlers.get('tool_call')!(
      { type: 'tool_call', toolCallId: 'tc1', toolName: 'bash', input: { command: 'rm -rf /' } },
      ctx('s_pi_2'),
    ) as Promise<unknown>;
    await until(() => live.holds.some((h) => h.key === 'tc1'));
    await live.daemon.onCommand(
      respondCommand(
        live.holds.find((h) => h.key === 'tc1')!,
        { text: 'not on this box' },
      ),
    );
    expect(await r).toEqual({ block: true, reason: 'not on this box' });
  });

  it('gate allow returns undefined (later extensions and pi decide)', async () => {
    const mod = await load(pi(), live.url);
    const { handlers, api } = fakePi();
    process.env.HOOKMAP_PI_CONTROL = 'true';
    try {
      mod.default(api);
    } finally {
      delete process.env.HOOKMAP_PI_CONTROL;
    }
    const r = handlers.get('tool_call')!({ type: 'tool_call', toolCallId: 'tc2', toolName: 'read', input: {} }, ctx('s_pi_2')) as Promise<unknown>;
    await until(() => live.holds.some((h) => h.key === 'tc2'));
    await live.daemon.onCommand(
      respondCommand(
        live.holds.find((h) => h.key === 'tc2')!,
        { option: 'allow' },
      ),
    );
    expect(await r).toBeUndefined();
  });

  it('daemon down: the gate returns undefined at once (a throwing handler would BLOCK the tool)', async () => {
    const mod = await load(pi(), await deadUrl());
    const { handlers, api } = fakePi();
    process.env.HOOKMAP_PI_CONTROL = '1';
    try {
      mod.default(api);
    } finally {
      delete process.env.HOOKMAP_PI_CONTROL;
    }
    const t0 = Date.now();
    expect(await handlers.get('tool_call')!({ type: 'tool_call', toolCallId: 'x', toolName: 'bash', input: {} }, ctx('s'))).toBeUndefined();
    expect(await handlers.get('message_end')!({ type: 'message_end', message: {} }, undefined)).toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
