// The span synthesis (engine/person/bridge/structure.ts + projection/otlp-traces.ts):
// session → run → tool call / attention spans with GenAI semantic-convention
// attributes, closed by terminal events; unterminated spans closed by their
// parent (marked); bounded state; deterministic ids across a restart.
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { TraceProjector, traceIdOf } from '../../../engine/person/bridge/projection/otlp-traces.ts';
import { SessionTracker, type SessionNode } from '../../../engine/person/bridge/structure.ts';
import { fixtureEvent } from './fixtures.ts';

const ORDER = [
  'session.started',
  'run.started',
  'tool.requested',
  'attention.requested',
  'attention.answered',
  'attention.resolved',
  'tool.denied',
  'tool.requested.read',
  'tool.completed',
  'tool.completed.full',
  'tool.failed',
  'run.finished',
  'attention.requested.form',
  'attention.answered.form',
  'attention.resolved.dismissed',
  'attention.timeout',
  'error.raised.critical',
  'x.vendor.debug',
  'session.ended',
  'agent.presence',
];

function project(names: string[], p = new TraceProjector()) {
  return names.flatMap((n) => p.add(fixtureEvent(n)));
}

describe('trace projection of a session', () => {
  const spans = project(ORDER);
  const byName = (name: string) => spans.filter((s) => s.name === name);
  const id = (s: any) => s.spanContext().spanId;

  it('one trace; the session is the root; runs under it; tools and attention under their run or tool', () => {
    const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
    expect(traceIds.size).toBe(1);
    const [session] = byName('session claude-code');
    const [run] = byName('invoke_agent claude-code');
    expect(session.parentSpanContext).toBeUndefined();
    expect(run.parentSpanContext?.spanId).toBe(id(session));
    const bash = byName('execute_tool Bash')[0];
    expect(bash.parentSpanContext?.spanId).toBe(id(run));
    const perm = byName('attention permission')[0];
    expect(perm.parentSpanContext?.spanId).toBe(id(bash)); // the wait is about that call
    const form = byName('attention form')[0];
    expect(form.parentSpanContext?.spanId).toBe(id(session)); // asked outside any run
    expect(byName('execute_tool Read')).toHaveLength(2);
    expect(byName('execute_tool Edit')[0].parentSpanContext?.spanId).toBe(id(run));
  });

  it('GenAI semantic-convention names and values', () => {
    const [run] = byName('invoke_agent claude-code');
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'claude-code',
      'gen_ai.conversation.id': 's-cc-7',
      'gen_ai.usage.input_tokens': 5120,
      'gen_ai.usage.output_tokens': 801,
      'aep.run.outcome': 'finished',
    });
    const read = byName('execute_tool Read').find((s) => s.attributes['gen_ai.tool.call.id'] === 'toolu_02')!;
    expect(read.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'Read', 'aep.tool.outcome': 'completed' });
    const [session] = byName('session claude-code');
    expect(session.attributes).toMatchObject({ 'session.id': 's-cc-7', 'gen_ai.request.model': 'claude-opus-5', 'aep.session.outcome': 'normal' });
  });

  it('span times are the start and terminal events; a denied tool and a failed tool are errors', () => {
    const bash = byName('execute_tool Bash')[0];
    expect(bash.startTime).toEqual([Date.parse('2026-11-30T09:00:02Z') / 1000, 5e8]);
    expect(bash.endTime).toEqual([Date.parse('2026-11-30T09:00:09Z') / 1000, 2e8]);
    expect(bash.status).toEqual({ code: SpanStatusCode.ERROR, message: 'denied by user_setting' });
    expect(bash.attributes['error.type']).toBe('denied');
    const edit = byName('execute_tool Edit')[0];
    expect(edit.status.code).toBe(SpanStatusCode.ERROR);
    expect(edit.attributes['error.type']).toBe('tool_error');
    expect(edit.attributes['aep.tool.request_seen']).toBe(false);
    expect(edit.status.message).toBeUndefined(); // error.message is redacted-level: not at the metadata ceiling
  });

  it('the attention wait carries its outcome; answered text never becomes an attribute', () => {
    const perm = byName('attention permission')[0];
    expect(perm.attributes).toMatchObject({
      'aep.attention.kind': 'permission',
      'aep.attention.outcome': 'answered',
      'aep.attention.answer.option': 'deny',
      'aep.attention.latency_ms': 6550,
    });
    expect(perm.events.map((e) => e.name)).toEqual(['attention.answered']);
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toMatch(/force-push|never force|billing db/);
  });

  it('other session events become span events on their run or the session', () => {
    const [session] = byName('session claude-code');
    expect(session.events.map((e) => e.name)).toEqual(['attention.resolved', 'attention.timeout', 'error.raised', 'x.claude-code.session.cwd_changed']);
  });

  it('serializes through the OpenTelemetry JSON trace serializer', () => {
    const req = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)));
    const all = req.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans));
    expect(all).toHaveLength(spans.length);
  });
});

