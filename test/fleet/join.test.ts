// An optional backplane unreachable at start joins the fleet once NATS comes
// up (engine/runtime/relay/backplane/join.ts): the relay serves local clients from
// memory meanwhile, retries in the background with a bounded backoff (one
// log line per change of state), and on joining publishes what it admitted
// while local-only, so a second relay replays it; its own subscribers get
// each event once; the claims it holds join the fleet's command routes. Real nats-server -js started late on the port the relay
// keeps dialing.
import { afterEach, describe, expect, it } from 'vitest';
import { createRelay, openBackplane, resolveLimits } from '../../engine/runtime/relay/index.ts';
import { ev, until } from '../runtime/relay/helpers.ts';
import { wsClients } from './clients.ts';
import { NATS_MISSING, NatsServer, freePort } from './nats.ts';

const TOKEN = 'fleet-join-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});
const { client, subscriber } = wsClients(AUTH, stops);

async function relayOn(url: string, stream: string, log: (l: string) => void) {
  const store = await openBackplane(
    { url, stream, prefix: stream.toLowerCase(), token: TOKEN, optional: true, connectTimeoutMs: 1000, retryMs: { initial: 100, max: 400 } },
    resolveLimits({}),
    log,
  );
  const relay = createRelay({ host: '127.0.0.1', port: 0, token: TOKEN, store });
  const { url: http } = await relay.listen();
  stops.push(() => relay.close());
  return { store, relay, url: http };
}

describe.skipIf(!!NATS_MISSING)('--backplane-optional: joining the fleet later', () => {
  it('serves locally while NATS is down, joins when it comes up, publishes what it admitted meanwhile; a second relay receives it', async () => {
    const port = await freePort();
    const url = `nats://127.0.0.1:${port}`;
    const stream = `JOIN${process.pid}`;
    const said: string[] = [];
    const a = await relayOn(url, stream, (l) => said.push(l));
    expect(a.store).toMatchObject({ joined: false });
    const subA = await subscriber(a.url);
    const emA = await client(a.url, { role: 'emitter', identity: { agent: 'fleet' }, capabilities: { control: { accepts: ['control.cancel'] } } });
    emA.send(ev('join-s', 1));
    emA.send(ev('join-s', 2));
    await until(() => subA.events().length === 2, 'local delivery while NATS is down');
    // several failed attempts, one log line (the first, at start)
    await new Promise((r) => setTimeout(r, 700));
    expect(said.filter((l) => /unreachable/.test(l))).toHaveLength(1);
    const healthDown = await (await fetch(`${a.url}/healthz`, { headers: AUTH })).json();
    expect(healthDown.backplane).toMatchObject({ connected: false, joining: true, local_events: 2 });

    const nats = await NatsServer.start({ port });
    stops.push(() => nats.stop());
    await until(async () => (await (await fetch(`${a.url}/healthz`, { headers: AUTH })).json()).backplane?.connected === true, 'relay A joined');
    expect(said.join('\n')).toMatch(
      /backplane: joined the fleet at nats:\/\/127.0.0.1:\d+ after \d+ s local-only \(\d+ attempts?\): relay \S+, 2 events admitted here meanwhile published to stream/,
    );

    // a second relay replays what A admitted while local-only
    const b = await relayOn(nats.url, stream, () => {});
    const subB = await subscriber(b.url, 'all');
    await until(() => subB.events().filter((e) => e.session === 'join-s').length === 2, 'relay B replays the local-only events');
    // and from now on both see each other's events, once
    emA.send(ev('join-s', 3));
    const emB = await client(b.url, { role: 'emitter', identity: { agent: 'fleet' } });
    emB.send(ev('join-b', 1));
    await until(() => subB.events().some((e) => e.session === 'join-s' && e.seq === 3), 'B gets A live');
    await until(() => subA.events().some((e) => e.session === 'join-b'), 'A gets B live');
    await new Promise((r) => setTimeout(r, 300));
    expect(
      subA
        .events()
        .filter((e) => e.session === 'join-s')
        .map((e) => e.seq),
    ).toEqual([1, 2, 3]);
    expect(
      subB
        .events()
        .filter((e) => e.session === 'join-s')
        .map((e) => e.seq),
    ).toEqual([1, 2, 3]);
    const h = await (await fetch(`${b.url}/healthz`, { headers: AUTH })).json();
    expect(h.backplane.relays).toHaveLength(2);
    // the claim A's emitter made while local-only joined the fleet's routes: a command sent on B reaches it
    const sender = await client(b.url, { role: 'both', identity: { agent: 'ui' } });
    const cmd = { ...ev('join-s', 0, { type: 'control.cancel', agent: 'ui', source: 'aep://h/agent/ui', data: { scope: 'session' } }) };
    delete cmd.seq;
    await until(async () => {
      const id = `r${Math.random()}`;
      sender.send({ type: 'roster', id });
      return (await sender.next((m) => m.type === 'roster' && m.id === id)).entries.some((e: any) => e.session === 'join-s');
    }, "A's claim in the fleet roster on B");
    sender.send(cmd);
    expect(await emA.next((m) => m.id === cmd.id)).toMatchObject({ type: 'control.cancel', session: 'join-s' });
  });
});
