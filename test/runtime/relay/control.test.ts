// Control routing (AEP-0004 §4) and graceful shutdown.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../../engine/core/capture/redact.ts';
import { ev, post, SseClient, startRelay, until, WsClient, relayFixtures } from './helpers.ts';

const { relay, hello } = relayFixtures();

const ACCEPTS = { control: { accepts: ['control.attention.respond', 'control.cancel'] } };
function command(session: string, type = 'control.cancel', data: Record<string, unknown> = { scope: 'session' }) {
  const c = ev(session, 0, { type, agent: 'sender', source: 'aep://h/agent/sender', data });
  delete c.seq;
  return c;
}

describe('watch-only relay (no token)', () => {
  it('refuses commands with an unauthorized error frame and never routes them', async () => {
    const { url } = await relay();
    const target = await hello(url, { role: 'both', identity: { agent: 'tgt' }, capabilities: ACCEPTS });
    target.send(ev('s', 1));
    target.send({ type: 'subscribe', id: 'w', filter: {} });
    await target.next((m) => m.type === 'subscribed');
    const sender = await hello(url);
    const cmd = command('s');
    sender.send(cmd);
    const err = await sender.next((m) => m.type === 'error');
    expect(err).toMatchObject({ type: 'error', cause: cmd.id, code: 'unauthorized' });
    await target.sync();
    expect(target.msgs.some((m) => m.id === cmd.id)).toBe(false);
  });
});

describe('authenticated relay', () => {
  const token = 'tok';
  const auth = { authorization: `Bearer ${token}` };

  it('refuses an unauthenticated WebSocket upgrade', async () => {
    const { url } = await relay({ token });
    await expect(WsClient.connect(url)).rejects.toThrow(/401/);
    const ok = await WsClient.connect(`${url}`, auth);
    ok.close();
  });

  it('routes a command byte-identically to the single claimant; the ack flows back to the sender', async () => {
    const { url } = await relay({ token });
    const target = await hello(url, { role: 'emitter', identity: { agent: 'tgt' }, capabilities: ACCEPTS }, auth);
    target.send(ev('s', 1));
    await target.sync();
    const sender = await hello(url, {}, auth);
    sender.send({ type: 'subscribe', id: 'acks', filter: { session: 's', type: 'control.*' } });
    await sender.next((m) => m.type === 'subscribed');
    const cmd = command('s', 'control.attention.respond', { answer: { option: 'allow' } });
    const raw = JSON.stringify(cmd);
    sender.send(raw);
    const got = await target.next((m) => m.id === cmd.id);
    expect(JSON.stringify(got)).toBe(raw);
    target.send(ev('s', 2, { type: 'control.accepted', cause: cmd.id, data: {} }));
    const ack = await sender.next((m) => m.type === 'control.accepted');
    expect(ack.cause).toBe(cmd.id);
  });

  it("the watchers' copy of a command carries the operator's redaction (the relay's redactor), the target the original bytes", async () => {
    const redactor = new Redactor({ secretNames: ['ACME_DEPLOY_KEY'], env: { ACME_DEPLOY_KEY: 'plain-value-77' } });
    const { url } = await relay({ token, redactor });
    const target = await hello(url, { role: 'emitter', identity: { agent: 'tgt' }, capabilities: ACCEPTS }, auth);
    target.send(ev('s', 1));
    await target.sync();
    const watcher = await hello(url, {}, auth);
    watcher.send({ type: 'subscribe', id: 'w', filter: { session: 's', type: 'control.*' } });
    await watcher.next((m) => m.type === 'subscribed');
    const sender = await hello(url, {}, auth);
    const cmd = command('s', 'control.attention.respond', { answer: { option: 'deny', text: 'use plain-value-77 instead' } });
    sender.send(JSON.stringify(cmd));
    expect(JSON.stringify(await target.next((m) => m.id === cmd.id))).toContain('plain-value-77');
    const copy = await watcher.next((m) => m.type === 'control.attention.respond');
    expect(copy.capture).toBe('redacted');
    expect(JSON.stringify(copy)).not.toContain('plain-value-77');
    // the value is not secret-looking by itself: only the operator's name makes it one (the built-in rules keep it)
    expect(new Redactor().text('use plain-value-77 instead')).toContain('plain-value-77');
  });

  it('refuses deterministically: no-route, ambiguous, unsupported (AEP-0004 §4.2, §4.5)', async () => {
    const { url } = await relay({ token });
    const sender = await hello(url, {}, auth);
    const c1 = command('nobody');
    sender.send(c1);
    expect(await sender.next((m) => m.cause === c1.id)).toMatchObject({ type: 'error', code: 'no-route' });

    const a = await hello(url, { role: 'emitter', identity: { agent: 'a' }, capabilities: ACCEPTS }, auth);
    const b = await hello(url, { role: 'emitter', identity: { agent: 'b' }, capabilities: ACCEPTS }, auth);
    a.send(ev('dup', 1));
    b.send(ev('dup', 1, { source: 'aep://h/agent/b/session/dup' }));
    await a.sync();
    await b.sync();
    const c2 = command('dup');
    sender.send(c2);
    expect(await sender.next((m) => m.cause === c2.id)).toMatchObject({ type: 'error', code: 'ambiguous' });
    await a.sync();
    await b.sync();
    expect([...a.msgs, ...b.msgs].some((m) => m.id === c2.id)).toBe(false);

    const c3 = command('dup-gone', 'control.pause', {});
    a.send(ev('dup-gone', 1));
    await a.sync();
    sender.send(c3);
    expect(await sender.next((m) => m.cause === c3.id)).toMatchObject({ type: 'error', code: 'unsupported' });
  });

  it('an emitter that declares no command is never a target: a telemetry channel beside the hook channel leaves its commands routable', async () => {
    const { url } = await relay({ token });
    const sender = await hello(url, {}, auth);
    const hooks = await hello(url, { role: 'emitter', identity: { agent: 'a' }, capabilities: ACCEPTS }, auth);
    const otel = await hello(url, { role: 'emitter', identity: { agent: 'a' }, capabilities: { control: { accepts: [] } } }, auth);
    hooks.send(ev('both', 1));
    otel.send(ev('both', 1, { source: 'aep://h/agent/a/otel/session/both' }));
    await hooks.sync();
    await otel.sync();
    const c = command('both');
    sender.send(c);
    await hooks.sync();
    expect(hooks.msgs.some((m) => m.id === c.id)).toBe(true);
    expect(otel.msgs.some((m) => m.id === c.id)).toBe(false);
    const alone = command('otel-only');
    otel.send(ev('otel-only', 1, { source: 'aep://h/agent/a/otel/session/otel-only' }));
    await otel.sync();
    sender.send(alone);
    expect(await sender.next((m) => m.cause === alone.id)).toMatchObject({ type: 'error', code: 'no-route' });
  });

  it('routes to an in-process emitter exactly like a WebSocket one', async () => {
    const { url, relay: rl } = await relay({ token });
    const received: any[] = [];
    const daemon = rl.connect({ identity: { agent: 'daemon' }, capabilities: ACCEPTS, onCommand: (cmd) => received.push(cmd) });
    expect(daemon.emit(ev('in', 1))).toEqual({ ok: true, admitted: true });
    const sender = await hello(url, {}, auth);
    sender.send({ type: 'roster', id: 'r' });
    expect((await sender.next((m) => m.type === 'roster')).entries).toEqual([{ session: 'in', agent: 'daemon', control: ACCEPTS.control }]);
    const cmd = command('in');
    sender.send(cmd);
    await until(() => received.length === 1, 'the routed command');
    expect(received[0].id).toBe(cmd.id);
    daemon.close();
    const again = command('in');
    sender.send(again);
    expect(await sender.next((m) => m.cause === again.id)).toMatchObject({ code: 'no-route' });
  });
});

