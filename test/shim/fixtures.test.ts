// Script I/O fixtures (`fixtures/<agent>/shim.yaml`, kind: shim): every case
// runs the REAL generated sh shim or the Node shim as a process, against a
// fake daemon on loopback in the case's mood, and checks stdout byte for
// byte and the exit code. Hung cases shorten the bound through
// HOOKMAP_SHIM_TIMEOUT_MS so the suite stays quick (the benchmark measures
// the generated bounds).
//
// `shim: tee` cases run the real `hookmap tee` in front of an agent command:
// the editor's bytes in, exactly the agent's bytes out, its exit code.
//
// `shim: plugin` cases do the same for an in-process shim: the generated
// plugin/extension is imported as its host imports it, instantiated with the
// case's `input` (and `env` at registration), and the host hook `hook` is
// called with the documented `args`; `expect` is what the host sees: the
// hook's resolved `return` value (null: nothing), the `args` after the call
// (an applied reply mutates them), and the `host` requests the plugin made
// to the host's own server (`$host` in input/args is that server's URL).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listVendors, loadVendor, ROOT } from '../../engine/descriptor/registry.ts';
import { fixtureFiles } from '../../engine/fixtures/format.ts';
import { writeShims } from '../../engine/shim/generate.ts';
import { BIN, fakeDaemon, runProcess, type Mood, type Reply } from './helpers.ts';
import { busContext, hostHandlers, importPlugin, type SessionIdentity } from './plugin-harness.ts';

interface ScriptCase { name: string; shim: 'sh' | 'node'; hook?: string; stdin: string; daemon: Mood; reply?: Reply; request?: { path?: string }; stdout: string; exit: number }
interface TeeCase { name: string; shim: 'tee'; agent: string[]; env?: Record<string, string>; stdin: string; daemon: Mood; stdout: string; stderr?: string; exit: number }
interface HostRequest { method: string; path: string; body: unknown }
interface PluginCase {
  name: string; shim: 'plugin'; hook: string; args?: unknown[]; input?: unknown; env?: Record<string, string>; session?: SessionIdentity;
  daemon: Mood; reply?: Reply; request?: { path?: string; body?: unknown };
  expect: { return?: unknown; args?: unknown[]; host?: HostRequest[] };
}
type ShimCase = ScriptCase | PluginCase | TeeCase;

/** The bound hung cases run under (HOOKMAP_SHIM_TIMEOUT_MS). */
const HUNG_BOUND_MS = 300;

