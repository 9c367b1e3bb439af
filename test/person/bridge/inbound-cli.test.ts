// CloudEvents in, AEP out (engine/person/bridge/ce-inbound.ts, AEP-0005 §2) through
// a real relay, and the `hookmap bridge` command's contract: usage errors
// exit 2, a file with broken lines exits 1 naming each line, a good file
// exits 0 with one JSONL record per projected event.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startCeInbound, type CeInbound } from '../../../engine/person/bridge/ce-inbound.ts';
import { toCloudEvent, toHttp } from '../../../engine/person/bridge/projection/cloudevents.ts';
import { run as bridgeCmd } from '../../../engine/cli/commands/bridge.ts';
import type { Relay } from '../../../engine/runtime/relay/index.ts';
import { SseClient, startRelay } from '../../runtime/relay/helpers.ts';
import { fixtureEvent } from './fixtures.ts';

const TOKEN = 'inbound-token';
let relay: Relay;
let url: string;
let inbound: CeInbound;
let dir: string;

beforeAll(async () => {
  ({ relay, url } = await startRelay({ token: TOKEN }));
  inbound = await startCeInbound({ relayUrl: url, token: TOKEN });
  dir = mkdtempSync(join(tmpdir(), 'hookmap-bridge-cli-'));
});
afterAll(async () => {
  await inbound.close();
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('CloudEvents inbound → relay', () => {
  it('binary, structured and batch modes become the original AEP events on the relay; a foreign type is refused alone', async () => {
    const sub = await SseClient.open(url, { from: 'all' }, { authorization: `Bearer ${TOKEN}` });
    const evs = ['session.started', 'run.started', 'tool.completed'].map((n) =>
      fixtureEvent(n, { session: 'inb-1', source: 'aep://devbox/agent/claude-code/session/inb-1' }),
    );
    const bin = toHttp(toCloudEvent(evs[0], 'full'), 'binary');
    const r1 = await fetch(inbound.url, { method: 'POST', headers: bin.headers, body: bin.body });
    expect(r1.status).toBe(202);
    const st = toHttp(toCloudEvent(evs[1], 'full'), 'structured');
    const r2 = await fetch(inbound.url, { method: 'POST', headers: st.headers, body: st.body });
    expect(r2.status).toBe(202);
    const foreign = { specversion: '1.0', id: 'gh-9', source: 'https://github.com/acme/app', type: 'com.github.push', time: '2026-11-30T09:00:00Z' };
    const withIllegal = { ...toCloudEvent(evs[2], 'full'), bad_name: 'x' };
    const r3 = await fetch(inbound.url, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents-batch+json' },
      body: JSON.stringify([foreign, withIllegal]),
    });
    expect(r3.status).toBe(202);
    const body = await r3.json();
    expect(body).toMatchObject({ accepted: 1, refused: 1 });
    expect(body.results[0]).toMatchObject({ ok: false, code: 'foreign-type' });
    expect(body.results[1].ok).toBe(true);
    expect(body.results[1].dropped[0]).toMatch(/'bad_name'/);
    const got = await sub.waitEvents(3);
    expect(got).toEqual(evs);
    sub.close();
  });

  it('refuses what is not a CloudEvent, and says so', async () => {
    const r = await fetch(inbound.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hello": 1}' });
    expect(r.status).toBe(400);
    expect((await r.json()).error).toBe('invalid-cloudevent');
    const g = await fetch(inbound.url);
    expect(g.status).toBe(405);
  });

  it('a relay that refuses (wrong token) is reported as 502, not swallowed', async () => {
    const bad = await startCeInbound({ relayUrl: url, token: 'wrong' });
    const h = toHttp(toCloudEvent(fixtureEvent('run.started'), 'full'), 'structured');
    const r = await fetch(bad.url, { method: 'POST', headers: h.headers, body: h.body });
    expect(r.status).toBe(502);
    expect((await r.json()).detail).toMatch(/401/);
    await bad.close();
  });
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((c: any) => (out.push(...String(c).split('\n').filter(Boolean)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: any) => (err.push(...String(c).split('\n').filter(Boolean)), true));
  return { out, err, done: () => vi.restoreAllMocks() };
}

describe('hookmap bridge (command)', () => {
  it('usage errors exit 2 with the reason', async () => {
    for (const [args, msg] of [
      [[], /one target/],
      [['zipkin'], /kind must be one of otlp, cloudevents, ocsf/],
      [['otlp', '--protocol', 'grpc'], /protocol must be one of http\/protobuf, http\/json/],
      [['ocsf', '--mode', 'binary'], /mode is a cloudevents option/],
      [['cloudevents', '--endpoint', 'ftp://x'], /must be http:\/\/ or https:\/\//],
      [['ocsf', '--inbound'], /--inbound is the CloudEvents/],
    ] as const) {
      const c = capture();
      const code = await bridgeCmd([...args]);
      c.done();
      expect(code, args.join(' ')).toBe(2);
      expect(c.err.join('\n'), args.join(' ')).toMatch(msg);
    }
  });

  it('--from-file: bad lines reported by number (exit 1), every good line projected', async () => {
    const file = join(dir, 'mixed.jsonl');
    const lines = ['session.started', 'tool.requested', 'tool.denied', 'session.ended'].map((n) => JSON.stringify(fixtureEvent(n)));
    lines.splice(2, 0, '{"truncated":');
    writeFileSync(file, lines.join('\n') + '\n');
    const c = capture();
    const code = await bridgeCmd(['ocsf', '--from-file', file]);
    c.done();
    expect(code).toBe(1);
    expect(c.err.some((l) => l.startsWith(`${file}:3: invalid-json:`))).toBe(true);
    expect(c.out.map((l) => JSON.parse(l).message)).toEqual(['session.started', 'tool.requested', 'tool.denied', 'session.ended']);
    writeFileSync(file, lines.filter((_, i) => i !== 2).join('\n'));
    const c2 = capture();
    expect(await bridgeCmd(['cloudevents', '--from-file', file, '--capture', 'full'])).toBe(0);
    c2.done();
    expect(c2.out.map((l) => JSON.parse(l).type)).toEqual([
      'dev.aep.session.started',
      'dev.aep.tool.requested',
      'dev.aep.tool.denied',
      'dev.aep.session.ended',
    ]);
  });
});
