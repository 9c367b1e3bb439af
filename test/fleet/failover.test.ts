// Failover on the fleet backplane, counted against the daemons' own logs
// (engine/runtime/daemon/relay-link.ts with a relay URL list, engine/runtime/relay/backplane/index.ts):
// a `hookmap relay --backplane` process SIGKILLed mid-stream while daemons
// emit through it, and nats-server restarted mid-stream. Subscribers on the
// surviving relays must hold exactly the logged events, once each, in
// (epoch, seq) order. Real nats-server -js on loopback; explicit tokens.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RelayLink } from '../../engine/runtime/daemon/relay-link.ts';
import { SessionLog } from '../../engine/runtime/daemon/session-log.ts';
import { createRelay, openBackplane, resolveLimits, type Relay } from '../../engine/runtime/relay/index.ts';
import { until } from '../runtime/relay/helpers.ts';
import { NATS_MISSING, NatsServer, freePort } from './nats.ts';

const TOKEN = 'fleet-failover-token';
const BIN = join(import.meta.dirname, '../../bin/hookmap.mjs');

let nats: NatsServer;
let streamN = 0;
const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

async function inProcessRelay(stream: string): Promise<{ relay: Relay; url: string; seen: any[] }> {
  const store = await openBackplane({ url: nats.url, stream, prefix: stream.toLowerCase(), token: TOKEN }, resolveLimits({}), () => {});
  const relay = createRelay({ host: '127.0.0.1', port: 0, token: TOKEN, store });
  const { url } = await relay.listen();
  const seen: any[] = [];
  relay.subscribe({}, (ev) => seen.push(ev));
  stops.push(() => relay.close());
  return { relay, url, seen };
}

/** A scratch HOOKMAP_HOME for a spawned relay (its audit file), and the fleet token in the environment, as a user would set it. */
function relayEnv(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'hookmap-fleet-home-'));
  stops.push(() => rmSync(home, { recursive: true, force: true }));
  return { ...process.env, HOOKMAP_HOME: home, HOOKMAP_TOKEN: TOKEN, HOOKMAP_TOKEN_FILE: '' };
}

/** `hookmap relay --backplane` as its own process, so it can be killed for real. */
async function processRelay(stream: string): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(
    process.execPath,
    [BIN, 'relay', '--port', '0', '--backplane', nats.url, '--backplane-stream', stream, '--backplane-prefix', stream.toLowerCase()],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: relayEnv(),
    },
  );
  stops.push(() => void (proc.exitCode === null && proc.kill('SIGKILL')));
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/\S+)\n/m.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once('exit', (code) => reject(new Error(`relay exited ${code}: ${err}`)));
  });
  return { proc, url };
}