describe('graceful shutdown', () => {
  it('ends SSE streams cleanly and closes sockets with 1001', async () => {
    const r = await startRelay();
    const s = await SseClient.open(r.url);
    const w = await WsClient.hello(r.url);
    await post(r.url, [ev('s', 1)]);
    await s.waitEvents(1);
    await r.relay.close();
    await until(() => s.ended, 'SSE end');
    expect(s.msgs.some((m) => m.comment === 'shutting-down')).toBe(true);
    expect(await w.waitClosed()).toBe(1001);
  });

  it('sends a closing frame with the last delivered position per subscription before closing (AEP-0003 §3.5)', async () => {
    const r = await startRelay();
    const w = await WsClient.hello(r.url);
    w.send({ type: 'subscribe', id: 'all' });
    await w.next((m) => m.type === 'subscribed');
    await post(r.url, [ev('s1', 0), ev('s1', 1), ev('s2', 0)]);
    await until(() => w.events().length === 3, 'three events');
    await r.relay.close();
    const closing = await w.next((m) => m.type === 'closing');
    expect(closing.reason).toBe('relay shutting down');
    expect(closing.delivered).toEqual(
      expect.arrayContaining([
        { sub: 'all', session: 's1', epoch: 0, seq: 1 },
        { sub: 'all', session: 's2', epoch: 0, seq: 0 },
      ]),
    );
    expect(closing.delivered).toHaveLength(2);
    expect(await w.waitClosed()).toBe(1001);
  });
});

describe('liveness (AEP-0003 §3.5 rule 5)', () => {
  it('pings; a peer that answers stays, a silent one gets a closing frame and is closed', async () => {
    const { url } = await relay({ pingMs: 50, idleMs: 400 });
    const answering = await hello(url);
    const silent = await hello(url);
    // the answering peer echoes every ping, as the relay's own clients do
    answering.ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      if (m.type === 'ping') answering.send({ type: 'pong', t: m.t });
    });
    await silent.next((m) => m.type === 'ping');
    const closing = await silent.next((m) => m.type === 'closing');
    expect(closing.reason).toBe('idle timeout');
    expect(await silent.waitClosed()).toBe(1001);
    // still open well past the idle window
    expect(answering.closeCode).toBeUndefined();
    await answering.sync();
  });
});
