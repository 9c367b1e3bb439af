// Shim fixture cases (`kind: shim`), run for real: a script case runs the
// generated sh shim or the Node shim (`hookmap hook`) as a process, a tee
// case the real `hookmap tee` in front of an agent command, a plugin case
// the generated plugin in a stand-in host process (plugin-host.mjs); each
// against a stand-in daemon in the case's mood (up, down, hung, error:
// shim-daemon.ts), its stdout compared byte for byte, its exit code, and
// what the daemon received. `hookmap check` and test/runtime/shim/fixtures.test.ts
// both run them through here; a case that cannot run says why, it never
// passes unrun.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ROOT } from '../../core/descriptor/registry.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { pluginSpec, renderPlugin } from '../../runtime/shim/plugin/generate.ts';
import { writeShims } from '../../runtime/shim/generate.ts';
import { DEFAULT_URL } from '../../runtime/shim/plan.mjs';
import { fakeDaemon, runProcess, type Mood, type Reply } from './shim-daemon.ts';

/** The bound hung cases run under (HOOKMAP_SHIM_TIMEOUT_MS): the generated bounds are measured by the benchmark. */
export const HUNG_BOUND_MS = 300;
const BIN = join(ROOT, 'bin', 'hookmap.mjs');
const PLUGIN_HOST = join(ROOT, 'engine', 'tools', 'cases', 'plugin-host.mjs');

interface ScriptCase {
  name: string;
  shim: 'sh' | 'node';
  hook?: string;
  stdin: string;
  daemon: Mood;
  reply?: Reply;
  /** What the daemon must have received: the path, and the launch's gate header (`gate: "1"`, or null: none). */
  request?: { path?: string; gate?: string | null };
  /** The agent's environment beside the shim's own (e.g. HOOKMAP_GATE=1: a launch's gate). */
  env?: Record<string, string>;
  stdout: string;
  /** The exact bytes on stderr (absent: not compared). */
  stderr?: string;
  exit: number;
}
interface TeeCase {
  name: string;
  shim: 'tee';
  agent: string[];
  env?: Record<string, string>;
  stdin: string;
  daemon: Mood;
  stdout: string;
  stderr?: string;
  exit: number;
}
interface HostRequest {
  method: string;
  path: string;
  body: unknown;
}
interface PluginCase {
  name: string;
  shim: 'plugin';
  hook: string;
  args?: unknown[];
  input?: unknown;
  env?: Record<string, string>;
  session?: { id?: string; file?: string; cwd?: string };
  daemon: Mood;
  reply?: Reply;
  request?: { path?: string; body?: unknown; gate?: string | null };
  /** throws: a launch's gate refused the call (the one throw a plugin may make into its host), with this text. */
  expect: { return?: unknown; args?: unknown[]; host?: HostRequest[]; throws?: string };
}
export type ShimCase = ScriptCase | PluginCase | TeeCase;

export interface ShimOutcome {
  failures: string[];
  notRun?: string;
}

/** What the processes a case starts inherit from the caller's edge (the CLI's PATH). */
export interface ShimRunEnv {
  path?: string;
}

const J = (v: unknown) => JSON.stringify(v);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(ok: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) return false;
    await sleep(10);
  }
  return true;
}

/** One agent's shim cases: a scratch home holding its generated shims, removed by close(). */
export class ShimRun {
  readonly home = mkdtempSync(join(tmpdir(), 'hookmap-shim-cases-'));
  private shPath?: string;
  private n = 0;

  constructor(
    private readonly d: Descriptor,
    private readonly env: ShimRunEnv,
  ) {}

  close(): void {
    rmSync(this.home, { recursive: true, force: true });
  }

  private base(url: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
    return { PATH: this.env.path, HOME: this.home, HOOKMAP_HOME: this.home, HOOKMAP_URL: url, ...extra };
  }

  async run(c: ShimCase): Promise<ShimOutcome> {
    try {
      if (c.shim === 'plugin') return await this.plugin(c);
      if (c.shim === 'tee') return await this.tee(c);
      return await this.script(c);
    } catch (e) {
      return { failures: [], notRun: `could not run: ${(e as Error).message}` };
    }
  }

