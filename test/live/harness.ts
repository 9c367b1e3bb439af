// The live suite's plumbing: scratch folders (HOME, project, HOOKMAP_HOME),
// `hookmap up` / `tail --json` / `answer` / `validate` / `setup` run as the
// CLI a person runs, and a recording tap in front of the daemon's hook
// endpoint that saves every raw payload the real agent sent (redacted, with
// `hookmap record`'s Recorder) before forwarding it unchanged.
import { readLogsBody, type FlatLogRecord } from '../../engine/runtime/surface/otlp-logs.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadVendor, ROOT } from '../../engine/core/descriptor/registry.ts';
import { Recorder } from '../../engine/tools/record/recorder.ts';

export const BIN = join(ROOT, 'bin/hookmap.mjs');

export interface Scratch {
  root: string;
  home: string;
  project: string;
  hookmapHome: string;
  recorded: string;
  done(): void;
}

export function scratch(agent: string): Scratch {
  const root = mkdtempSync(join(tmpdir(), `hookmap-live-${agent}-`));
  const s = { root, home: join(root, 'home'), project: join(root, 'project'), hookmapHome: join(root, 'hookmap'), recorded: join(root, 'recorded') };
  for (const d of [s.home, s.project, s.hookmapHome]) mkdirSync(d, { recursive: true });
  return { ...s, done: () => removeScratch(root) };
}

/**
 * Remove a scratch tree. A process the agent started can still be writing
 * into it for a moment after the test stopped it (qwen's started session
 * wrote its history while the tree went away: ENOTEMPTY), so removal retries,
 * and a tree that still will not go is reported, not a failed test.
 */
function removeScratch(root: string): void {
  if (process.env.HOOKMAP_LIVE_KEEP) return;
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  } catch (e) {
    console.warn(`[live] could not remove ${root}: ${(e as Error).message}`);
  }
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/** Run a command to completion, bounded: SIGTERM at `timeoutMs`, SIGKILL 3 s later. */
export function run(
  cmd: string,
  args: string[],
  o: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    timeoutMs?: number;
    input?: string;
    closeStdinWhen?: (stdout: string) => boolean;
    onLine?: (line: string, write: (s: string) => void) => void;
  } = {},
): Promise<Run> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { env: o.env ?? process.env, cwd: o.cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let pending = '';
    p.stdout.on('data', (c) => {
      stdout += c;
      if (o.onLine) {
        pending += c;
        let i;
        while ((i = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, i);
          pending = pending.slice(i + 1);
          if (!p.stdin.writableEnded) o.onLine(line, (x) => p.stdin.write(x));
        }
      }
      if (o.closeStdinWhen && !p.stdin.writableEnded && o.closeStdinWhen(stdout)) p.stdin.end();
    });
    p.stderr.on('data', (c) => (stderr += c));
    p.stdin.on('error', () => {});
    // a bidirectional agent (stream-json) keeps reading stdin: close it only when told
    if (o.closeStdinWhen) p.stdin.write(o.input ?? '');
    else p.stdin.end(o.input ?? '');
    const kill = (sig: NodeJS.Signals) => {
      try {
        process.kill(-p.pid!, sig); // the whole group: agents spawn helpers
      } catch {}
    };
    const t = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 3000).unref();
    }, o.timeoutMs ?? 120_000);
    p.on('error', (e) => {
      clearTimeout(t);
      resolve({ code: -1, signal: null, stdout, stderr: stderr + String(e), ms: Date.now() - t0, timedOut });
    });
    p.on('close', (code, signal) => {
      clearTimeout(t);
      kill('SIGKILL'); // leftovers of the group, if any
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0, timedOut });
    });
  });
}

export const hookmap = (args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000) => run(process.execPath, [BIN, ...args], { env, timeoutMs });

export interface UpHandle {
  url: string;
  proc: ChildProcess;
  stderr: () => string;
  close(): Promise<void>;
}

/** The environment of every hookmap process of a scratch run: its own HOOKMAP_HOME, no token typed anywhere. */
const hookmapEnv = (s: Scratch) => ({ ...process.env, HOME: s.home, HOOKMAP_HOME: s.hookmapHome, HOOKMAP_TOKEN: '', HOOKMAP_TOKEN_FILE: '' });