describe('spans never closed by their agent', () => {
  it('a run without its terminal event ends with the session, marked', () => {
    const spans = project(['session.started', 'run.started', 'tool.requested', 'session.ended']);
    const run = spans.find((s) => s.name.startsWith('invoke_agent'))!;
    expect(run.endTime).toEqual([Date.parse('2026-11-30T09:02:00Z') / 1000, 0]);
    expect(run.attributes).toMatchObject({ 'aep.unterminated': true, 'aep.closed_by': 'session.ended', 'aep.run.outcome': 'unterminated' });
    const tool = spans.find((s) => s.name === 'execute_tool Bash')!;
    expect(tool.attributes['aep.closed_by']).toBe('session.ended');
    // children close before their parents
    expect(spans.map((s) => s.name)).toEqual(['execute_tool Bash', 'invoke_agent claude-code', 'session claude-code']);
  });

  it('an idle session is closed at its last event by the sweep; the end of a file closes everything', () => {
    const p = new TraceProjector();
    p.add(fixtureEvent('session.started'), 1_000);
    p.add(fixtureEvent('run.started'), 2_000);
    expect(p.sweep(60_000, 30_000)).toEqual([]);
    const swept = p.sweep(60_000, 70_000);
    expect(swept.map((s) => s.attributes['aep.closed_by'])).toEqual(['idle', 'idle']);
    const q = new TraceProjector();
    q.add(fixtureEvent('session.started'));
    expect(q.closeAll().map((s) => s.attributes['aep.closed_by'])).toEqual(['end-of-input']);
  });

  it('bounded: past maxSessions the least recently active session is closed (evicted)', () => {
    const closed: SessionNode[] = [];
    const t = new SessionTracker((n) => closed.push(n), { maxSessions: 3 });
    for (let i = 0; i < 10; i++) t.add(fixtureEvent('session.started', { session: `s${i}`, id: `id${i}` }));
    expect(t.sessions.size).toBe(3);
    expect(closed.map((n) => n.session)).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6']);
    expect(closed.every((n) => n.closedBy === 'evicted')).toBe(true);
  });

  it('bounded: open calls per session are capped; span events per span are capped and counted', () => {
    const closed: SessionNode[] = [];
    const t = new SessionTracker((n) => closed.push(n), { maxOpenPerSession: 5, maxEventsPerNode: 3 });
    t.add(fixtureEvent('session.started'));
    for (let i = 0; i < 20; i++) t.add(fixtureEvent('tool.requested', { id: `tr${i}`, run: null, data: { tool: { name: 'Bash', call_id: `c${i}` } } }));
    expect(Object.keys(t.sessions.values().next().value!.open).length).toBeLessThanOrEqual(5);
    for (let i = 0; i < 10; i++) t.add(fixtureEvent('x.vendor.debug', { id: `x${i}` }));
    t.add(fixtureEvent('session.ended'));
    const s = closed.find((n) => n.kind === 'session')!;
    expect(s.events).toHaveLength(3);
    expect(s.droppedEvents).toBe(7);
  });
});

describe('restart', () => {
  it('same span ids for the same session; open spans survive a snapshot/restore', () => {
    const a = new TraceProjector();
    const first = [...a.add(fixtureEvent('session.started')), ...a.add(fixtureEvent('run.started'))];
    expect(first).toEqual([]);
    const state = JSON.parse(JSON.stringify(a.tracker.snapshot()));
    const b = new TraceProjector();
    b.tracker.restore(state);
    const spans = [...b.add(fixtureEvent('run.finished')), ...b.add(fixtureEvent('session.ended'))];
    expect(spans.map((s) => s.name)).toEqual(['invoke_agent claude-code', 'session claude-code']);
    expect(spans[0].startTime).toEqual([Date.parse('2026-11-30T09:00:01Z') / 1000, 0]);
    const c = new TraceProjector();
    const again = project(['session.started', 'run.started', 'run.finished', 'session.ended'], c);
    expect(again.map((s) => s.spanContext().spanId)).toEqual(spans.map((s) => s.spanContext().spanId));
  });

  it('a session.started traceparent puts the session on that trace, under that span', () => {
    const p = new TraceProjector();
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    p.add(fixtureEvent('session.started', { traceparent: tp }));
    const [s] = p.add(fixtureEvent('session.ended'));
    expect(s.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(s.parentSpanContext).toMatchObject({ spanId: '00f067aa0ba902b7', isRemote: true });
    expect(traceIdOf({ source: 'aep://h/agent/a/session/x', session: 'x' })).toMatch(/^[0-9a-f]{32}$/);
  });
});
