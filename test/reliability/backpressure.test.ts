// Slow consumers told the truth (AEP-0003 §8.4): a WebSocket and an SSE
// subscriber that stop reading are closed in order once more than the
// advertised pending_bytes_per_consumer is queued toward them (WS: a
// `closing` frame with last delivered positions; SSE: the stream ends after
// the last id). Resuming from their own positions, they get every event
// that was not sheddable: only debug events may be lost, never info and up.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { ev, post, relayFixtures, until, WsClient } from '../runtime/relay/helpers.ts';

const { relay, defer } = relayFixtures();
const BOUND = 128 * 1024;
const pad = 'p'.repeat(900);

/** Post `n` events over 3 sessions, every 7th one debug; returns them. */
async function produce(url: string, from: number, n: number): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  for (let i = from; i < from + n; i++) {
    const session = `bp${i % 3}`;
    out.push(ev(session, i, { id: `bp-${i}`, severity: i % 7 === 0 ? 'debug' : i % 11 === 0 ? 'notice' : 'info', data: { pad } }));
  }
  for (let i = 0; i < out.length; i += 500) {
    const r = await post(url, out.slice(i, i + 500));
    expect(r.status).toBe(202);
  }
  return out;
}

function positionsOf(events: any[]): Map<string, { epoch: number; seq: number }> {
  const pos = new Map<string, { epoch: number; seq: number }>();
  for (const e of events) {
    const p = pos.get(e.session);
    if (!p || e.seq > p.seq) pos.set(e.session, { epoch: e.epoch ?? 0, seq: e.seq });
  }
  return pos;
}

function missingNonDebug(sent: any[], got: any[]): string[] {
  const ids = new Set(got.map((e) => e.id));
  return sent.filter((e) => e.severity !== 'debug' && !ids.has(e.id)).map((e) => e.id);
}

describe('a paused subscriber past the pending bound', () => {
  it('WebSocket: closed with a closing frame carrying its delivered positions; resuming gets every non-debug event', async () => {
    const { url, relay: rl } = await relay({ maxPending: BOUND });
    const c = await WsClient.hello(url);
    defer(() => c.close());
    c.send({ type: 'subscribe', id: 'main', from: 'all' });
    await c.next((m) => m.type === 'subscribed');
    c.ws.pause(); // stop reading: the kernel buffers fill, then the relay's queue
    const sent: any[] = [];
    let next = 1;
    while (rl.core.counters.droppedConsumers === 0) {
      sent.push(...(await produce(url, next, 1500)));
      next += 1500;
      if (next > 60_000) throw new Error('the paused consumer was never closed');
    }
    sent.push(...(await produce(url, next, 600))); // more after the close: only a resume can bring these
    next += 600;
    c.ws.resume();
    const code = await c.waitClosed();
    expect(code).toBe(1013);
    const closing = c.msgs.find((m) => m.type === 'closing');
    expect(closing.reason).toMatch(/slow consumer/);
    const first = c.events();
    expect(first.length).toBeGreaterThan(0);
    const mine = positionsOf(first);
    // the relay's last delivered positions are what the consumer holds (or ahead of it, if bytes were lost in flight)
    for (const d of closing.delivered) {
      expect(d.sub).toBe('main');
      expect(d.seq).toBeGreaterThanOrEqual(mine.get(d.session)?.seq ?? -1);
    }
    // resume from the consumer's own positions
    const r = await WsClient.hello(url);
    defer(() => r.close());
    r.send({ type: 'subscribe', id: 'again', from: [...mine].map(([session, p]) => ({ session, ...p })) });
    await until(() => r.events().some((e) => e.id === `bp-${next - 1}`), 'the resume to reach the last event');
    const got = [...first, ...r.events()];
    expect(missingNonDebug(sent, got)).toEqual([]);
    const shed = sent.length - new Set(got.map((e) => e.id)).size;
    expect(shed).toBeLessThanOrEqual(rl.core.counters.droppedEvents); // anything missing was shed (debug) and counted
    expect(r.msgs.some((m) => m.type === 'replay-exhausted')).toBe(false);
  });

  it('SSE: the stream ends after the last id it delivered; Last-Event-ID / from resumes every non-debug event', async () => {
    const { url, port, relay: rl } = await relay({ maxPending: BOUND });
    const got: any[] = [];
    let ended = false;
    let closingComment = '';
    const req = http.get({ host: '127.0.0.1', port, path: '/events?from=all', headers: { accept: 'text/event-stream' } });
    defer(() => void req.destroy());
    const res = await new Promise<http.IncomingMessage>((r) => req.once('response', r));
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buf += chunk;
      let at: number;
      while ((at = buf.indexOf('\n\n')) >= 0) {
        const msg = buf.slice(0, at);
        buf = buf.slice(at + 2);
        const data = /^data: (.*)$/m.exec(msg);
        if (data) got.push(JSON.parse(data[1]));
        if (msg.startsWith(': closing')) closingComment = msg;
      }
    });
    res.on('end', () => (ended = true));
    await until(() => rl.core.subs.size === 1, 'subscribed');
    res.pause();
    const sent: any[] = [];
    let next = 1;
    while (rl.core.counters.droppedConsumers === 0) {
      sent.push(...(await produce(url, next, 1500)));
      next += 1500;
      if (next > 60_000) throw new Error('the paused SSE consumer was never closed');
    }
    sent.push(...(await produce(url, next, 600)));
    res.resume();
    await until(() => ended, 'the stream to end');
    expect(closingComment).toMatch(/^: closing slow-consumer/);
    const mine = positionsOf(got);
    const from = encodeURIComponent(JSON.stringify([...mine].map(([session, p]) => ({ session, ...p }))));
    const again = await fetch(`${url}/events?live=0&from=${from}`, { headers: { accept: 'text/event-stream' } }).then((x) => x.text());
    for (const m of again.split('\n\n')) {
      const data = /^data: (.*)$/m.exec(m);
      if (data) got.push(JSON.parse(data[1]));
    }
    expect(missingNonDebug(sent, got)).toEqual([]);
    expect(again).not.toContain('replay-exhausted');
  });
});
