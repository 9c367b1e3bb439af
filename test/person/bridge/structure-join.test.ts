// A permission request joins its tool call by what the stream says before any
// heuristic (issue 39): ACP's request names the call by its id (subject =
// toolCallId), not by the tool's name; another agent's request may name its
// call's request as its cause. So `hookmap timeline` tells what became of an
// ACP call answered "never" with no outcome of its own, and of one whose
// request timed out, instead of "no outcome reported".
import { describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../engine/person/bridge/projection/common.ts';
import { SessionTracker, type SessionNode } from '../../../engine/person/bridge/structure.ts';
import { renderTree } from '../../../engine/person/bridge/timeline.ts';

let n = 0;
const ev = (type: string, seq: number, extra: Record<string, unknown> = {}): AepEvent =>
  ({
    aep: '0.1',
    id: `e${++n}`,
    type,
    time: `2026-12-02T08:00:${String(seq).padStart(2, '0')}.000Z`,
    source: 'aep://h/agent/acp/session/s1',
    agent: 'acp',
    session: 's1',
    seq,
    ...extra,
  }) as AepEvent;

function story(answer: (ask: AepEvent) => AepEvent[], askExtra: Record<string, unknown> = {}): string {
  const call = ev('tool.requested', 3, { id: 'call-request', run: 'r1', subject: 'call-7', data: { tool: { name: 'execute', call_id: 'call-7' } } });
  const ask = ev('attention.requested', 4, { run: 'r1', subject: 'call-7', data: { kind: 'permission', prompt: 'Permission requested: ls' }, ...askExtra });
  const events = [ev('session.started', 1), ev('run.started', 2, { run: 'r1' }), call, ask, ...answer(ask), ev('run.finished', 9, { run: 'r1' })];
  return renderTree(events).join('\n');
}

describe('a permission request joins its call by call id, then by cause, before the tool name', () => {
  it('an ACP call answered "never" with no outcome of its own is denied', () => {
    const out = story((ask) => [ev('attention.answered', 5, { subject: ask.id, data: { answer: { option: 'never' }, via: 'control', by: 'alex' } })]);
    expect(out).toMatch(/execute.*denied by alex/);
    expect(out).not.toMatch(/execute.*no outcome reported/);
  });

  it("an ACP call whose request timed out: the agent's own dialog decided", () => {
    const out = story((ask) => [ev('attention.timeout', 6, { subject: ask.id, data: {} })]);
    expect(out).toMatch(/execute.*not answered; the agent decided/);
  });

  it("joined by its cause when the subject is neither the call's id nor its tool's name", () => {
    const out = story((ask) => [ev('attention.answered', 5, { subject: ask.id, data: { answer: { option: 'deny' }, via: 'control', by: 'alex' } })], {
      subject: 'something-else',
      cause: 'call-request',
    });
    expect(out).toMatch(/execute.*denied by alex/);
  });

  it('after a checkpoint restore, a terminal with no call id still closes the restored call (the fold relearns it from the node)', () => {
    const closed: SessionNode[] = [];
    const before = new SessionTracker(() => {});
    for (const e of [ev('session.started', 1), ev('run.started', 2, { run: 'r1' }), ev('tool.requested', 3, { run: 'r1', data: { tool: { name: 'Bash' } } })])
      before.add(e);
    const after = new SessionTracker((n) => closed.push(n));
    after.restore(JSON.parse(JSON.stringify(before.snapshot())));
    after.add(ev('tool.completed', 4, { run: 'r1', data: { tool: { name: 'Bash' } } }));
    expect(closed.map((n) => [n.kind, n.outcome, n.attrs.request_seen])).toEqual([['tool', 'completed', undefined]]);
  });
});
