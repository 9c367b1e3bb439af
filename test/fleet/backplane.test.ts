// The fleet backplane against a real nats-server -js on loopback
// (engine/runtime/relay/backplane/index.ts): three relays share one JetStream stream.
// Every subscriber on every relay gets every event exactly once, in (epoch,
// seq) order per session; a subscriber moves between relays with resume;
// a relay started later replays what the stream holds (`from: all`); a
// command sent on relay A reaches the emitter on relay C and its ack
// comes back; the roster is fleet-wide; JetStream down at start is a clear
// error, or a local-only relay when the backplane is optional (that joins
// later: test/fleet/join.test.ts); what is
// published on NATS without the fleet's token signature is dropped. (Relays
// killed and nats-server restarted mid-stream, counted against daemons'
// logs: test/fleet/failover.test.ts.) Credentials are explicit: every
// relay has a token and every client sends it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BackplaneError } from '../../engine/runtime/relay/backplane/index.ts';
import { createRelay, openBackplane, resolveLimits, type Relay } from '../../engine/runtime/relay/index.ts';
import { subjectToken } from '../../engine/runtime/relay/backplane/index.ts';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { agentEv, ev, until } from '../runtime/relay/helpers.ts';
import { wsClients } from './clients.ts';
import { NATS_MISSING, NatsServer, freePort } from './nats.ts';

const TOKEN = 'fleet-test-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const ACCEPTS = { control: { accepts: ['control.cancel'] } };

let nats: NatsServer;
let streamN = 0;
const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});
const { client, subscriber } = wsClients(AUTH, stops);

async function fleetRelay(stream: string, extra: { optional?: boolean; url?: string; buffer?: number } = {}): Promise<{ relay: Relay; url: string }> {
  const log = () => {};
  const limits = { buffer: extra.buffer };
  const store = await openBackplane(
    { url: extra.url ?? nats.url, stream, prefix: stream.toLowerCase(), optional: extra.optional, token: TOKEN },
    resolveLimits(limits),
    log,
  );
  const relay = createRelay({ host: '127.0.0.1', port: 0, token: TOKEN, store, ...limits });
  const { url } = await relay.listen();
  stops.push(() => relay.close());
  return { relay, url };
}

/** Every session's events exactly once and in (epoch, seq) order. */
function checkExactlyOnce(got: any[], sessions: string[], n: number): void {
  for (const s of sessions) {
    const seqs = got.filter((e) => e.session === s).map((e) => e.seq);
    expect(seqs, `session ${s}`).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  }
}

