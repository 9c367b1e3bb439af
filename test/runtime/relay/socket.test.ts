// WebSocket binding (AEP-0003 §3.5, §4, §4.1, §6.5) and attr-match fixtures.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileFilter, FilterError } from '../../../engine/runtime/relay/attr-match.ts';
import { ev, post, until, WsClient, relayFixtures } from './helpers.ts';

const { relay, hello, defer } = relayFixtures();

describe('attr-match (AEP-0003 §6, upstream corpus)', () => {
  const cases = JSON.parse(readFileSync(new URL('../../../fixtures/upstream/aep/attr-match/cases.json', import.meta.url), 'utf8'));
  it.each(cases.match.map((c: any) => [c.name, c]) as [string, any][])('match: %s', (_n, c) => {
    expect(compileFilter(c.filter)(c.event)).toBe(c.match);
  });
  it.each(cases.invalid.map((c: any) => [c.name, c]) as [string, any][])('fails closed: %s', (_n, c) => {
    expect(() => compileFilter(c.filter)).toThrow(FilterError);
  });
});

describe('hello (AEP-0003 §4)', () => {
  it('selects exactly one version from the intersection and ignores unknown keys', async () => {
    const { url } = await relay();
    const c = await WsClient.connect(url);
    defer(() => c.close());
    c.send({ type: 'hello', versions: ['9.9', '0.1'], role: 'consumer', future: { x: 1 }, capabilities: { teleport: true, filters: ['attr-match'] } });
    const h = await c.next((m) => m.type === 'hello');
    expect(h.versions).toEqual(['0.1']);
    expect(h.capabilities.roster).toEqual({});
    expect(h.capabilities.replay.buffer).toBe(10000);
  });

  it('refuses a first frame that is not hello, and a hello with no common version, then closes', async () => {
    const { url } = await relay();
    const a = await WsClient.connect(url);
    a.send({ type: 'subscribe', id: 'x' });
    expect((await a.next((m) => m.type === 'error')).code).toBe('hello-required');
    await a.waitClosed();
    const b = await WsClient.connect(url);
    b.send({ type: 'hello', versions: ['9.9'], role: 'consumer' });
    const e = await b.next((m) => m.type === 'error');
    expect(e).toMatchObject({ code: 'version-unsupported', versions: ['0.1'] });
    await b.waitClosed();
    const c = await WsClient.connect(url);
    c.send('not json at all');
    expect((await c.next((m) => m.type === 'error')).code).toBe('hello-required');
    await c.waitClosed();
  });

  it('ignores unknown frame types; malformed frames get an error and the connection survives', async () => {
    const { url } = await relay();
    const c = await hello(url);
    c.send({ type: 'teleport', to: 'mars' });
    c.send('{{{');
    c.send([1, 2, 3]);
    c.send({ type: 42 });
    await c.sync();
    expect(c.msgs.filter((m) => m.type === 'error').map((m) => m.code)).toEqual(['invalid-frame', 'invalid-frame', 'invalid-frame']);
    expect(c.msgs.some((m) => m.type === 'teleport')).toBe(false);
    c.send({ type: 'subscribe', id: 'ok' });
    expect((await c.next((m) => m.id === 'ok')).type).toBe('subscribed');
  });
});

