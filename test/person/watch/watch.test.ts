// The watch's rules on a fed stream with a fake clock (engine/person/watch/watch.ts,
// the kernel's real fold under it): a silent run raises once and any event
// clears it; a long call raises once however many ticks; a sign covered by an
// open card raises nothing; an informational request does not cover; bad
// events are skipped and the next is read; at most MAX_RAISED open at once.
import { describe, expect, it } from 'vitest';
import { MAX_RAISED, Watch } from '../../../engine/person/watch/watch.ts';
import type { FoldEvent } from '../../../engine/core/kernel/fold/index.ts';

function rig(o: { callMs?: number; runMs?: number } = {}) {
  let now = 1_000_000;
  let n = 0;
  const raised: { id: string; data: Record<string, any>; cause?: string }[] = [];
  const resolved: { id: string; resolution: string; cause?: string }[] = [];
  const said: string[] = [];
  const w = new Watch({
    callMs: o.callMs ?? 0,
    runMs: o.runMs ?? 0,
    own: (ev) => ev.agent === 'hookmap',
    now: () => now,
    say: (l) => said.push(l),
    out: {
      request: (data, cause) => {
        const id = `w${++n}`;
        raised.push({ id, data, cause });
        return id;
      },
      resolve: (id, resolution, cause) => void resolved.push({ id, resolution, cause }),
    },
  });
  let seq = 0;
  const ev = (session: string, type: string, more: Partial<FoldEvent> = {}): FoldEvent => ({
    id: `e${++seq}`,
    type,
    source: 'aep://h/agent/a',
    time: new Date(now).toISOString(),
    agent: 'a',
    session,
    ...more,
  });
  const add = (session: string, type: string, more: Partial<FoldEvent> = {}) => {
    const e = ev(session, type, more);
    w.add(e);
    return e;
  };
  return { w, add, raised, resolved, said, later: (ms: number) => void (now += ms) };
}

describe('the watch', () => {
  it('a silent run raises once, whatever the ticks; any event of the session clears it', () => {
    const r = rig({ runMs: 60_000 });
    r.add('s1', 'session.started', { hookmapproject: 'shop-api' } as any);
    r.add('s1', 'run.started', { run: 'r1' });
    r.later(59_000);
    r.w.tick();
    expect(r.raised).toHaveLength(0);
    r.later(2000);
    for (let i = 0; i < 5; i++) r.w.tick();
    expect(r.raised.map((x) => x.data.prompt)).toEqual(['a in shop-api: its run has said nothing for 1 min; it may wait at its terminal']);
    expect(r.raised[0].data.respond_via).toEqual(['oob']);
    const moved = r.add('s1', 'tool.requested', { run: 'r1', data: { tool: { name: 'Bash', call_id: 'c1' } } });
    expect(r.resolved).toEqual([{ id: 'w1', resolution: 'auto', cause: moved.id }]);
    // a session with no open run is not silent
    r.add('s2', 'session.started');
    r.later(120_000);
    r.w.tick();
    expect(r.raised.filter((x) => x.data.watch.session === 's2')).toHaveLength(0);
  });

  it('a long call raises once; an open answerable card covers it; an informational one does not', () => {
    const r = rig({ callMs: 10_000 });
    r.add('s1', 'run.started', { run: 'r1' });
    const call = r.add('s1', 'tool.requested', { run: 'r1', data: { tool: { name: 'Bash', call_id: 'c1' } } });
    const card = r.add('s1', 'attention.requested', { run: 'r1', cause: call.id, data: { kind: 'permission', prompt: 'p' } });
    r.later(20_000);
    r.w.tick();
    expect(r.raised).toHaveLength(0); // a hookmap card asks
    r.add('s1', 'attention.resolved', { subject: card.id, data: { resolution: 'dismissed' } });
    r.w.tick();
    r.w.tick();
    expect(r.raised).toHaveLength(1);
    expect(r.raised[0].data.prompt).toBe('a in session s1: Bash was asked for 10 s ago and has not finished; it may wait at its terminal');
    r.add('s1', 'tool.completed', { run: 'r1', data: { tool: { name: 'Bash', call_id: 'c1' } } });
    expect(r.resolved.map((x) => x.id)).toEqual(['w1']);
    // an informational request (respond_via without control) covers nothing: a waiting sign still raises
    r.add('s3', 'attention.requested', { data: { kind: 'permission', prompt: 'p', respond_via: ['oob'] } });
    r.add('s3', 'x.hookmap.watch.waiting', { data: { sign: 'x', reason: 'question', hook: 'N' } });
    expect(r.raised.at(-1)!.data.prompt).toBe('a in session s3 waits at its terminal for an answer to its question: no hookmap card asks it');
  });

  it('bad events are skipped and the next one read; its own events are never watched', () => {
    const r = rig();
    for (const bad of [null, 42, { type: 1 }, { type: 'x', session: {} }, { id: 'b', type: 'x.hookmap.watch.waiting', source: 's', session: 'q', data: null }])
      r.w.add(bad as any);
    r.add('s9', 'x.hookmap.watch.waiting', { agent: 'hookmap' });
    r.add('s1', 'x.hookmap.watch.waiting', { data: { reason: { evil: true }, hook: 'N', sign: 's' } });
    expect(r.raised.map((x) => x.data.watch.session)).toEqual(['q', 's1']);
    expect(r.raised[1].data.kind).toBe('input'); // an unreadable reason: input
  });

  it("an emitter's own names reach the words only as plain names (no link, path or markup)", () => {
    const r = rig();
    r.add('s1', 'session.started', { hookmapproject: 'see https://evil.example/<b>now</b>' } as any);
    r.add('s1', 'tool.requested', { data: { tool: { name: '../../x<script>', call_id: 'c1' } } });
    r.add('s1', 'x.hookmap.watch.waiting', { data: { reason: 'permission' } });
    const d = r.raised[0].data;
    expect(d.prompt).toBe('a in see https evil.example b now b waits at its terminal for .. .. x script permission: no hookmap card asks it');
    expect(d.watch.project).toBe('see https evil.example b now b');
    expect(d.watch.tool).toBe('.. .. x script');
  });

  it(`at most ${MAX_RAISED} open at once, said once`, () => {
    const r = rig();
    for (let i = 0; i < MAX_RAISED + 50; i++) r.add(`s${i}`, 'x.hookmap.watch.waiting', { data: { reason: 'input' } });
    expect(r.raised).toHaveLength(MAX_RAISED);
    expect(r.said.filter((l) => /no more until some clear/.test(l))).toHaveLength(1);
    r.w.close();
    expect(r.resolved).toHaveLength(MAX_RAISED);
    expect(new Set(r.resolved.map((x) => x.resolution))).toEqual(new Set(['dismissed']));
    expect(r.w.open).toBe(0);
  });
});