describe.skipIf(!!NATS_MISSING)('fleet backplane (nats-server -js)', () => {
  beforeAll(async () => {
    nats = await NatsServer.start();
  });
  afterAll(async () => {
    await nats?.stop();
  });
  const streamName = () => `T${++streamN}${process.pid}`;

  it('three relays: emitters on different relays, every subscriber on every relay gets every event once, in order', async () => {
    const stream = streamName();
    const relays = [await fleetRelay(stream), await fleetRelay(stream), await fleetRelay(stream)];
    const subs = await Promise.all(relays.map((r) => subscriber(r.url)));
    const sessions = ['s.a b', 's>2', 's*3'];
    const emitters = await Promise.all(sessions.map((_, i) => client(relays[i].url, { role: 'emitter', identity: { agent: 'fleet' } })));
    const N = 150;
    const resend: [number, Record<string, unknown>][] = [];
    for (let k = 1; k <= N; k++) {
      for (let i = 0; i < sessions.length; i++) {
        const e = ev(sessions[i], k, { source: `aep://host-a/agent/test/session/s${i}` });
        emitters[i].send(e);
        if (k % 50 === 0) resend.push([(i + 1) % 3, e]);
      }
    }
    await Promise.all(emitters.map((e) => e.sync()));
    // confirmed events sent again through another relay (what a failover does): deduped fleet-wide
    for (const [i, e] of resend) emitters[i].send(e);
    for (const s of subs) await until(() => s.events().length >= N * sessions.length, 'every event on every relay');
    // nothing more arrives: a round trip through the stream after the last event
    const late = ev('s-late', 1);
    emitters[0].send(late);
    for (const s of subs) await until(() => s.events().some((e) => e.id === late.id), 'the marker');
    for (const s of subs)
      checkExactlyOnce(
        s.events().filter((e) => e.session !== 's-late'),
        sessions,
        N,
      );
  });

  it('a subscriber moves between relays and resumes; a relay started later replays the stream (from: all)', async () => {
    const stream = streamName();
    const a = await fleetRelay(stream);
    const b = await fleetRelay(stream);
    const emitter = await client(a.url, { role: 'emitter', identity: { agent: 'fleet' } });
    const first = await subscriber(a.url);
    for (let k = 1; k <= 40; k++) emitter.send(ev('mv', k));
    await emitter.sync();
    await until(() => first.events().length >= 40, 'the first half on A');
    const last = first.events().at(-1);
    first.close();
    for (let k = 41; k <= 80; k++) emitter.send(ev('mv', k));
    await emitter.sync();
    const moved = await subscriber(b.url, [{ session: 'mv', epoch: 0, seq: last.seq }]);
    await until(() => moved.events().length >= 40, 'the rest on B');
    await moved.sync();
    expect(moved.events().map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 41));
    // a relay that did not exist while the events flowed
    const c = await fleetRelay(stream);
    const all = await subscriber(c.url, 'all');
    await until(() => all.events().length >= 80, 'the stream replayed on C');
    await all.sync();
    checkExactlyOnce(all.events(), ['mv'], 80);
  });

  it('the relay buffer is the stream retention: from: all replays what the stream holds, older resumes learn of the gap', async () => {
    const stream = streamName();
    const a = await fleetRelay(stream, { buffer: 5 });
    const emitter = await client(a.url, { role: 'emitter', identity: { agent: 'fleet' } });
    for (let k = 1; k <= 12; k++) emitter.send(ev('ret-a', k));
    for (let k = 1; k <= 3; k++) emitter.send(ev('ret-b', k));
    await emitter.sync();
    const nc = await connect({ servers: nats.url });
    stops.push(() => nc.close());
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    expect(info.config.max_msgs_per_subject).toBe(5);
    expect(info.state.messages).toBe(8); // 5 of ret-a, 3 of ret-b
    // a relay that joins now mirrors exactly that
    const b = await fleetRelay(stream, { buffer: 5 });
    const all = await subscriber(b.url, 'all');
    await until(() => all.events().length >= 8, 'the stream replayed');
    await all.sync();
    expect(
      all
        .events()
        .map((e) => `${e.session}:${e.seq}`)
        .sort(),
    ).toEqual(['ret-a:10', 'ret-a:11', 'ret-a:12', 'ret-a:8', 'ret-a:9', 'ret-b:1', 'ret-b:2', 'ret-b:3']);
    const old = await client(b.url, { role: 'consumer' });
    old.send({ type: 'subscribe', id: 'o', filter: {}, from: [{ session: 'ret-a', epoch: 0, seq: 2 }] });
    expect(await old.next((m) => m.type === 'replay-exhausted')).toMatchObject({ session: 'ret-a', earliest: { epoch: 0, seq: 8 } });
  });

  it('a command sent on relay A reaches the emitter on relay C; its ack comes back; the roster is fleet-wide', async () => {
    const stream = streamName();
    const a = await fleetRelay(stream);
    await fleetRelay(stream); // B: a bystander
    const c = await fleetRelay(stream);
    const target = await client(c.url, { role: 'emitter', identity: { agent: 'tgt', instance: 'box-c' }, capabilities: ACCEPTS });
    target.send(ev('ctl-s', 1));
    await target.sync();
    const sender = await client(a.url, { role: 'both', identity: { agent: 'ui' } });
    sender.send({ type: 'subscribe', id: 'acks', filter: { session: 'ctl-s', type: 'control.*' } });
    await sender.next((m) => m.type === 'subscribed');
    // the roster on A lists C's claim, verbatim
    let entries: any[] = [];
    await until(async () => {
      const id = `r${Math.random()}`;
      sender.send({ type: 'roster', id });
      entries = (await sender.next((m) => m.type === 'roster' && m.id === id)).entries;
      return entries.some((e) => e.session === 'ctl-s');
    }, 'the fleet roster on A');
    expect(entries.filter((e) => e.session === 'ctl-s')).toEqual([{ session: 'ctl-s', agent: 'tgt', instance: 'box-c', control: ACCEPTS.control }]);

    const cmd = { ...ev('ctl-s', 0, { type: 'control.cancel', agent: 'ui', source: 'aep://h/agent/ui', data: { scope: 'session' } }) };
    delete cmd.seq;
    const raw = JSON.stringify(cmd);
    sender.send(raw);
    const got = await target.next((m) => m.id === cmd.id);
    expect(JSON.stringify(got)).toBe(raw);
    target.send(ev('ctl-s', 2, { type: 'control.accepted', cause: cmd.id, data: {} }));
    const ack = await sender.next((m) => m.type === 'control.accepted');
    expect(ack.cause).toBe(cmd.id);

    // refusals are decided fleet-wide as for local claims
    const unsupported = { ...cmd, id: 'cmd-2', type: 'control.attention.respond', data: { answer: { option: 'allow' } } };
    sender.send(unsupported);
    expect(await sender.next((m) => m.type === 'error' && m.cause === 'cmd-2')).toMatchObject({ code: 'unsupported' });
    const nowhere = { ...cmd, id: 'cmd-3', session: 'nobody' };
    sender.send(nowhere);
    expect(await sender.next((m) => m.type === 'error' && m.cause === 'cmd-3')).toMatchObject({ code: 'no-route' });

    // the claim ends on C: the fleet forgets it
    target.send(ev('ctl-s', 3, { type: 'session.ended', data: {} }));
    await until(async () => {
      const id = `r${Math.random()}`;
      sender.send({ type: 'roster', id });
      return !(await sender.next((m) => m.type === 'roster' && m.id === id)).entries.some((e: any) => e.session === 'ctl-s');
    }, 'the released claim to leave the fleet roster');
  });

  it('what is published on NATS without the fleet token is dropped: forged events, roster entries and commands', async () => {
    const stream = streamName();
    const prefix = stream.toLowerCase();
    const a = await fleetRelay(stream);
    const c = await fleetRelay(stream);
    const target = await client(c.url, { role: 'emitter', identity: { agent: 'tgt' }, capabilities: ACCEPTS });
    target.send(ev('sig-s', 1));
    await target.sync();
    const sub = await subscriber(a.url);
    const nc = await connect({ servers: nats.url });
    stops.push(() => nc.close());
    const enc = new TextEncoder();
    // an event straight into the stream, a live event, a roster snapshot claiming a session, a command to the target
    const forgedEv = ev('sig-s', 2, { id: 'forged-1' });
    await jetstream(nc).publish(`${prefix}.ev.test.sig-s`, enc.encode(JSON.stringify(forgedEv)));
    nc.publish(`${prefix}.live.test`, enc.encode(JSON.stringify({ ...agentEv(), id: 'forged-live' })));
    nc.publish(
      `${prefix}.roster.evil`,
      enc.encode(JSON.stringify({ relay: 'evil', entries: [{ session: 'sig-s', agent: 'evil', control: ACCEPTS.control }] })),
    );
    const cmd = { ...ev('sig-s', 0, { id: 'forged-cmd', type: 'control.cancel', agent: 'ui', source: 'aep://h/agent/ui', data: { scope: 'session' } }) };
    delete cmd.seq;
    const reply = await nc.request(`${prefix}.ctl.sig-s`, enc.encode(JSON.stringify(cmd)), { timeout: 3000 });
    expect(JSON.parse(new TextDecoder().decode(reply.data))).toMatchObject({ ok: false, code: 'unauthorized' });
    // a genuine event after them all: the forged ones never reached anyone
    target.send(ev('sig-s', 3, { id: 'genuine-3' }));
    await until(() => sub.events().some((e) => e.id === 'genuine-3'), 'the genuine event');
    expect(sub.events().map((e) => e.id)).toEqual(['genuine-3']);
    expect(target.msgs.some((m) => m.id === 'forged-cmd')).toBe(false);
    const roster = await client(a.url, { role: 'consumer' });
    roster.send({ type: 'roster', id: 'r' });
    const entries = (await roster.next((m) => m.type === 'roster')).entries;
    expect(entries.filter((e: any) => e.session === 'sig-s').map((e: any) => e.agent)).toEqual(['tgt']);
    const h = await (await fetch(`${a.url}/healthz`, { headers: AUTH })).json();
    expect(h.backplane.forged).toBeGreaterThanOrEqual(3);
  });

  it('an unsigned roster.sync is dropped and counted: a flood of them does not make the fleet publish its roster on demand', async () => {
    const stream = streamName();
    const prefix = stream.toLowerCase();
    const a = await fleetRelay(stream);
    const b = await fleetRelay(stream);
    const nc = await connect({ servers: nats.url });
    stops.push(() => nc.close());
    const snapshots: number[] = [];
    nc.subscribe(`${prefix}.roster.>`, {
      callback: (_e, m) => {
        if (m.subject !== `${prefix}.roster.sync`) snapshots.push(Date.now());
      },
    });
    const forged = async () =>
      (await (await fetch(`${a.url}/healthz`, { headers: AUTH })).json()).backplane.forged +
      (await (await fetch(`${b.url}/healthz`, { headers: AUTH })).json()).backplane.forged;
    const before = await forged();
    // right after a periodic snapshot, so that the window below holds at most the next periodic ones
    const n0 = snapshots.length;
    await until(() => snapshots.length > n0, 'a periodic snapshot');
    const from = snapshots.length;
    for (let i = 0; i < 200; i++) {
      nc.publish(`${prefix}.roster.sync`);
      if (i % 20 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    await nc.flush();
    await until(async () => (await forged()) - before >= 400, 'every unsigned sync counted by both relays');
    await new Promise((r) => setTimeout(r, 300));
    // periodic snapshots only (every 2 s per relay): none answering the flood
    expect(snapshots.length - from).toBeLessThanOrEqual(2);
  });

  it('JetStream down at start: a clear error, or local-only service when the backplane is optional', async () => {
    const limits = resolveLimits({});
    const noJs = await NatsServer.start({ jetstream: false });
    stops.push(() => noJs.stop());
    await expect(openBackplane({ url: noJs.url }, limits, () => {})).rejects.toThrow(/JetStream is not available on this NATS server.*-js/);
    const dead = `nats://127.0.0.1:${await freePort()}`;
    await expect(openBackplane({ url: dead, connectTimeoutMs: 1000 }, limits, () => {})).rejects.toBeInstanceOf(BackplaneError);
    await expect(openBackplane({ url: dead, connectTimeoutMs: 1000 }, limits, () => {})).rejects.toThrow(/unreachable/);
    const said: string[] = [];
    const optional = await openBackplane({ url: dead, optional: true, connectTimeoutMs: 1000 }, limits, (l) => said.push(l));
    stops.push(() => optional.close());
    expect(optional).toMatchObject({ joined: false });
    expect(said.join('\n')).toMatch(/serving local clients only .* retrying in the background/);
    expect(await optional.health()).toMatchObject({ connected: false, error: expect.stringMatching(/local-only since start/) });
    const local = await fleetRelay('unused', { url: dead, optional: true });
    const sub = await subscriber(local.url);
    const emitter = await client(local.url, { role: 'emitter', identity: { agent: 'fleet' } });
    emitter.send(ev('loc', 1));
    await until(() => sub.events().length === 1, 'local delivery');
  });
});

describe('subject tokens', () => {
  it('keep NATS subject rules whatever the session id, and stay distinct', () => {
    const ids = ['a.b', 'a*b', 'a>b', 'a b', 'a~2eb', '', 'é', 'x'.repeat(500), `${'x'.repeat(500)}y`];
    const toks = ids.map(subjectToken);
    for (const t of toks) expect(t).toMatch(/^[A-Za-z0-9_~-]{1,120}$/);
    expect(new Set(toks).size).toBe(ids.length);
  });
});