export interface UpExtra {
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

/**
 * `hookmap up --port 0 --attention-timeout-ms N` with a scratch HOOKMAP_HOME: the owner token is created there,
 * as for a new user (plus extra flags / env, e.g. --policy, steering opt-ins).
 */
export async function startUp(s: Scratch, attentionTimeoutMs: number, extra: UpExtra = {}): Promise<UpHandle> {
  const env = { ...hookmapEnv(s), ...extra.env };
  const proc = spawn(process.execPath, [BIN, 'up', '--port', '0', '--attention-timeout-ms', String(attentionTimeoutMs), ...(extra.args ?? [])], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (c) => (err += c));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`hookmap up printed no URL in 30 s: ${err}`)), 30_000);
    proc.stdout!.on('data', (c) => {
      out += c;
      const m = out.match(/^(http:\/\/\S+)\n/);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    proc.on('exit', (code) => reject(new Error(`hookmap up exited ${code}: ${err}`)));
  });
  // every daemon has said hello to the relay (the details of /healthz need the token up created)
  const token = readFileSync(join(s.hookmapHome, 'token'), 'utf8').trim();
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    try {
      if ((await (await fetch(`${url}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json()).relay === true) break;
    } catch {}
    await sleep(100);
  }
  return {
    url,
    proc,
    stderr: () => err,
    close: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** `hookmap tail --json --from all`: every event on the relay, deduped, in arrival order. */
export function tail(url: string, s: Scratch): { events: any[]; close(): void } {
  const events: any[] = [];
  const seen = new Set<string>();
  const p = spawn(process.execPath, [BIN, 'tail', '--json', '--from', 'all', '--no-resume', '--state', join(s.root, 'tail-state.json'), '--url', url], {
    env: hookmapEnv(s),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buf = '';
  p.stdout!.on('data', (c) => {
    buf += c;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      try {
        const ev = JSON.parse(line);
        const k = `${ev.source}\u0000${ev.id}`;
        if (!seen.has(k)) {
          seen.add(k);
          events.push(ev);
        }
      } catch {}
    }
  });
  return { events, close: () => p.kill('SIGTERM') };
}

/** `hookmap <steer|cancel|...> ...` over the relay, as a person runs it. */
export function command(url: string, args: string[], s: Scratch, timeoutMs = 60_000): Promise<Run> {
  return run(process.execPath, [BIN, ...args, '--url', url], { timeoutMs, env: hookmapEnv(s) });
}

/** `hookmap answer <id> ...` over the relay. */
export function answer(url: string, id: string, flags: string[], s: Scratch): Promise<Run> {
  return run(process.execPath, [BIN, 'answer', id, ...flags, '--url', url, '--json'], { timeoutMs: 30_000, env: hookmapEnv(s) });
}

/** Every event of every session log of one agent, in file order. */
export function readLogs(s: Scratch, agent: string): { file: string; events: any[] }[] {
  const dir = join(s.hookmapHome, 'logs', agent);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => ({
      file: join(dir, f),
      events: readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    }));
}

/** One OTLP/HTTP logs export the agent sent through the tap: how it was encoded, what it carried (flattened), what hookmap answered. */
export interface TapExport {
  vendor: string;
  contentType: string;
  encoding: string;
  bytes: number;
  records: FlatLogRecord[];
  status?: number;
  at: number;
}
export interface Tap {
  url: string;
  hooks: { hook?: string; body: any; at: number }[];
  otlp: TapExport[];
  retarget(url: string): void;
  close(): Promise<void>;
}

/**
 * A loopback tap between the agent and the daemon: every POST /hooks/<agent>
 * body is saved with hookmap record's Recorder (redacted) and forwarded
 * byte for byte; the daemon's reply goes back unchanged. An OTLP logs export
 * (POST /otlp/<vendor>/v1/logs) is kept as it came (its encoding) and as
 * the receiver flattens it, and forwarded byte for byte too.
 */
export async function startTap(target: string, agent: string, out: string): Promise<Tap> {
  const d = loadVendor(agent);
  const rec = new Recorder(d, out, { agentVersion: process.env[`HOOKMAP_LIVE_VERSION_${agent.replace(/-/g, '_').toUpperCase()}`] });
  const hooks: Tap['hooks'] = [];
  const otlp: TapExport[] = [];
  const { Mapper } = await import('../../engine/core/map/mapper.ts');
  const names = new Mapper(d);
  let t = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const m = (req.url ?? '').match(/^\/hooks\/([^/?]+)(?:\/([^/?]+))?/);
      if (req.method === 'POST' && m && m[1] === agent) {
        let body: any;
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          body = raw.toString('utf8');
        }
        hooks.push({ hook: m[2] ?? body?.hook_event_name, body, at: Date.now() });
        await rec.save(m[2] ? decodeURIComponent(m[2]) : undefined, raw, (p) => names.hookNameOf(p));
      }
      const o = (req.url ?? '').match(/^\/otlp\/([^/?]+)\/v1\/logs/);
      let exp: TapExport | undefined;
      if (req.method === 'POST' && o) {
        const contentType = String(req.headers['content-type'] ?? '');
        const encoding = String(req.headers['content-encoding'] ?? '');
        let records: FlatLogRecord[] = [];
        try {
          records = readLogsBody({ contentType, contentEncoding: encoding, body: raw, maxBytes: 64 << 20 }).records;
        } catch {
          /* the receiver answers for it */
        }
        exp = { vendor: decodeURIComponent(o[1]), contentType, encoding, bytes: raw.length, records, at: Date.now() };
        otlp.push(exp);
      }
      const fwd = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } }, (r) => {
        if (exp) exp.status = r.statusCode;
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      fwd.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      fwd.end(raw);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hooks,
    otlp,
    retarget: (url: string) => {
      t = new URL(url);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
