// The one fold (engine/core/kernel/fold/): joins by what the stream says before the
// tool's name, fates, lineage of a resumed session, and its bounds.
import { describe, expect, it } from 'vitest';
import { callFate, predecessorOf, requestFate, runFate, StoryFold, type FoldEvent } from '../../../engine/core/kernel/fold/index.ts';

let n = 0;
const ev = (type: string, extra: Partial<FoldEvent> & Record<string, unknown> = {}): FoldEvent => ({
  id: `e${++n}`,
  type,
  source: 'aep://h/agent/a/session/s1',
  session: 's1',
  time: `2026-12-02T08:00:${String(n % 60).padStart(2, '0')}.000Z`,
  ...extra,
});

describe('the one fold', () => {
  it('joins a terminal by call id, then by cause, and only then by the tool name in its run', () => {
    const f = new StoryFold();
    const a = ev('tool.requested', { run: 'r1', data: { tool: { name: 'Bash', call_id: 'c1' } } });
    const b = ev('tool.requested', { run: 'r1', data: { tool: { name: 'Bash' } } });
    const c = ev('tool.requested', { run: 'r1', data: { tool: { name: 'Read' } } });
    f.addAll([ev('run.started', { run: 'r1' }), a, b, c]);
    f.add(ev('tool.completed', { run: 'r1', data: { tool: { name: 'Bash', call_id: 'c1' } } }));
    f.add(ev('tool.failed', { run: 'r1', cause: c.id, data: { tool: { name: 'Read' } } }));
    f.add(ev('tool.denied', { run: 'r1', data: { tool: { name: 'Bash' } } }));
    expect([a, b, c].map((x) => callFate(f.call(x, x.id)!))).toEqual(['completed', 'denied', 'failed']);
  });

  it('joins a request by cause, by subject = call id, then (a permission) by tool name; its answer decides the call', () => {
    const f = new StoryFold();
    const call = ev('tool.requested', { run: 'r1', data: { tool: { name: 'execute', call_id: 'k7' } } });
    const ask = ev('attention.requested', { run: 'r1', subject: 'k7', data: { kind: 'permission' } });
    const named = ev('tool.requested', { run: 'r1', data: { tool: { name: 'Bash' } } });
    const byName = ev('attention.requested', { run: 'r1', subject: 'Bash', data: { kind: 'permission' } });
    f.addAll([ev('run.started', { run: 'r1' }), call, ask, named, byName]);
    expect(callFate(f.call(call, call.id)!)).toBe('waiting');
    f.add(ev('attention.answered', { subject: ask.id, data: { answer: { option: 'reject_always' } }, hookmapeffects: 'reject_always=never' } as never));
    f.add(ev('attention.timeout', { subject: byName.id, data: {} }));
    expect(f.request(ask, ask.id)?.call).toBe(f.call(call, call.id));
    expect(callFate(f.call(call, call.id)!)).toBe('refused');
    expect(callFate(f.call(named, named.id)!)).toBe('timed-out');
    const closed = f.add(ev('run.finished', { run: 'r1' }));
    expect(closed.length).toBe(2);
    expect(runFate(f.session(call)!.runs.get('r1')!)).toBe('finished');
  });

  it('an undeclared option is neither an allow nor a refusal; the call ends unreported', () => {
    const f = new StoryFold();
    const call = ev('tool.requested', { data: { tool: { name: 'x', call_id: 'q1' } } });
    const ask = ev('attention.requested', { subject: 'q1', data: { kind: 'permission' } });
    f.addAll([call, ask, ev('attention.answered', { subject: ask.id, data: { answer: { option: 'proceed_sometimes' } } })]);
    expect(requestFate(f.request(ask, ask.id)!)).toBe('answered');
    f.add(ev('session.ended', { data: {} }));
    expect(callFate(f.call(call, call.id)!)).toBe('unreported');
  });

  it('a request still open at its session end is unanswered; a terminal whose request predates the fold starts its story', () => {
    const f = new StoryFold();
    const ask = ev('attention.requested', { data: { kind: 'input' } });
    f.addAll([ask, ev('attention.resolved', { subject: 'before', data: { resolution: 'dismissed' } }), ev('session.ended', { data: {} })]);
    expect(requestFate(f.request(ask, ask.id)!)).toBe('unanswered');
    expect(requestFate(f.request(ask, 'before')!)).toBe('dismissed');
  });

  it('keeps a resumed session in its line: resumed_from, else <id>~N', () => {
    expect(predecessorOf('s~2')).toBe('s');
    expect(predecessorOf('s~3')).toBe('s~2');
    expect(predecessorOf('s')).toBeUndefined();
    expect(predecessorOf('x', 'y')).toBe('y');
    const f = new StoryFold();
    const at = (session: string) => ({ source: `aep://h/agent/a/session/${session}`, session });
    f.add(ev('session.started', at('s')));
    f.add(ev('session.ended', { ...at('s'), data: {} }));
    f.add(ev('session.started', { ...at('s~2'), data: { resumed_from: 's' } }));
    f.add(ev('session.started', at('s~3')));
    expect(f.line('s').map((s) => s.session)).toEqual(['s', 's~2', 's~3']);
  });

  it('is bounded: sessions least recently active first, calls and requests oldest settled first', () => {
    const f = new StoryFold({ maxSessions: 2, maxCalls: 3, maxRequests: 2 });
    for (const s of ['a', 'b', 'c']) f.add(ev('session.started', { session: s, source: `aep://h/agent/a/session/${s}` }));
    expect([...f.sessions.values()].map((s) => s.session)).toEqual(['b', 'c']);
    const calls = Array.from({ length: 5 }, (_, i) => ev('tool.requested', { data: { tool: { name: 't', call_id: `k${i}` } } }));
    f.addAll(calls);
    f.add(ev('tool.completed', { data: { tool: { name: 't', call_id: 'k3' } } }));
    f.add(ev('tool.requested', { data: { tool: { name: 't', call_id: 'k5' } } }));
    expect([...f.session(calls[0])!.calls.keys()]).toEqual(['k2', 'k4', 'k5']);
    for (let i = 0; i < 4; i++) f.add(ev('attention.requested', { data: { kind: 'input' } }));
    expect(f.session(calls[0])!.requests.size).toBe(2);
  });
});