  private async script(c: ScriptCase): Promise<ShimOutcome> {
    const shPath = (this.shPath ??= writeShims(this.d, { home: this.home, url: DEFAULT_URL }).sh);
    return withFakeDaemon(c.daemon, c.reply, async (daemon, failures) => {
      const env = { ...this.base(daemon.url, c.daemon === 'hung' ? { HOOKMAP_SHIM_TIMEOUT_MS: String(HUNG_BOUND_MS) } : {}), ...(c.env ?? {}) };
      const hook = c.hook ? [c.hook] : [];
      const [cmd, args] = c.shim === 'sh' ? ['sh', [shPath, ...hook]] : [process.execPath, [BIN, 'hook', this.d.vendor, ...hook]];
      const r = await runProcess(cmd, args, c.stdin, env);
      const stdout = r.stdout.toString('utf8');
      if (stdout !== c.stdout) failures.push(`stdout ${J(stdout)}, expected ${J(c.stdout)}`);
      if (c.stderr !== undefined && r.stderr !== c.stderr) failures.push(`stderr ${J(r.stderr)}, expected ${J(c.stderr)}`);
      if (r.code !== c.exit) failures.push(`exit ${r.code}, expected ${c.exit}`);
      if (c.daemon === 'up') {
        const bodies = daemon.received.map((q) => q.body);
        if (!isDeepStrictEqual(bodies, [c.stdin])) failures.push(`the daemon received ${J(bodies)}, expected the stdin once, intact`);
        else if (daemon.received[0].contentType !== 'application/json')
          failures.push(`content-type ${J(daemon.received[0].contentType)}, expected application/json`);
        else if (c.request?.path && daemon.received[0].path !== c.request.path)
          failures.push(`request path ${daemon.received[0].path}, expected ${c.request.path}`);
        else if (c.request?.gate !== undefined && (daemon.received[0].gate ?? null) !== c.request.gate)
          failures.push(`x-hookmap-gate ${J(daemon.received[0].gate)}, expected ${J(c.request.gate)}`);
      }
    });
  }

  private async tee(c: TeeCase): Promise<ShimOutcome> {
    return withFakeDaemon(c.daemon, {}, async (daemon, failures) => {
      const [cmd, ...args] = c.agent;
      const agentCmd = cmd === 'node' ? process.execPath : cmd;
      const r = await runProcess(
        process.execPath,
        [BIN, 'tee', this.d.vendor, '--', agentCmd, ...args.map((a) => (a.startsWith('test/') ? join(ROOT, a) : a))],
        c.stdin,
        { ...this.base(daemon.url), ...(c.env ?? {}) },
      );
      const stdout = r.stdout.toString('utf8');
      if (stdout !== c.stdout) failures.push(`stdout ${J(stdout)}, expected ${J(c.stdout)}`);
      if (c.stderr !== undefined && r.stderr !== c.stderr) failures.push(`stderr ${J(r.stderr)}, expected ${J(c.stderr)}`);
      if (r.code !== c.exit) failures.push(`exit ${r.code}, expected ${c.exit}`);
    });
  }

