// Attack: a web page the user opens reads the stream or writes into the log
// (issue 10 "browsers kept out"). Every endpoint of `hookmap up` (relay HTTP,
// SSE, the WebSocket upgrade, the hook endpoints) refuses a cross-site
// Origin and a foreign Host (DNS rebinding), with and without a valid
// token; hook endpoints refuse any body that is not application/json (a
// page's no-preflight `text/plain` POST) with a code and the agent's
// neutral bytes, and nothing reaches the log.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, upgradeStatus, upStack, type UpStack } from './helpers.ts';

let s: UpStack;
beforeAll(async () => {
  s = await upStack();
});
afterAll(async () => {
  await s.done();
});

const EVIL = 'https://evil.example';
const pre = (id: string) =>
  JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'browser-s1', turn_id: 't1', tool_name: 'Bash', tool_use_id: id, tool_input: { command: 'ls' } });
const aepEvent = JSON.stringify({
  aep: '0.1',
  id: 'forged-1',
  type: 'session.started',
  time: '2026-11-30T00:00:00Z',
  source: 'aep://evil/agent/x/session/f',
  agent: 'x',
  session: 'forged',
  seq: 0,
  data: {},
});

/** Every HTTP endpoint, as a request a page could send (its body, its content type). */
const ENDPOINTS: { name: string; method: string; path: string; headers?: Record<string, string>; body?: string }[] = [
  { name: 'discovery GET /events', method: 'GET', path: '/events' },
  { name: 'SSE GET /events', method: 'GET', path: '/events', headers: { accept: 'text/event-stream' } },
  { name: 'SSE GET /stream', method: 'GET', path: '/stream', headers: { accept: 'text/event-stream' } },
  { name: 'GET /.well-known/aep', method: 'GET', path: '/.well-known/aep' },
  { name: 'GET /healthz', method: 'GET', path: '/healthz' },
  { name: 'POST /events', method: 'POST', path: '/events', headers: { 'content-type': 'application/json', 'aep-version': '0.1' }, body: aepEvent },
  { name: 'POST /hooks/codex', method: 'POST', path: '/hooks/codex', headers: { 'content-type': 'application/json' }, body: pre('c-host') },
  {
    name: 'POST /hooks/codex/PreToolUse',
    method: 'POST',
    path: '/hooks/codex/PreToolUse',
    headers: { 'content-type': 'application/json' },
    body: pre('c-host2'),
  },
  { name: 'OPTIONS preflight /hooks/codex', method: 'OPTIONS', path: '/hooks/codex', headers: { 'access-control-request-method': 'POST' } },
];

const logged = () => {
  const dir = join(s.logDir, 'codex');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.jsonl')) : [];
};

describe('every endpoint refuses a foreign Host and a cross-site Origin, with and without a token', () => {
  const withToken = () => ({ authorization: `Bearer ${s.token}` });
  for (const e of ENDPOINTS) {
    for (const tokened of [false, true]) {
      const label = `${e.name} ${tokened ? 'with' : 'without'} a token`;
      it(`${label}: foreign Host (DNS rebinding) -> 421`, async () => {
        const port = new URL(s.up.url).port;
        const r = await raw(s.up.url, {
          method: e.method,
          path: e.path,
          body: e.body,
          headers: { ...e.headers, ...(tokened ? withToken() : {}), host: `rebind.evil.example:${port}`, origin: `http://rebind.evil.example:${port}` },
        });
        expect(r.status).toBe(421);
        expect(JSON.parse(r.body).error).toBe('foreign-host');
      });
      it(`${label}: cross-site Origin -> 403`, async () => {
        const r = await raw(s.up.url, {
          method: e.method,
          path: e.path,
          body: e.body,
          headers: { ...e.headers, ...(tokened ? withToken() : {}), origin: EVIL },
        });
        expect(r.status).toBe(403);
        expect(JSON.parse(r.body).error).toBe('cross-origin');
      });
    }
  }

  it('the WebSocket upgrade: foreign Host and cross-site Origin refused, with and without a token', async () => {
    const port = new URL(s.up.url).port;
    for (const auth of [{}, { authorization: `Bearer ${s.token}` }] as Record<string, string>[]) {
      expect(await upgradeStatus(s.up.url, { ...auth, host: `rebind.evil.example:${port}` })).toBe(421);
      expect(await upgradeStatus(s.up.url, auth, EVIL)).toBe(403);
      expect(await upgradeStatus(s.up.url, auth, 'null')).toBe(403);
    }
    // the control: the same upgrade from a local client with the token opens; without one it is 401
    expect(await upgradeStatus(s.up.url, { authorization: `Bearer ${s.token}` })).toBe(101);
    expect(await upgradeStatus(s.up.url, {})).toBe(401);
  });

  it('the tee upgrade (/surfaces/<agent>/tee): a foreign Host is refused 421 by the same guard', async () => {
    const port = new URL(s.up.url).port;
    const tee = '/surfaces/acp/tee';
    expect(await upgradeStatus(s.up.url, { host: `rebind.evil.example:${port}` }, undefined, tee)).toBe(421);
    expect(await upgradeStatus(s.up.url, {}, EVIL, tee)).toBe(403);
    expect(s.lines.some((l) => l.includes('tee upgrade for acp refused by the Host/Origin guard'))).toBe(true);
  });

  it('nothing a refused request carried reached the log or the relay', async () => {
    expect(logged()).toEqual([]);
    const r = await raw(s.up.url, { path: '/events?from=all&live=0', headers: { accept: 'text/event-stream', authorization: `Bearer ${s.token}` } });
    expect(r.status).toBe(200);
  });
});

