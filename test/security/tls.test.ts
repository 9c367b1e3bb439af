// Off-host bindings need TLS (AEP-0003 §8.1): `hookmap up --tls-cert/--tls-key`
// serves https/wss on its one port; its daemons reach the relay over
// loopback through the pinned certificate; plain HTTP gets no answer there.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTlsFiles } from '../../engine/runtime/auth/tls.ts';
import { parseBridgeSpec } from '../../engine/person/bridge/config.ts';
import { until, upStack } from './helpers.ts';
import { selfSigned as makeSelfSigned } from '../helpers/certs.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookmap-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const selfSigned = () => makeSelfSigned(dir);

function get(url: string, ca: Buffer | string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = https.request(
      { host: u.hostname, port: u.port, path: u.pathname, ca, servername: 'hookmap-test.lan', headers: { host: `hookmap-test.lan:${u.port}`, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('hookmap up with TLS', () => {
  it('serves https/wss; daemons link over the pinned certificate; plain http is not served', async () => {
    const files = selfSigned();
    const tls = loadTlsFiles(files.cert, files.key);
    const s = await upStack({ tls, allowedHosts: ['hookmap-test.lan'] });
    try {
      expect(s.up.url).toMatch(/^https:\/\//);
      const auth = { authorization: `Bearer ${s.token}` };
      await until('the daemon hello over wss', async () => JSON.parse((await get(`${s.up.url}/healthz`, tls.cert, auth)).body).relay === true);
      expect((await get(`${s.up.url}/events`, tls.cert)).status).toBe(401);
      expect((await get(`${s.up.url}/events`, tls.cert, auth)).status).toBe(200);
      // a client that does not trust the certificate never gets to send its token
      await expect(get(`${s.up.url}/events`, '', auth)).rejects.toThrow();
      // plain HTTP on the TLS port is no way in
      const plain = await fetch(s.up.url.replace(/^https:/, 'http:') + '/healthz').then(
        (r) => r.status,
        () => 'refused',
      );
      expect(plain).not.toBe(200);
      // a WebSocket consumer over wss
      const ws = new WebSocket(`${s.up.url.replace(/^https/, 'wss')}/socket`, {
        ca: tls.cert,
        servername: 'hookmap-test.lan',
        headers: { ...auth, host: `hookmap-test.lan:${new URL(s.up.url).port}` },
      } as WebSocket.ClientOptions);
      const hello = await new Promise<any>((resolve, reject) => {
        ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'consumer' })));
        ws.on('message', (d) => resolve(JSON.parse(d.toString())));
        ws.on('error', reject);
      });
      expect(hello.type).toBe('hello');
      ws.close();
      expect(s.lines.join('\n')).toMatch(/listening on https:\/\//);
    } finally {
      await s.done();
    }
  }, 30_000);

  it("the operator session's link reaches the relay over TLS too: a policy's x.hookmap.policy.loaded is on the stream", async () => {
    const files = selfSigned();
    const tls = loadTlsFiles(files.cert, files.key);
    const policyIn = (home: string) => {
      const policy = join(home, 'policy.yaml');
      writeFileSync(policy, 'rules:\n  - { id: red, on: run.finished, agent: codex, decide: continue, reason: "red" }\n');
      return { policy };
    };
    const s = await upStack({ tls, allowedHosts: ['hookmap-test.lan'], setup: policyIn });
    try {
      const ws = new WebSocket(`${s.up.url.replace(/^https/, 'wss')}/socket`, {
        ca: tls.cert,
        servername: 'hookmap-test.lan',
        headers: { authorization: `Bearer ${s.token}`, host: `hookmap-test.lan:${new URL(s.up.url).port}` },
      } as WebSocket.ClientOptions);
      const seen: any[] = [];
      ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'consumer' })));
      ws.on('message', (d) => {
        const m = JSON.parse(d.toString());
        if (m.type === 'hello') ws.send(JSON.stringify({ type: 'subscribe', id: 'all', from: 'all' }));
        else seen.push(m);
      });
      const loaded = await until('the policy loaded on the stream', () => seen.find((e) => e.type === 'x.hookmap.policy.loaded'));
      expect(loaded).toMatchObject({ agent: 'hookmap', data: { file: 'policy.yaml', rules: 1 } });
      ws.close();
    } finally {
      await s.done();
    }
  }, 30_000);

  it('a bridge under `up --tls-*` reads its own relay over the pinned certificate (no NODE_EXTRA_CA_CERTS needed)', async () => {
    const files = selfSigned();
    const tls = loadTlsFiles(files.cert, files.key);
    const got: any[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push(JSON.parse(body));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const sink = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ce`;
    const s = await upStack({ tls, allowedHosts: ['hookmap-test.lan'], hello: false, bridges: [{ ...parseBridgeSpec(`cloudevents=${sink}`), batchMs: 20 }] });
    try {
      const hook = await new Promise<number>((resolve, reject) => {
        const u = new URL(`${s.up.url}/hooks/codex`);
        const req = https.request(
          {
            host: u.hostname,
            port: u.port,
            path: u.pathname,
            method: 'POST',
            ca: tls.cert,
            servername: 'hookmap-test.lan',
            headers: { host: `hookmap-test.lan:${u.port}`, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(
          JSON.stringify({
            hook_event_name: 'SessionStart',
            session_id: 'tls-bridge-1',
            cwd: '/tmp',
            source: 'startup',
            model: 'gpt-5',
            transcript_path: null,
          }),
        );
      });
      expect(hook).toBe(200);
      const ce = await until(
        'the session.started CloudEvent at the sink',
        () => got.flat().find((e) => e.type === 'dev.aep.session.started' || String(e.type).endsWith('session.started')),
        15_000,
      );
      expect(ce).toBeTruthy();
      expect(s.lines.join('\n')).not.toMatch(/self.signed|unable to verify|CERT/i);
    } finally {
      await s.done();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  }, 30_000);

  it('refuses unreadable or non-PEM files with the file named', () => {
    expect(() => loadTlsFiles(join(dir, 'missing.pem'), join(dir, 'missing.key'))).toThrow(/cannot read the TLS certificate .*missing\.pem/);
    const files = selfSigned();
    expect(() => loadTlsFiles(files.key, files.key)).toThrow(/is not a PEM certificate/);
  });
});
