// The inbox's live tokens and cost (model/usage.ts: per session and per run,
// the cost only when every part has one) and the OTel companion join
// (model/otel-join.ts, issue 30: Codex's OTel records on the hook channel's
// tool rows, by session and call id only), in Node through the store.
import { describe, expect, it } from 'vitest';
import type { Ev } from '../../../web/src/model/aep.ts';
import { otelText } from '../../../web/src/model/otel-join.ts';
import { Store } from '../../../web/src/model/store.ts';
import { buildTimeline, type ToolRow } from '../../../web/src/model/timeline.ts';
import { usageLong, usageOf, usageText } from '../../../web/src/model/usage.ts';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const HOOKS = 'aep://h/agent/codex/session/c1';
const OTEL = 'aep://h/agent/codex/otel/session/c1';
let n = 0;
function ev(type: string, seq: number, extra: Partial<Ev> = {}, session = 's1'): Ev {
  return {
    aep: '0.1',
    id: `u${++n}`,
    type,
    time: new Date(T0 + seq * 1000).toISOString(),
    source: HOOKS,
    agent: 'codex',
    session,
    seq,
    epoch: 0,
    ...extra,
  };
}
const usage = (seq: number, run: string | undefined, input: number, output: number, cost?: number, currency = 'USD') =>
  ev('x.hookmap.usage.reported', seq, {
    source: 'aep://h/agent/claude-code/session/s1',
    ...(run ? { run } : {}),
    data: {
      'gen_ai.response.model': 'm',
      'gen_ai.usage.input_tokens': input,
      'gen_ai.usage.output_tokens': output,
      responses: 1,
      ...(cost === undefined ? {} : { cost: { currency, total: cost }, price_table: 't' }),
    },
  });

function sessionOf(events: Ev[], id = 's1') {
  const st = new Store();
  st.applyBatch(
    events.map((e) => ({ ev: e })),
    T0,
  );
  return st.sessions.get(id)!;
}

describe('usage per session and per run', () => {
  it('sums the usage events of each run and of the session, with the cost when every part has one', () => {
    const u1 = usage(2, 'r1', 1000, 200, 0.01);
    const s = sessionOf([
      ev('run.started', 1, { run: 'r1' }),
      u1,
      usage(3, 'r1', 500, 100, 0.005),
      ev('run.started', 4, { run: 'r2' }),
      usage(5, 'r2', 40, 10, 0.001),
    ]);
    // the same event again through another subscription counts once
    const st = new Store();
    st.applyBatch(
      [...s.events, { ...u1 }].map((e) => ({ ev: e })),
      T0,
    );
    const u = usageOf(st.sessions.get('s1')!);
    expect(u.runs.get('r1')).toMatchObject({ input: 1500, output: 300 });
    expect(u.runs.get('r1')!.cost!.total).toBeCloseTo(0.015);
    expect(usageText(u.runs.get('r2')!)).toBe('50 tokens · $0.0010');
    expect(u.total).toMatchObject({ input: 1540, output: 310 });
    expect(usageText(u.total!)).toBe('1.9k tokens · $0.0160');
    expect(usageLong(u.total!)).toBe('1,850 tokens (1,540 input, 310 output), cost $0.0160');
  });

  it('shows no cost when any part has none or another currency: never guessed', () => {
    const u = usageOf(sessionOf([usage(1, 'r1', 10, 5, 0.01), usage(2, 'r1', 10, 5)]));
    expect(u.runs.get('r1')!.cost).toBeUndefined();
    expect(usageText(u.total!)).toBe('30 tokens');
    expect(usageLong(u.total!)).toContain('cost not reported');
    const eur = usageOf(sessionOf([usage(1, undefined, 10, 5, 0.01), usage(2, undefined, 10, 5, 0.02, 'EUR')]));
    expect(eur.total!.cost).toBeUndefined();
    expect(usageOf(sessionOf([ev('run.started', 1, { run: 'r1' })])).total).toBeUndefined();
  });

  it("reads an agent's own run-end usage (pi: gen_ai.usage.* on run.finished), and never counts a run twice", () => {
    const fin = (seq: number, run: string, i: number, o: number) =>
      ev('run.finished', seq, { run, data: { stop_reason: 'stop', 'gen_ai.usage.input_tokens': i, 'gen_ai.usage.output_tokens': o } });
    const u = usageOf(
      sessionOf([
        ev('run.started', 0, { run: 'r1' }),
        fin(1, 'r1', 120, 40),
        ev('run.started', 2, { run: 'r2' }),
        usage(3, 'r2', 7, 3),
        fin(4, 'r2', 999, 999),
      ]),
    );
    expect(u.runs.get('r1')).toMatchObject({ input: 120, output: 40 });
    expect(u.runs.get('r1')!.cost).toBeUndefined();
    // r2's usage event is the count; its run end's own numbers are the same tokens again
    expect(u.runs.get('r2')).toMatchObject({ input: 7, output: 3 });
    expect(u.total).toMatchObject({ input: 127, output: 43 });
    // a session.ended count stands only when nothing else was seen
    const ended = ev('session.ended', 5, { data: { usage: { 'gen_ai.usage.input_tokens': 5, 'gen_ai.usage.output_tokens': 1 } } });
    expect(usageOf(sessionOf([ended])).total).toMatchObject({ input: 5, output: 1 });
  });
});

