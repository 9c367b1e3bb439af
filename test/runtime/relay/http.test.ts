// HTTP binding conformance (AEP-0003 §3.2, §3.4, §8) and hostile bodies.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { agentEv, ev, post, SseClient, startRelay } from './helpers.ts';

let stop: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stop) await s();
  stop = [];
});
async function relay(opts = {}) {
  const r = await startRelay(opts);
  stop.push(() => r.relay.close());
  return r;
}

describe('discovery (AEP-0003 §3.4)', () => {
  it('serves the same document at GET /events and /.well-known/aep, advertising every bound', async () => {
    const { url } = await relay({ buffer: 7, maxSessions: 9, maxBatch: 11, maxFrom: 3 });
    const a = await (await fetch(`${url}/events`)).json();
    const b = await (await fetch(`${url}/.well-known/aep`)).json();
    expect(a).toEqual(b);
    expect(a.aep).toEqual(['0.1']);
    expect(a.endpoints).toEqual({ events: '/events', stream: '/stream', socket: '/socket' });
    expect(a.capabilities.filters).toEqual(['attr-match']);
    expect(a.capabilities.replay).toMatchObject({ buffer: 7, all: true });
    expect(a.capabilities.roster).toEqual({});
    expect(a.capabilities.limits).toMatchObject({ sessions: 9, batch_events: 11, from_positions: 3 });
  });
});

describe('POST /events', () => {
  it('answers an unsupported AEP-Version with 426 and the supported versions', async () => {
    const { url } = await relay();
    const r = await post(url, [ev('s', 1)], { headers: { 'aep-version': '9.0' } });
    expect(r.status).toBe(426);
    expect(r.body).toEqual({ versions: ['0.1'] });
  });

  it('rejects a bad envelope with 400 and the reason; a bad batch line rejects the batch whole', async () => {
    const { url, relay: rl } = await relay();
    const bad = ev('s', 1);
    delete bad.source;
    const single = await post(url, JSON.stringify(bad));
    expect(single.status).toBe(400);
    expect(single.body.error).toBe('invalid-event');
    expect(single.body.detail).toMatch(/source/);
    const batch = await post(url, [ev('s', 1), { ...ev('s', 2), seq: -1 }]);
    expect(batch.status).toBe(400);
    expect(batch.body).toMatchObject({ error: 'invalid-event', line: 1 });
    expect(rl.core.store.stats().events).toBe(0);
    const junk = await post(url, '{"not json');
    expect(junk.status).toBe(400);
    expect(junk.body.detail).toMatch(/malformed JSON/);
  });

  it('answers 415 to a wrong content type', async () => {
    const { url } = await relay();
    const r = await post(url, JSON.stringify(ev('s', 1)), { headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
  });

  it('answers 413 to a batch over the event-count cap, ingesting nothing', async () => {
    const { url, relay: rl } = await relay({ maxBatch: 3 });
    const r = await post(
      url,
      [1, 2, 3, 4].map((i) => ev('s', i)),
    );
    expect(r.status).toBe(413);
    expect(r.body.error).toBe('too-many-events');
    expect(rl.core.store.stats().events).toBe(0);
  });

  it('dedupes buffer admission on (source, id) but accepts the redelivery', async () => {
    const { url, relay: rl } = await relay();
    const e = ev('s', 1);
    expect((await post(url, [e])).body).toMatchObject({ accepted: 1, admitted: 1 });
    expect((await post(url, [e])).body).toMatchObject({ accepted: 1, admitted: 0, duplicates: 1 });
    expect(rl.core.store.stats().events).toBe(1);
  });

  it('refuses commands: control flows only on an authenticated WebSocket', async () => {
    const { url } = await relay({ token: 't' });
    const cmd: Record<string, any> = { ...ev('s', 0), type: 'control.cancel', data: { scope: 'session' } };
    delete cmd.seq;
    const r = await post(url, [cmd], { token: 't' });
    expect(r.status).toBe(403);
  });
});

describe('hostile bodies', () => {
  it('answers 413 to a 100 MB body announced by Content-Length, and keeps serving', async () => {
    const { url, port } = await relay();
    const status = await new Promise<number>((resolve) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: '/events', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': 100 * 1024 * 1024 } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
          req.destroy();
        },
      );
      req.on('error', () => {});
      req.write(Buffer.alloc(64 * 1024, 0x20));
    });
    expect(status).toBe(413);
    expect((await post(url, [ev('s', 1)])).status).toBe(202);
  });

  it('answers 413 to an oversize chunked body (no Content-Length), and keeps serving', async () => {
    const { url, port } = await relay({ maxBody: 256 * 1024 });
    const status = await new Promise<number>((resolve) => {
      let done = false;
      const req = http.request({ host: '127.0.0.1', port, path: '/events', method: 'POST', headers: { 'content-type': 'application/x-ndjson' } }, (res) => {
        done = true;
        res.resume();
        resolve(res.statusCode!);
        req.destroy();
      });
      req.on('error', () => {});
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        // Keep uploading until the relay answers; it must answer long before 100 MB.
        for (let i = 0; i < 16 && !done && !req.destroyed; i++) req.write(chunk);
        if (!done && !req.destroyed) setImmediate(pump);
      };
      pump();
    });
    expect(status).toBe(413);
    expect((await post(url, [ev('s', 1)])).status).toBe(202);
  });
});

describe('auth (AEP-0003 §8.1) and /healthz', () => {
  it('requires the token on every surface but /healthz; accepts the header or access_token', async () => {
    const { url } = await relay({ token: 'sekret' });
    expect((await fetch(`${url}/events`)).status).toBe(401);
    expect((await fetch(`${url}/events`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await post(url, [ev('s', 1)])).status).toBe(401);
    expect((await fetch(`${url}/events`, { headers: { authorization: 'Bearer sekret' } })).status).toBe(200);
    expect((await post(url, [ev('s', 1)], { token: 'sekret' })).status).toBe(202);
    const sse = await SseClient.open(url, { access_token: 'sekret' });
    expect(sse.status).toBe(200);
    sse.close();
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true });
    const counts = await (await fetch(`${url}/healthz`, { headers: { authorization: 'Bearer sekret' } })).json();
    expect(counts).toMatchObject({ ok: true, sessions: 1 });
    expect(typeof counts.uptime_s).toBe('number');
  });

  it('fans agent-scoped events out live only, never buffered', async () => {
    const { url, relay: rl } = await relay();
    const sse = await SseClient.open(url);
    await post(url, [agentEv(), ev('s', 1)]);
    const got = await sse.waitEvents(2);
    expect(got.map((e) => e.type)).toEqual(['agent.heartbeat', 'tool.completed']);
    // Agent-scoped events carry no resume position.
    expect(sse.msgs.find((m) => m.event === 'agent.heartbeat')!.id).toBeUndefined();
    expect(rl.core.store.stats().events).toBe(1);
    sse.close();
  });
});