describe('what still works (the controls of the tests above)', () => {
  it('loopback names, same-origin pages and plain clients pass the guard', async () => {
    const port = new URL(s.up.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const r = await raw(s.up.url, { path: '/events', headers: { host, authorization: `Bearer ${s.token}` } });
      expect(r.status, host).toBe(200);
    }
    const same = await raw(s.up.url, { path: '/events', headers: { origin: `http://127.0.0.1:${port}`, authorization: `Bearer ${s.token}` } });
    expect(same.status).toBe(200);
    const hook = await raw(s.up.url, { method: 'POST', path: '/hooks/codex', headers: { 'content-type': 'application/json' }, body: pre('c-ok') });
    expect(hook.status).toBe(200);
    expect(logged().length).toBe(1);
  });

  it('an allow-listed origin and an extra host name pass', async () => {
    const t = await upStack({ allowedOrigins: ['https://inbox.example'], allowedHosts: ['my-box.lan'] });
    try {
      const port = new URL(t.up.url).port;
      expect((await raw(t.up.url, { path: '/events', headers: { origin: 'https://inbox.example', authorization: `Bearer ${t.token}` } })).status).toBe(200);
      expect((await raw(t.up.url, { path: '/events', headers: { host: `my-box.lan:${port}`, authorization: `Bearer ${t.token}` } })).status).toBe(200);
      expect((await raw(t.up.url, { path: '/events', headers: { origin: 'https://inbox.example.evil', authorization: `Bearer ${t.token}` } })).status).toBe(
        403,
      );
    } finally {
      await t.done();
    }
  });
});

describe('hook endpoints take only application/json', () => {
  for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx']) {
    it(`${type}: 415, x-hookmap-error, the neutral bytes, nothing logged`, async () => {
      const before = logged().length;
      const r = await raw(s.up.url, { method: 'POST', path: '/hooks/codex', headers: { 'content-type': type }, body: pre(`c-${type}`) });
      expect(r.status).toBe(415);
      expect(r.headers['x-hookmap-error']).toBe('unsupported-media-type');
      expect(r.headers['x-hookmap-exit']).toBe('0');
      expect(r.body).toBe(''); // codex's neutral reply bytes
      expect(logged().length).toBe(before);
      expect(s.lines.some((l) => l.includes('[unsupported-media-type]'))).toBe(true);
    });
  }
});

describe('the next-turn waiter endpoint takes only application/json too', () => {
  it('a page cannot POST a waiter (or an ack, or a nack) cross-site: 415, neutral bytes, no text', async () => {
    for (const path of ['/next-turn/claude-code', `/next-turn/claude-code/ack/${'a'.repeat(32)}`, `/next-turn/claude-code/nack/${'a'.repeat(32)}`]) {
      const r = await raw(s.up.url, { method: 'POST', path, headers: { 'content-type': 'text/plain' }, body: '{"session_id":"x","hook_event_name":"Stop"}' });
      expect([r.status, r.headers['x-hookmap-error'], r.headers['x-hookmap-exit'], r.body]).toEqual([415, 'unsupported-media-type', '0', '']);
    }
  });
});
