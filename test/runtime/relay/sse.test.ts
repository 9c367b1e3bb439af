// SSE binding (AEP-0003 §3.3, §5, §6.4, §7): filtered fan-out, resume,
// replay-exhausted under eviction, capture ceilings, slow consumers.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ev, post, until, relayFixtures } from './helpers.ts';

const { relay, sse, defer } = relayFixtures();

describe('ingest + SSE fan-out', () => {
  it('delivers a batch to filtered subscribers, in order, envelopes byte-identical, with resume ids', async () => {
    const { url } = await relay();
    const all = await sse(url);
    const attn = await sse(url, { filter: JSON.stringify({ type: ['attention.*'], severity: { gte: 'notice' } }) });
    const batch = [
      ev('s1', 1),
      ev('s1', 2, { type: 'attention.requested', severity: 'notice', data: { kind: 'permission', prompt: 'test requests permission: Bash' } }),
      ev('s1', 3, { type: 'attention.requested' }), // default severity info: filtered out
      ev('s2', 1, { epoch: 2 }),
    ];
    expect((await post(url, batch)).status).toBe(202);
    await all.waitEvents(4);
    expect(all.msgs.filter((m) => m.raw).map((m) => m.raw)).toEqual(batch.map((e) => JSON.stringify(e)));
    expect(all.msgs.filter((m) => m.raw).map((m) => m.id)).toEqual(['s1:0:1', 's1:0:2', 's1:0:3', 's2:2:1']);
    expect(all.msgs.filter((m) => m.raw).map((m) => m.event)).toEqual(batch.map((e) => e.type));
    await post(url, [ev('s3', 1, { type: 'attention.answered', severity: 'warning', data: { answer: { option: 'allow' } } })]);
    const got = await attn.waitEvents(2);
    expect(got.map((e) => e.id)).toEqual([batch[1].id, got[1].id]);
    expect(got[1].session).toBe('s3');
  });

  it('refuses an invalid filter or capture with 400 before any stream starts (fail closed)', async () => {
    const { url } = await relay();
    for (const q of <Record<string, string>[]>[
      { filter: '{"seq":5}' },
      { filter: '{"type":"*"}' },
      { filter: 'nope' },
      { capture: 'everything' },
      { from: '{"x":1}' },
    ]) {
      const c = await sse(url, q);
      expect(c.status).toBe(400);
      expect(c.msgs[0].data.error).toBe('invalid-filter');
    }
  });
});

describe('resume (AEP-0003 §7)', () => {
  it('replays strictly after `from` then goes live: no gaps, no duplicates', async () => {
    const { url } = await relay();
    await post(
      url,
      [1, 2, 3, 4, 5].map((i) => ev('s', i)),
    );
    await post(
      url,
      [1, 2].map((i) => ev('t', i)),
    );
    const c = await sse(url, {
      from: JSON.stringify([
        { session: 's', epoch: 0, seq: 2 },
        { session: 't', epoch: 0, seq: 0 },
      ]),
    });
    await c.waitEvents(5);
    await post(url, [ev('s', 6)]);
    const got = await c.waitEvents(6);
    expect(got.map((e) => `${e.session}:${e.seq}`)).toEqual(['s:3', 's:4', 's:5', 't:1', 't:2', 's:6']);
    expect(c.msgs.some((m) => m.comment?.startsWith('replay-exhausted'))).toBe(false);
  });

  it('resumes from Last-Event-ID; `from` takes precedence over it', async () => {
    const { url } = await relay();
    await post(
      url,
      [1, 2, 3].map((i) => ev('s:x', i)),
    ); // a session containing a colon
    const a = await sse(url, { live: '0' }, { 'last-event-id': 's:x:0:1' });
    await until(() => a.ended);
    expect(a.events.map((e) => e.seq)).toEqual([2, 3]);
    const b = await sse(url, { live: '0', from: JSON.stringify([{ session: 's:x', epoch: 0, seq: 2 }]) }, { 'last-event-id': 's:x:0:0' });
    await until(() => b.ended);
    expect(b.events.map((e) => e.seq)).toEqual([3]);
  });

  it('orders the buffer by (epoch, seq) whatever the arrival order', async () => {
    const { url } = await relay();
    await post(url, [ev('s', 3, { epoch: 1 }), ev('s', 9), ev('s', 1, { epoch: 1 }), ev('s', 2)]);
    const c = await sse(url, { from: 'all', live: '0' });
    await until(() => c.ended);
    expect(c.events.map((e) => `${e.epoch ?? 0}:${e.seq}`)).toEqual(['0:2', '0:9', '1:1', '1:3']);
  });

  it('marks replay-exhausted when the asked position was evicted, then delivers from the earliest held', async () => {
    const { url } = await relay({ buffer: 4 });
    await post(
      url,
      [1, 2, 3, 4, 5, 6, 7, 8].map((i) => ev('s', i)),
    );
    const c = await sse(url, { live: '0', from: JSON.stringify([{ session: 's', epoch: 0, seq: 2 }]) });
    await until(() => c.ended);
    const firstEvent = c.msgs.findIndex((m) => m.raw);
    const marker = c.msgs.findIndex((m) => m.comment?.startsWith('replay-exhausted'));
    expect(c.msgs[marker].comment).toBe('replay-exhausted s 0:5');
    expect(marker).toBeLessThan(firstEvent);
    expect(c.events.map((e) => e.seq)).toEqual([5, 6, 7, 8]);
    // Resuming at a still-held position is not exhausted.
    const d = await sse(url, { live: '0', from: JSON.stringify([{ session: 's', epoch: 0, seq: 4 }]) });
    await until(() => d.ended);
    expect(d.msgs.some((m) => m.comment?.startsWith('replay-exhausted'))).toBe(false);
    expect(d.events.map((e) => e.seq)).toEqual([5, 6, 7, 8]);
  });

  it('evicts the least-recently-written session past the session cap; its resumers learn of the gap', async () => {
    const { url, relay: rl } = await relay({ maxSessions: 2 });
    await post(url, [ev('a', 1), ev('b', 1), ev('a', 2), ev('c', 1)]); // b is least recently written
    expect(rl.core.store.sessions().sort()).toEqual(['a', 'c']);
    const c = await sse(url, { live: '0', from: JSON.stringify([{ session: 'b', epoch: 0, seq: 0 }]) });
    await until(() => c.ended);
    expect(c.msgs.some((m) => m.comment?.startsWith('replay-exhausted b'))).toBe(true);
    const all = await sse(url, { live: '0', from: 'all' });
    await until(() => all.ended);
    expect(all.events.map((e) => `${e.session}${e.seq}`).sort()).toEqual(['a1', 'a2', 'c1']);
    expect(all.msgs.some((m) => m.comment?.startsWith('replay-exhausted'))).toBe(false);
  });

  it('answers 400 to more `from` positions than it replays', async () => {
    const { url } = await relay({ maxFrom: 5 });
    const from = Array.from({ length: 6 }, (_, i) => ({ session: `s${i}`, epoch: 0, seq: 0 }));
    const c = await sse(url, { from: JSON.stringify(from) });
    expect(c.status).toBe(400);
    expect(c.msgs[0].data.error).toBe('limit-exceeded');
  });
});