/** A daemon's emitting half: its session log and its relay link (a relay URL list). */
function daemon(name: string, urls: string[]) {
  const dir = mkdtempSync(join(tmpdir(), `hookmap-fleet-${name}-`));
  const log = new SessionLog(dir);
  const link = new RelayLink({
    url: urls.join(','),
    token: TOKEN,
    identity: { agent: 'fleet', instance: name },
    capabilities: {},
    log,
    cursorFile: join(dir, 'relay-cursors.json'),
    onCommand: () => {},
    backoffMs: { initial: 50, max: 500 },
  });
  link.start();
  const logged: any[] = [];
  let seq = 0;
  stops.push(async () => {
    await link.close();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    link,
    logged,
    emit() {
      const ev = {
        aep: '0.1' as const,
        id: `${name}-${++seq}`,
        type: 'tool.completed',
        time: new Date().toISOString(),
        source: `aep://fleet/agent/fleet/session/${name}`,
        agent: 'fleet',
        session: `sess-${name}`,
        seq,
        epoch: 1,
      };
      logged.push(ev);
      link.deliver(log.append(ev));
    },
  };
}

/** Exactly the logged events, once each, in order, per session. */
function expectExactly(seen: any[], daemons: { logged: any[] }[]): void {
  for (const d of daemons) {
    const session = d.logged[0].session;
    expect(
      seen.filter((e) => e.session === session).map((e) => e.id),
      session,
    ).toEqual(d.logged.map((e) => e.id));
  }
}

const tick = () => new Promise((r) => setTimeout(r, 2));

describe.skipIf(!!NATS_MISSING)('fleet failover (nats-server -js)', () => {
  beforeAll(async () => {
    nats = await NatsServer.start();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it('a relay killed mid-stream: its daemons fail over to the next relay, nothing lost or doubled', async () => {
    const stream = `F${++streamN}${process.pid}`;
    const doomed = await processRelay(stream);
    const b = await inProcessRelay(stream);
    const c = await inProcessRelay(stream);
    // two daemons on the doomed relay (then B), one on C
    const d1 = daemon('d1', [doomed.url, b.url]);
    const d2 = daemon('d2', [doomed.url, c.url]);
    const d3 = daemon('d3', [c.url, b.url]);
    await until(() => d1.link.ready && d2.link.ready && d3.link.ready, 'every link up');
    const all = [d1, d2, d3];
    for (let i = 0; i < 150; i++) {
      for (const d of all) d.emit();
      if (i % 10 === 0) await tick();
      if (i === 75) doomed.proc.kill('SIGKILL'); // mid-stream, events in flight
    }
    const total = 450;
    await until(() => b.seen.length >= total && c.seen.length >= total, 'every logged event on both surviving relays');
    expect(d1.link.relays.current).toBe(b.url);
    expect(d2.link.relays.current).toBe(c.url);
    // a marker through the stream after the last event: nothing late arrives
    d3.emit();
    await until(() => b.seen.length >= total + 1 && c.seen.length >= total + 1, 'the marker');
    expectExactly(b.seen, all);
    expectExactly(c.seen, all);
  });

  it('hookmap relay --backplane with NATS unreachable: exit 1 naming the URL; --backplane-optional serves local clients', async () => {
    const dead = `nats://127.0.0.1:${await freePort()}`;
    const run = (extra: string[]) =>
      spawn(process.execPath, [BIN, 'relay', '--port', '0', '--backplane', dead, ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env: relayEnv() });
    const hard = run([]);
    let err = '';
    hard.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => hard.once('exit', r));
    expect(code).toBe(1);
    expect(err).toContain(`hookmap relay: backplane ${dead} unreachable`);
    const soft = run(['--backplane-optional']);
    stops.push(() => void (soft.exitCode === null && soft.kill('SIGKILL')));
    let out = '';
    let softErr = '';
    soft.stderr!.on('data', (d) => (softErr += d));
    const url = await new Promise<string>((resolve, reject) => {
      soft.stdout!.on('data', (d) => {
        out += d;
        const m = /^(http:\/\/\S+)\n/m.exec(out);
        if (m) resolve(m[1]);
      });
      soft.once('exit', (c) => reject(new Error(`exited ${c}: ${softErr}`)));
    });
    expect(softErr).toMatch(/serving local clients only/);
    const res = await fetch(`${url}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        aep: '0.1',
        id: 'x1',
        type: 'tool.completed',
        time: new Date().toISOString(),
        source: 'aep://h/agent/a/session/s',
        agent: 'a',
        session: 's',
        seq: 1,
      }),
    });
    expect(res.status).toBe(202);
    soft.kill('SIGTERM');
  });

  it('nats-server restarted mid-stream: nothing lost, nothing twice', async () => {
    const stream = `F${++streamN}${process.pid}`;
    const a = await inProcessRelay(stream);
    const b = await inProcessRelay(stream);
    const d1 = daemon('r1', [a.url]);
    const d2 = daemon('r2', [b.url, a.url]);
    await until(() => d1.link.ready && d2.link.ready, 'links up');
    for (let i = 0; i < 40; i++) {
      d1.emit();
      d2.emit();
      if (i % 10 === 0) await tick();
    }
    await nats.down();
    for (let i = 0; i < 20; i++) {
      d1.emit();
      d2.emit();
    }
    await nats.up();
    for (let i = 0; i < 40; i++) {
      d1.emit();
      d2.emit();
      if (i % 10 === 0) await tick();
    }
    await until(() => a.seen.length >= 200 && b.seen.length >= 200, 'every logged event on both relays');
    d1.emit();
    await until(() => a.seen.length >= 201 && b.seen.length >= 201, 'the marker');
    expectExactly(a.seen, [d1, d2]);
    expectExactly(b.seen, [d1, d2]);
    // a relay closes within bounds while NATS is down
    await nats.down();
    const t = Date.now();
    await b.relay.close();
    expect(Date.now() - t).toBeLessThan(5000);
    await nats.up();
  }, 45_000);
});
