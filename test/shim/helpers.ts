// Test helpers: a fake daemon on loopback that follows the daemon contract
// (POST /hooks/<agent>[/<hook>] -> 200 + body + x-hookmap-exit), in one of
// four moods, and a runner for real shim processes.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export type Mood = 'up' | 'down' | 'hung' | 'error';
export interface Reply { status?: number; body?: string; exit?: number | string | null }
export interface Received { method: string; path: string; body: string; contentType?: string }

export interface FakeDaemon { url: string; received: Received[]; close(): Promise<void> }

export const BIN = fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url));

export async function fakeDaemon(mood: Mood, reply: Reply = {}): Promise<FakeDaemon> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), contentType: req.headers['content-type'] });
      if (req.url === '/healthz') {
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ ok: true, relay: false }));
      }
      if (mood === 'hung') return; // never answers
      if (mood === 'error') {
        res.statusCode = 500;
        return res.end('{"error":"boom"}');
      }
      res.statusCode = reply.status ?? 200;
      if (reply.exit !== null && reply.exit !== undefined) res.setHeader('x-hookmap-exit', String(reply.exit));
      res.end(reply.body ?? '');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  if (mood === 'down') await close(); // the port was ours a moment ago: now refused
  return { url, received, close: mood === 'down' ? async () => {} : close };
}

export interface RunResult { stdout: Buffer; stderr: string; code: number | null }

export function runProcess(cmd: string, args: string[], stdin: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    p.stdout.on('data', (c: Buffer) => out.push(c));
    p.stderr.on('data', (c: Buffer) => (err += c));
    p.on('error', reject);
    p.on('close', (code) => resolve({ stdout: Buffer.concat(out), stderr: err, code }));
    p.stdin.on('error', () => {}); // a shim may exit before reading everything
    p.stdin.end(stdin);
  });
}