describe('subscribe (AEP-0003 §6.5)', () => {
  it('fans out WS-ingested and POSTed events to each matching subscription, down-leveled per ceiling', async () => {
    const { url } = await relay();
    const c = await hello(url);
    c.send({ type: 'subscribe', id: 'tools', filter: { type: 'tool.*' }, capture: 'metadata' });
    c.send({ type: 'subscribe', id: 'errs', filter: { type: ['error.*'] } });
    await c.next((m) => m.id === 'tools' && m.type === 'subscribed');
    await c.next((m) => m.id === 'errs' && m.type === 'subscribed');
    const emitter = await hello(url, { role: 'emitter', identity: { agent: 'test' } });
    emitter.send(ev('s', 1, { type: 'tool.requested', capture: 'full', data: { tool: { name: 'Bash' }, args: { command: 'secret' } } }));
    await post(url, [ev('s', 2, { type: 'error.raised', severity: 'error', data: { message: 'x' } }), ev('s', 3, { type: 'run.started' })]);
    await c.next((m) => m.type === 'error.raised');
    const tool = await c.next((m) => m.type === 'tool.requested');
    expect(tool.capture).toBe('metadata');
    expect(tool.data.args).toBeUndefined();
    await c.sync();
    expect(c.events().some((m) => m.type === 'run.started')).toBe(false);
  });

  it('refuses in-band from the closed set and the connection and its other subscriptions survive', async () => {
    const { url } = await relay();
    const c = await hello(url);
    c.send({ type: 'subscribe', id: 'keep', filter: {} });
    await c.next((m) => m.id === 'keep');
    const from = Array.from({ length: 10_000 }, (_, i) => ({ session: `s${i}`, epoch: 0, seq: 1 }));
    c.send({ type: 'subscribe', id: 'big', from });
    c.send({ type: 'subscribe', id: 'bad-from', from: 'yesterday' });
    c.send({ type: 'subscribe', id: 'bad-entry', from: [{ session: 's', seq: -1 }] });
    c.send({ type: 'subscribe', id: 'bad-key', filter: { NotAnAttr: 1 } });
    c.send({ type: 'subscribe', id: 'keep', filter: {} });
    const codes: Record<string, string> = {};
    for (const id of ['big', 'bad-from', 'bad-entry', 'bad-key', 'keep']) codes[id] = (await c.next((m) => m.id === id && m.type === 'error')).code;
    expect(codes).toEqual({
      big: 'limit-exceeded',
      'bad-from': 'invalid-filter',
      'bad-entry': 'invalid-filter',
      'bad-key': 'invalid-filter',
      keep: 'invalid-filter',
    });
    for (const code of Object.values(codes)) expect(['invalid-filter', 'unknown-dialect', 'unauthorized', 'limit-exceeded']).toContain(code);
    await post(url, [ev('s', 1)]);
    expect((await c.next((m) => m.type === 'tool.completed')).seq).toBe(1);
    c.send({ type: 'unsubscribe', id: 'keep' });
    expect(await c.next((m) => m.type === 'unsubscribed')).toEqual({ type: 'unsubscribed', id: 'keep' });
  });

  it('caps concurrent subscriptions per connection with limit-exceeded', async () => {
    const { url } = await relay({ maxSubscriptions: 2 });
    const c = await hello(url);
    for (const id of ['a', 'b', 'c']) c.send({ type: 'subscribe', id });
    expect((await c.next((m) => m.id === 'c')).code).toBe('limit-exceeded');
  });

  it('resumes over subscribe.from, with the replay-exhausted frame under eviction', async () => {
    const { url } = await relay({ buffer: 3 });
    await post(
      url,
      [1, 2, 3, 4, 5, 6].map((i) => ev('s', i)),
    );
    const c = await hello(url);
    c.send({ type: 'subscribe', id: 'r', from: [{ session: 's', epoch: 0, seq: 1 }] });
    await c.next((m) => m.type === 'subscribed');
    const ex = await c.next((m) => m.type === 'replay-exhausted');
    expect(ex).toEqual({ type: 'replay-exhausted', sub: 'r', session: 's', earliest: { epoch: 0, seq: 4 } });
    await post(url, [ev('s', 7)]);
    await c.next((m) => m.seq === 7);
    expect(c.events().map((m) => m.seq)).toEqual([4, 5, 6]);
  });
});

describe('roster (AEP-0003 §4.1)', () => {
  it('lists one entry per live claim with declarations verbatim; refuses emitters in-band', async () => {
    const { url, relay: rl } = await relay();
    const control = { accepts: ['control.attention.respond'], ack_window_ms: 5000, vendorknob: 1 };
    const e1 = await hello(url, { role: 'emitter', identity: { agent: 'a1', instance: 'h/1' }, capabilities: { control, emits: ['tool'] } });
    const e2 = await hello(url, { role: 'both', identity: { agent: 'a2' } });
    e1.send(ev('shared', 1));
    e2.send(ev('shared', 1, { source: 'aep://h/agent/a2/session/shared' }));
    e2.send(ev('own', 1));
    await e1.sync();
    await e2.sync();
    const c = await hello(url);
    c.send({ type: 'roster', id: 'r-1' });
    const r = await c.next((m) => m.type === 'roster');
    expect(r.id).toBe('r-1');
    const sorted = r.entries.sort((x: any, y: any) => `${x.session}${x.agent}`.localeCompare(`${y.session}${y.agent}`));
    expect(sorted).toEqual([
      { session: 'own', agent: 'a2' },
      { session: 'shared', agent: 'a1', instance: 'h/1', control, emits: ['tool'] },
      { session: 'shared', agent: 'a2' },
    ]);
    e1.send({ type: 'roster', id: 'r-2' });
    expect(await e1.next((m) => m.id === 'r-2')).toMatchObject({ type: 'error', code: 'unauthorized' });
    e1.send(ev('later', 1));
    await e1.sync(); // still alive
    e2.close();
    await e2.waitClosed();
    await until(() => rl.core.roster().length === 2, 'the closed connection to drop its claims');
    c.send({ type: 'roster', id: 'r-3' });
    expect((await c.next((m) => m.id === 'r-3')).entries.map((x: any) => x.session).sort()).toEqual(['later', 'shared']);
  });
});
