// `hookmap up --backplane` (engine/app/up.ts, engine/app/up-config.ts):
// two `up` processes' worth of relay + daemon on one NATS JetStream stream;
// a hook posted to one is seen by a subscriber of the other, once. The
// config file's `backplane:` key, and its errors. Real nats-server -js.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { discoverToken } from '../../engine/runtime/auth/discover.ts';
import { startUp } from '../../engine/app/up.ts';
import { runDoctor } from '../../engine/tools/doctor/index.ts';
import { renderReport } from '../../engine/tools/doctor/render.ts';
import { ConfigError, loadUpConfig } from '../../engine/app/up-config.ts';
import { WsClient } from '../runtime/relay/helpers.ts';
import { NATS_MISSING, NatsServer } from './nats.ts';
import { tokenSources } from '../../engine/cli/config.ts';
import { resolveTarget } from '../../engine/cli/config.ts';

const TOKEN = 'fleet-up-token';
const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

function temp(): string {
  const d = mkdtempSync(join(tmpdir(), 'hookmap-fleet-up-'));
  stops.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

describe('the up config backplane key', () => {
  it('takes a URL or a mapping with retention, and names what is wrong', () => {
    const dir = temp();
    const f = join(dir, 'up.yaml');
    writeFileSync(f, 'backplane: nats://127.0.0.1:4222\n');
    expect(loadUpConfig(f, {}).backplane).toEqual({ url: 'nats://127.0.0.1:4222' });
    writeFileSync(f, 'backplane: { url: "nats://a:4222,nats://b:4222", max_age: 12h, max_bytes: 512MiB, optional: true }\n');
    expect(loadUpConfig(f, {}).backplane).toMatchObject({
      url: 'nats://a:4222,nats://b:4222',
      maxAgeMs: 12 * 3600_000,
      maxBytes: 512 * 2 ** 20,
      optional: true,
    });
    writeFileSync(f, 'backplane: http://x\n');
    expect(() => loadUpConfig(f, {})).toThrow(ConfigError);
    expect(() => loadUpConfig(f, {})).toThrow(/backplane must be nats:\/\/host:port/);
    writeFileSync(f, 'backplane: { url: nats://a:1, max_age: forever }\n');
    expect(() => loadUpConfig(f, {})).toThrow(/backplane.max_age must be a duration/);
    writeFileSync(f, 'backplane: { url: nats://a:1, retention: 1 }\n');
    expect(() => loadUpConfig(f, {})).toThrow(/unknown key 'retention'/);
  });
});

describe.skipIf(!!NATS_MISSING)('up --backplane (nats-server -js)', () => {
  let nats: NatsServer;
  beforeAll(async () => {
    nats = await NatsServer.start();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it('a hook posted to one up reaches a subscriber of another up, once', async () => {
    const backplane = { url: nats.url, stream: `UP${process.pid}`, prefix: `up${process.pid}` };
    const ups = [];
    for (let i = 0; i < 2; i++) {
      const up = await startUp({ port: 0, token: TOKEN, agents: [{ descriptor: 'codex' }], logDir: temp(), stateDir: temp(), backplane });
      stops.push(() => up.close());
      ups.push(up);
    }
    const sub = await WsClient.hello(ups[1].url, { role: 'consumer' }, { authorization: `Bearer ${TOKEN}` });
    stops.push(() => sub.close());
    sub.send({ type: 'subscribe', id: 's', filter: { type: 'tool.*' } });
    await sub.next((m) => m.type === 'subscribed');
    const body = {
      hook_event_name: 'PreToolUse',
      session_id: 'fleet-up-s1',
      turn_id: 't1',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'c1',
    };
    const res = await fetch(`${ups[0].url}/hooks/codex`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const got = await sub.next((m) => m.data?.tool?.call_id === 'c1');
    expect(got.session).toBe('fleet-up-s1');
    // once: a second event through the stream, and still one c1
    await fetch(`${ups[0].url}/hooks/codex`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, tool_use_id: 'c2' }),
    });
    await sub.next((m) => m.data?.tool?.call_id === 'c2');
    expect(sub.msgs.filter((m) => m.data?.tool?.call_id === 'c1')).toEqual([]);
    const health = await (await fetch(`${ups[1].url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
    expect(health.backplane).toMatchObject({ stream: backplane.stream, connected: true, lag: 0 });
    expect(health.backplane.consumers).toBeGreaterThanOrEqual(2);
    // hookmap doctor reports it with the token it finds as every client does (engine/runtime/auth/discover.ts: here
    // $HOOKMAP_HOME/token for a loopback relay); without one healthz says nothing of the topology
    const home = temp();
    writeFileSync(join(home, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    const env = { HOOKMAP_HOME: home };
    const found = discoverToken({ url: ups[1].url, from: tokenSources(env) });
    expect(found.from).toBe('home');
    const report = await runDoctor({ target: resolveTarget(env), dir: home, url: ups[1].url, agents: [], token: found.token });
    const bp = report.findings.filter((f) => f.area === 'backplane');
    expect(bp.map((f) => f.status)).toEqual(['info', 'ok', 'ok', 'ok']);
    expect(renderReport(report)).toMatch(/NATS auth none, no TLS: whoever reaches the NATS server reads the stream/);
    const text = renderReport(report);
    expect(text).toMatch(new RegExp(`backplane\n(?:.*\n){0,2}.*stream ${backplane.stream}: \\d+ events`));
    expect(text).toMatch(/consumers on the stream, 2 relays in the roster/);
    expect(text).toMatch(/lag 0 \(consumed \d+ of \d+\)/);
    const blind = await runDoctor({ target: resolveTarget({ HOOKMAP_HOME: temp() }), dir: home, url: ups[1].url, agents: [] });
    expect(blind.findings.filter((f) => f.area === 'backplane')).toEqual([]);
  });
});
