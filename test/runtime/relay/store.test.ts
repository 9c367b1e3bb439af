// MemoryStore (engine/runtime/relay/store.ts): bounded in events and bytes, per
// session and in total; admission dedupe; replay order and the
// replay-exhausted position (AEP-0003 §5); refilling from a durable record.
import { describe, expect, it } from 'vitest';
import { MemoryStore, type Held } from '../../../engine/runtime/relay/store.ts';
import { ev } from './helpers.ts';

const held = (e: Record<string, any>): Held => ({ ev: e as any, raw: JSON.stringify(e) });
const store = (o: Partial<{ perSession: number; maxSessions: number; sessionBytes: number; totalBytes: number }> = {}) =>
  new MemoryStore({ perSession: 10_000, maxSessions: 500, sessionBytes: 16 * 2 ** 20, totalBytes: 128 * 2 ** 20, ...o });
const seqs = (s: MemoryStore, session: string, after: { epoch: number; seq: number } | null = null) => s.replay(session, after).events.map((e) => e.seq);

describe('MemoryStore', () => {
  it('holds each event once, as its bytes, and replays them in (epoch, seq) order whatever the arrival order', () => {
    const s = store();
    for (const q of [1, 2, 5, 3, 4]) expect(s.admit(held(ev('a', q)))).toBe(true);
    expect(s.admit(held(ev('a', 0, { epoch: 1 })))).toBe(true);
    expect(seqs(s, 'a')).toEqual([1, 2, 3, 4, 5, 0]);
    const texts = s.replay('a', { epoch: 0, seq: 3 }).events.map((e) => JSON.parse(e.text()).seq);
    expect(texts).toEqual([4, 5, 0]);
  });

  it('dedupes a redelivery on (source, id) at its position; a different event claiming the position is kept', () => {
    const s = store();
    const e = ev('d', 1);
    expect(s.admit(held(e))).toBe(true);
    expect(s.admit(held({ ...e }))).toBe(false);
    expect(s.admit(held({ ...e, id: 'other' }))).toBe(true); // an emitter fault, surfaced, not hidden
    expect(s.admit(held({ ...e, source: 'aep://elsewhere/agent/x' }))).toBe(true);
    expect(seqs(s, 'd')).toEqual([1, 1, 1]);
  });

  it('bounds a session by count and by bytes, oldest first, and marks what was trimmed', () => {
    const byCount = store({ perSession: 3 });
    for (let q = 1; q <= 5; q++) byCount.admit(held(ev('c', q)));
    expect(seqs(byCount, 'c')).toEqual([3, 4, 5]);
    expect(byCount.replay('c', { epoch: 0, seq: 1 }).exhausted).toEqual({ epoch: 0, seq: 3 });
    expect(byCount.replay('c', { epoch: 0, seq: 2 }).exhausted).toBeUndefined();
    expect(byCount.admit(held(ev('c', 2)))).toBe(false); // below what was trimmed: never re-admitted

    const pad = 'x'.repeat(1000);
    const byBytes = store({ sessionBytes: 64 * 1024, totalBytes: 1 << 20 });
    for (let q = 1; q <= 500; q++) byBytes.admit(held(ev('b', q, { data: { pad } })));
    const st = byBytes.stats();
    expect(st.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(st.events).toBeGreaterThan(20);
    expect(st.events).toBeLessThan(64);
    expect(seqs(byBytes, 'b').at(-1)).toBe(500);
  });

  it('bounds the total in bytes: the least recently written sessions go first, and their resumers learn of it', () => {
    const pad = 'y'.repeat(2000);
    const s = store({ sessionBytes: 64 * 1024, totalBytes: 256 * 1024 });
    for (const session of ['s1', 's2', 's3', 's4', 's5', 's6']) for (let q = 1; q <= 40; q++) s.admit(held(ev(session, q, { data: { pad } })));
    s.admit(held(ev('s6', 41, { data: { pad } })));
    expect(s.stats().bytes).toBeLessThanOrEqual(256 * 1024);
    expect(s.sessions()).not.toContain('s1');
    expect(s.sessions().at(-1)).toBe('s6');
    expect(s.replay('s1', { epoch: 0, seq: 3 }).exhausted).toEqual({ epoch: 0, seq: 41 });
    expect(s.stats().evictedSessions).toBeGreaterThan(0);
  });

  it('frees its bytes as it evicts: a long stream through one session costs its budget, not its length', () => {
    const s = store({ perSession: 100 });
    const pad = 'z'.repeat(500);
    for (let q = 1; q <= 20_000; q++) s.admit(held(ev('long', q, { data: { pad } })));
    const st = s.stats();
    expect(st.events).toBe(100);
    expect(st.bytes).toBeLessThan(100 * 700 + 256 * 1024 + 64 * 1024);
  });

  it('an event larger than a session budget is not held, and a resume below it says so', () => {
    const s = store({ sessionBytes: 8 * 1024, totalBytes: 64 * 1024 });
    s.admit(held(ev('big', 1)));
    expect(s.admit(held(ev('big', 2, { data: { pad: 'q'.repeat(20_000) } })))).toBe(true);
    expect(seqs(s, 'big')).toEqual([]);
    expect(s.replay('big', { epoch: 0, seq: 1 }).exhausted).toEqual({ epoch: 0, seq: 3 });
  });

  it('restore refills from a durable record; a record cut short marks the gap before its first event', () => {
    const s = store();
    s.restore(
      'r',
      [3, 4, 5].map((q) => held(ev('r', q))),
      true,
    );
    expect(seqs(s, 'r')).toEqual([3, 4, 5]);
    expect(s.replay('r', { epoch: 0, seq: 1 }).exhausted).toEqual({ epoch: 0, seq: 3 });
    expect(s.replay('r', { epoch: 0, seq: 2 }).exhausted).toBeUndefined();
    s.restore(
      'whole',
      [0, 1].map((q) => held(ev('whole', q))),
      false,
    );
    expect(s.replay('whole', { epoch: 0, seq: 0 }).exhausted).toBeUndefined();
  });
});