describe('OTel companion join', () => {
  const req = (seq: number, call: string, run = 'r1') =>
    ev('tool.requested', seq, { run, data: { tool: { name: 'Bash', call_id: call }, args: { command: 'ls /x' } } });
  const done = (seq: number, call: string) => ev('tool.completed', seq, { run: 'r1', data: { tool: { name: 'Bash', call_id: call } } });
  const result = (seq: number, call: string, extra: Record<string, unknown> = {}) =>
    ev('x.codex.otel.tool_result', seq, {
      source: OTEL,
      // the record's own attributes, values as OTLP carries them (the AEP pins)
      data: { tool_name: 'exec_command', call_id: call, success: 'true', exit_code: 2, duration_ms: '1244', ...extra },
    });
  const decision = (seq: number, call: string, d: string, src: string) =>
    ev('x.codex.otel.tool_decision', seq, { source: OTEL, data: { tool_name: 'exec_command', call_id: call, decision: d, source: src } });

  it("puts the OTel result and decision on the hook channel's tool row by call id, before or after the row", () => {
    const early = decision(1, 'call_a', 'approved', 'user');
    const tl = buildTimeline([early, req(2, 'call_a'), done(3, 'call_a'), result(4, 'call_a')]);
    const tools = tl.rows.filter((r) => r.kind === 'tool') as ToolRow[];
    expect(tools).toHaveLength(1);
    expect(tl.rows.map((r) => r.ev.type)).toEqual(['tool.requested']);
    expect(otelText(tools[0].otel)).toEqual(['approved by user (OTel)', 'exit 2 · 1.2 s (OTel)']);
    expect(tl.rowOf.get(early.id)).toBe(tools[0].id);
  });

  it('says a config deny, and leaves a record with no matching row, or of the same emitter, as its own row', () => {
    const tl = buildTimeline([req(1, 'call_b'), decision(2, 'call_b', 'denied', 'config'), result(3, 'call_zzz', { exit_code: undefined, duration_ms: 244 })]);
    const tool = tl.rows[0] as ToolRow;
    expect(otelText(tool.otel)).toEqual(['denied by config (OTel)']);
    expect(tl.rows.map((r) => r.ev.type)).toEqual(['tool.requested', 'x.codex.otel.tool_result']);
    // no guess by name or time: only the call id joins
    expect(tool.otel?.result).toBeUndefined();
    const same = buildTimeline([req(1, 'call_c'), { ...result(2, 'call_c'), source: HOOKS }]);
    expect(same.rows).toHaveLength(2);
  });

  it('reads the values as OTLP carries them: success "false" is unsuccessful, a duration is a number or a string of digits, anything else none', () => {
    const tl = buildTimeline([req(1, 'call_e'), result(2, 'call_e', { exit_code: undefined, success: 'false', duration_ms: '87' })]);
    expect(otelText((tl.rows[0] as ToolRow).otel)).toEqual(['unsuccessful · 87 ms (OTel)']);
    expect(otelText((buildTimeline([req(1, 'call_n'), result(2, 'call_n', { duration_ms: 1244 })]).rows[0] as ToolRow).otel)).toEqual([
      'exit 2 · 1.2 s (OTel)',
    ]);
    for (const bad of ['12ms', '', '-5', '1e9', ' 12', null, {}, ['1']]) {
      const t = buildTimeline([req(1, 'call_f'), result(2, 'call_f', { exit_code: undefined, duration_ms: bad })]);
      expect(otelText((t.rows[0] as ToolRow).otel), JSON.stringify(bad)).toEqual([]);
    }
  });

  it('joins only by the call id the record carries (call_id): not a nested tool object, not a non-string or empty id', () => {
    for (const data of [{ tool: { name: 'exec_command', call_id: 'call_g' } }, { call_id: 7 }, { call_id: '' }, { call_id: ['call_g'] }]) {
      const rec = ev('x.codex.otel.tool_result', 2, { source: OTEL, data: { success: 'true', duration_ms: '5', ...data } });
      const tl = buildTimeline([req(1, 'call_g'), rec]);
      expect(tl.rows, JSON.stringify(data)).toHaveLength(2);
      expect((tl.rows[0] as ToolRow).otel, JSON.stringify(data)).toBeUndefined();
    }
  });

  it('joins nothing when two rows of the session hold the call id', () => {
    const tl = buildTimeline([req(1, 'call_d', 'r1'), req(2, 'call_d', 'r2'), result(3, 'call_d')]);
    expect(tl.rows).toHaveLength(3);
    expect(tl.rows.every((r) => r.kind !== 'tool' || !(r as ToolRow).otel)).toBe(true);
  });
});