const home = mkdtempSync(join(tmpdir(), 'hookmap-shim-fx-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const until = async (ok: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The host's own server (where a plugin applies answers over REST): records every request, answers `true`. */
async function hostServer(): Promise<{ url: string; requests: HostRequest[]; close(): Promise<void> }> {
  const requests: HostRequest[] = [];
  const srv: Server = createServer((req, res) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => {
      let body: unknown = b;
      try { body = JSON.parse(b || 'null'); } catch { /* keep the text */ }
      requests.push({ method: req.method ?? '', path: req.url ?? '', body });
      res.end('true');
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`, requests, close: () => new Promise((r) => srv.close(() => r())) };
}

/** `$host` anywhere in the data -> the host server's URL (a URL object, as hosts pass it). */
function withHost(v: unknown, host: string): unknown {
  if (v === '$host') return new URL(host);
  if (Array.isArray(v)) return v.map((x) => withHost(x, host));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withHost(x, host)]));
  return v;
}

async function runScriptCase(agent: string, shPath: string, c: ScriptCase): Promise<void> {
  const daemon = await fakeDaemon(c.daemon, c.reply);
  try {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, HOOKMAP_HOME: home, HOOKMAP_URL: daemon.url };
    if (c.daemon === 'hung') env.HOOKMAP_SHIM_TIMEOUT_MS = String(HUNG_BOUND_MS);
    const [cmd, args] = c.shim === 'sh' ? ['sh', [shPath, ...(c.hook ? [c.hook] : [])]] : [process.execPath, [BIN, 'hook', agent, ...(c.hook ? [c.hook] : [])]];
    const r = await runProcess(cmd, args, c.stdin, env);
    expect(r.stdout.toString('utf8')).toBe(c.stdout);
    expect(r.code).toBe(c.exit);
    if (c.daemon === 'up') {
      // the payload reached the daemon intact, as the request body
      expect(daemon.received.map((q) => q.body)).toEqual([c.stdin]);
      expect(daemon.received[0].contentType).toBe('application/json');
      if (c.request?.path) expect(daemon.received[0].path).toBe(c.request.path);
    }
  } finally {
    await daemon.close();
  }
}

/**
 * A tee case: the real `hookmap tee` in front of the case's agent command
 * (paths relative to the repo), the editor's bytes on stdin; the editor must
 * read exactly `stdout` and the tee must exit as the agent did, whatever
 * the daemon's mood (a fake daemon speaks HTTP, not the tee's WebSocket:
 * `up` and `error` are daemons that refuse the surface).
 */
async function runTeeCase(agent: string, c: TeeCase): Promise<void> {
  const daemon = await fakeDaemon(c.daemon);
  try {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, HOOKMAP_HOME: home, HOOKMAP_URL: daemon.url, ...(c.env ?? {}) };
    const [cmd, ...args] = c.agent;
    const agentCmd = cmd === 'node' ? process.execPath : cmd;
    const r = await runProcess(process.execPath, [BIN, 'tee', agent, '--', agentCmd, ...args.map((a) => (a.startsWith('test/') ? join(ROOT, a) : a))], c.stdin, env);
    expect(r.stdout.toString('utf8')).toBe(c.stdout);
    if (c.stderr !== undefined) expect(r.stderr).toBe(c.stderr);
    expect(r.code).toBe(c.exit);
  } finally {
    await daemon.close();
  }
}

async function runPluginCase(agent: string, c: PluginCase): Promise<void> {
  const d = loadVendor(agent);
  const daemon = await fakeDaemon(c.daemon, c.reply);
  const host = await hostServer();
  try {
    const mod = await importPlugin(d, home, { HOOKMAP_URL: daemon.url, HOOKMAP_SHIM_TIMEOUT_MS: c.daemon === 'hung' ? String(HUNG_BOUND_MS) : undefined });
    const handlers = await hostHandlers(d, mod, withHost(c.input ?? {}, host.url), c.env);
    const handler = handlers.get(c.hook);
    expect(handler, `hook '${c.hook}' is not registered (registered: ${[...handlers.keys()].join(', ')})`).toBeTypeOf('function');
    const args = withHost(c.args ?? [], host.url) as unknown[];
    const callArgs = c.session ? [...args, busContext(c.session)] : args;
    // never throws into the host, never hangs it
    const returned = await handler!(...callArgs);
    if ('return' in c.expect) expect(returned ?? null).toEqual(c.expect.return ?? null);
    if (c.expect.args) expect(JSON.parse(JSON.stringify(args))).toEqual(c.expect.args);
    // what the plugin does in the background (forwards, held answers applied over REST)
    const wantHost = c.expect.host ?? [];
    if (c.daemon === 'up') {
      await until(() => daemon.received.length > 0);
      const q = daemon.received[0];
      expect(q.contentType).toBe('application/json');
      if (c.request?.path) expect(q.path).toBe(c.request.path);
      if (c.request?.body !== undefined) expect(JSON.parse(q.body)).toMatchObject(c.request.body as object);
      await until(() => host.requests.length >= wantHost.length);
      if (c.expect.host && !wantHost.length) await sleep(100); // an answer applied after the reply would show by now
    } else {
      // let a background hold give up (bounded) before saying nothing was applied
      await sleep(c.daemon === 'hung' ? 2 * HUNG_BOUND_MS + 200 : 100);
    }
    if (c.expect.host) expect(host.requests).toEqual(wantHost);
  } finally {
    await daemon.close();
    await host.close();
  }
}

for (const agent of listVendors()) {
  const files = fixtureFiles(agent).filter((f) => f.kind === 'shim');
  if (!files.length) continue;
  describe(`fixtures/${agent} shim`, () => {
    let shPath = '';
    beforeAll(() => {
      if (files.some((f) => f.cases.some((c: ShimCase) => c.shim === 'sh' || c.shim === 'node'))) shPath = writeShims(loadVendor(agent), { ...process.env, HOOKMAP_HOME: home }).sh;
    });
    for (const f of files) {
      for (const c of f.cases as ShimCase[]) {
        it(`${f.file} ${c.name}`, () => (c.shim === 'plugin' ? runPluginCase(agent, c) : c.shim === 'tee' ? runTeeCase(agent, c) : runScriptCase(agent, shPath, c)));
      }
    }
  });
}