describe('capture ceiling at subscribe (AEP-0003 §6.4)', () => {
  it('down-levels above the ceiling, never up-levels, and maps full→redacted to metadata', async () => {
    const { url } = await relay();
    const full = ev('s', 1, {
      type: 'tool.requested',
      capture: 'full',
      data: { tool: { name: 'Bash', call_id: 't1' }, args: { command: 'cat ~/.ssh/id_rsa' } },
    });
    const meta = ev('s', 2, { type: 'tool.requested', capture: 'metadata', data: { tool: { name: 'Bash', call_id: 't2' } } });
    const m = await sse(url, { capture: 'metadata' });
    const r = await sse(url, { capture: 'redacted' });
    const f = await sse(url, { capture: 'full' });
    await post(url, [full, meta]);
    const [mFull, mMeta] = await m.waitEvents(2);
    expect(mFull.capture).toBe('metadata');
    expect(mFull.data.args).toBeUndefined();
    expect(mFull.data.tool.name).toBe('Bash');
    expect(JSON.stringify(m.msgs)).not.toContain('id_rsa');
    expect(mMeta).toEqual(meta);
    const [rFull] = await r.waitEvents(2);
    expect(rFull.capture).toBe('metadata'); // a mechanical hop never mints `redacted`
    expect(rFull.data.args).toBeUndefined();
    const [fFull, fMeta] = await f.waitEvents(2);
    expect(fFull).toEqual(full);
    expect(fMeta.capture).toBe('metadata'); // not up-leveled
  });
});

describe('slow consumers (AEP-0003 §8.4)', () => {
  it('drops an SSE consumer that never reads; memory stays bounded and others get everything', async () => {
    const { url, port, relay: rl } = await relay({ maxPending: 64 * 1024 });
    const fast = await sse(url);
    // A raw socket that subscribes and then never reads a byte.
    const sock = net.connect(port, '127.0.0.1');
    defer(() => void sock.destroy());
    await new Promise<void>((r) => sock.once('connect', () => r()));
    sock.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
    sock.pause();
    await until(() => rl.core.subs.size === 2, 'slow subscriber registered');
    const pad = 'x'.repeat(2000);
    let seq = 0;
    // notice severity: never shed silently, so the relay must disconnect the slow reader.
    while (rl.core.subs.size === 2) {
      await post(
        url,
        Array.from({ length: 20 }, () => ev('s', ++seq, { severity: 'notice', data: { pad } })),
      );
      if (seq > 200_000) throw new Error('slow consumer was never dropped');
    }
    expect(rl.core.counters.droppedConsumers).toBe(1);
    const got = await fast.waitEvents(seq);
    expect(got.length).toBe(seq);
    expect(got[got.length - 1].seq).toBe(seq);
  });
});
