// up's own links: a connection from this process (relay.dial) over a socket
// pair (engine/runtime/relay/socket-pair.ts) instead of loopback TCP, served by the
// same protocol code as an upgraded WebSocket: the credential checked,
// frames in order and never within send(), closes after what was sent, the
// connection counted and closed in order with the rest.
import { describe, expect, it } from 'vitest';
import { socketPair } from '../../../engine/runtime/relay/socket-pair.ts';
import { ev, relayFixtures, until } from './helpers.ts';

const fx = relayFixtures();

describe('socketPair', () => {
  it('delivers in order, never within send(), a close after every frame sent before it, and closes both ends', async () => {
    const [a, b] = socketPair();
    const got: string[] = [];
    const closed: string[] = [];
    b.on('message', (d: Buffer, binary: boolean) => got.push(`${d.toString()}${binary ? ' (binary)' : ''}`));
    a.on('close', (code: number) => closed.push(`a ${code}`));
    b.on('close', (code: number, reason: Buffer) => closed.push(`b ${code} ${reason.toString()}`));
    a.send('before open'); // dropped, as a ws WebSocket's is
    a.open();
    await new Promise((r) => a.once('open', r));
    expect([a.readyState, b.readyState]).toEqual([a.OPEN, b.OPEN]);
    a.send('one');
    a.send(Buffer.from('two'));
    expect(got).toEqual([]);
    a.close(1000, 'done');
    a.send('after close');
    await until(() => closed.length === 2);
    expect(got).toEqual(['one', 'two']);
    expect(closed.sort()).toEqual(['a 1000', 'b 1000 done']);
    expect([a.readyState, b.readyState]).toEqual([a.CLOSED, b.CLOSED]);
  });

  it('terminate closes this end at once and the peer with 1006', async () => {
    const [a, b] = socketPair();
    a.open();
    await new Promise((r) => b.once('open', r));
    const codes: number[] = [];
    b.on('close', (c: number) => codes.push(c));
    a.terminate();
    expect(a.readyState).toBe(a.CLOSED);
    await until(() => codes.length === 1);
    expect(codes).toEqual([1006]);
  });
});

describe('relay.dial', () => {
  const open = (ws: import('ws').WebSocket) =>
    new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });

  it('with the token: a hello, events that reach a consumer, counted among the connections; closed 1001 when the relay stops', async () => {
    const { relay, url } = await fx.relay({ token: 'secret' });
    const ws = relay.dial('Bearer secret');
    const msgs: any[] = [];
    const codes: number[] = [];
    ws.on('message', (d) => msgs.push(JSON.parse(d.toString())));
    ws.on('close', (c) => codes.push(c));
    await open(ws);
    ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'emitter', identity: { agent: 'test' } }));
    await until(() => msgs.some((m) => m.type === 'hello'));
    const consumer = await fx.hello(url, { role: 'consumer' }, { authorization: 'Bearer secret' });
    consumer.send({ type: 'subscribe', id: 'all' });
    await consumer.next((m) => m.type === 'subscribed');
    ws.send(JSON.stringify(ev('s1', 0)));
    await until(() => consumer.events().length === 1);
    const health = await (await fetch(`${url}/healthz`, { headers: { authorization: 'Bearer secret' } })).json();
    expect(health.connections).toBeGreaterThanOrEqual(2);
    await relay.close();
    await until(() => codes.length === 1);
    expect(codes).toEqual([1001]);
    expect(msgs.some((m) => m.type === 'closing')).toBe(true);
  });

  it('a wrong or missing token: an error and a close, as a refused upgrade is', async () => {
    const { relay } = await fx.relay({ token: 'secret' });
    for (const authorization of ['Bearer wrong', undefined]) {
      const ws = relay.dial(authorization);
      await expect(open(ws)).rejects.toThrow(/401 \(wrong or missing token\)/);
      await until(() => ws.readyState === ws.CLOSED);
    }
  });
});