  private async plugin(c: PluginCase): Promise<ShimOutcome> {
    const spec = pluginSpec(this.d);
    if (!spec) return { failures: [`a plugin case, but ${this.d.file} generates no plugin`] };
    const file = join(this.home, `${this.d.vendor}-${++this.n}.mjs`);
    writeFileSync(file, renderPlugin(this.d));
    return withFakeDaemon(c.daemon, c.reply, async (daemon, failures) => {
      const host = await hostServer();
      const child = spawn(process.execPath, [PLUGIN_HOST], { env: { PATH: this.env.path, HOME: this.home }, stdio: ['pipe', 'pipe', 'pipe'] });
      try {
        const hung = c.daemon === 'hung' ? String(HUNG_BOUND_MS) : undefined;
        // the host's environment from its start (a launch's gate is read at load), and again at registration (opt-ins)
        const loadEnv = { HOOKMAP_URL: daemon.url, HOOKMAP_HOME: this.home, HOOKMAP_SHIM_TIMEOUT_MS: hung, ...(c.env ?? {}) };
        const out = await firstLine(
          child,
          JSON.stringify({
            file,
            host: spec.host,
            export: spec.export,
            loadEnv,
            env: c.env,
            input: c.input,
            hook: c.hook,
            args: c.args,
            session: c.session,
            hostUrl: host.url,
          }),
        );
        if (!out.registered.includes(c.hook)) return void failures.push(`hook '${c.hook}' is not registered (registered: ${out.registered.join(', ')})`);
        if (c.expect.throws !== undefined && out.threw !== c.expect.throws) failures.push(`threw ${J(out.threw)}, expected ${J(c.expect.throws)}`);
        else if (c.expect.throws === undefined && out.threw !== undefined) failures.push(`the hook threw into its host: ${out.threw}`);
        if ('return' in c.expect && !isDeepStrictEqual(out.returned ?? null, c.expect.return ?? null))
          failures.push(`returned ${J(out.returned)}, expected ${J(c.expect.return ?? null)}`);
        if (c.expect.args && !isDeepStrictEqual(out.args, c.expect.args)) failures.push(`args after the call ${J(out.args)}, expected ${J(c.expect.args)}`);
        // what the plugin does in the background (forwards, held answers applied over REST)
        const wantHost = c.expect.host ?? [];
        if (c.daemon === 'up') {
          if (!(await until(() => daemon.received.length > 0))) failures.push('nothing reached the daemon');
          else {
            const q = daemon.received[0];
            if (q.contentType !== 'application/json') failures.push(`content-type ${J(q.contentType)}, expected application/json`);
            if (c.request?.path && q.path !== c.request.path) failures.push(`request path ${q.path}, expected ${c.request.path}`);
            if (c.request?.body !== undefined && !contains(JSON.parse(q.body), c.request.body))
              failures.push(`request body ${q.body} does not match ${J(c.request.body)}`);
            if (c.request?.gate !== undefined && (q.gate ?? null) !== c.request.gate)
              failures.push(`x-hookmap-gate ${J(q.gate)}, expected ${J(c.request.gate)}`);
          }
          await until(() => host.requests.length >= wantHost.length);
          if (c.expect.host && !wantHost.length) await sleep(100); // an answer applied after the reply would show by now
        } else {
          await sleep(c.daemon === 'hung' ? 2 * HUNG_BOUND_MS + 200 : 100); // a background hold gives up (bounded) first
        }
        if (c.expect.host && !isDeepStrictEqual(host.requests, wantHost)) failures.push(`host requests ${J(host.requests)}, expected ${J(wantHost)}`);
      } finally {
        child.kill();
        await host.close();
      }
    });
  }
}

/** One case against a stand-in daemon in the given mood, closed whatever happens; the failures it collected. */
async function withFakeDaemon(
  mood: Mood,
  reply: Reply | undefined,
  fn: (daemon: Awaited<ReturnType<typeof fakeDaemon>>, failures: string[]) => Promise<void>,
): Promise<ShimOutcome> {
  const daemon = await fakeDaemon(mood, reply);
  const failures: string[] = [];
  try {
    await fn(daemon, failures);
  } finally {
    await daemon.close();
  }
  return { failures };
}

/** `want` is a subset of `got` (objects by key, everything else equal): a request body "matches". */
function contains(got: unknown, want: unknown): boolean {
  if (want && typeof want === 'object' && !Array.isArray(want))
    return !!got && typeof got === 'object' && Object.entries(want).every(([k, v]) => contains((got as Record<string, unknown>)[k], v));
  return isDeepStrictEqual(got, want);
}

/** The stand-in host's one JSON line (what its hook call did). */
function firstLine(child: ReturnType<typeof spawn>, input: string): Promise<{ registered: string[]; returned?: unknown; args?: unknown[]; threw?: string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the stand-in host said nothing within 10 s${err ? `: ${err.trim()}` : ''}`)), 10_000);
    child.stderr!.on('data', (b: Buffer) => (err += b));
    child.stdout!.on('data', (b: Buffer) => {
      out += b;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.slice(0, nl)));
      } catch (e) {
        reject(e as Error);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`the stand-in host exited (${code})${err ? `: ${err.trim()}` : ''}`));
    });
    child.stdin!.end(input);
  });
}

/** The host's own server (where a plugin applies answers over REST): records every request, answers `true`. */
async function hostServer(): Promise<{ url: string; requests: HostRequest[]; close(): Promise<void> }> {
  const requests: HostRequest[] = [];
  const srv: Server = createServer((req, res) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => {
      let body: unknown = b;
      try {
        body = JSON.parse(b || 'null');
      } catch {
        /* keep the text */
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', body });
      res.end('true');
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`, requests, close: () => new Promise((r) => srv.close(() => r())) };
}
