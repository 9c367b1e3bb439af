// The inbox's client model, in Node: the store's ordering and (source, id)
// dedupe across subscriptions and resumes, session states, the attention
// lifecycle and what a card says at each step (never ahead of the stream),
// form answers checked like the daemon checks them, and timeline rows.
import { describe, expect, it } from 'vitest';
import { newId, type Ev } from '../../web/src/model/aep.ts';
import { checkForm, emptyInput, OTHER } from '../../web/src/model/forms.ts';
import { outcomeOf, TIMED_OUT } from '../../web/src/model/outcome.ts';
import { Store } from '../../web/src/model/store.ts';
import { buildTimeline, toolDetail } from '../../web/src/model/timeline.ts';

const T0 = Date.parse('2026-11-30T10:00:00.000Z');
let n = 0;
function ev(type: string, seq: number | undefined, extra: Partial<Ev> = {}, session = 's1'): Ev {
  return {
    aep: '0.1',
    id: extra.id ?? `e${++n}`,
    type,
    time: new Date(T0 + (seq ?? 0) * 1000).toISOString(),
    source: 'aep://h/agent/x/session/s1',
    agent: 'agent-x',
    session,
    ...(seq === undefined ? {} : { seq, epoch: 0 }),
    ...extra,
  };
}

describe('store', () => {
  it('orders by (epoch, seq) whatever the arrival order, and drops a (source, id) seen before', () => {
    const st = new Store();
    const a = ev('session.started', 0, { data: { cwd: '/w/app' } });
    const b = ev('run.started', 1, { run: 'r1' });
    const c = ev('tool.requested', 2, { run: 'r1' });
    const d = ev('tool.requested', 0, { epoch: 1, run: 'r2' });
    st.applyBatch([{ ev: c }, { ev: a }, { ev: d }, { ev: b }, { ev: c, timeline: true }, { ev: { ...a } }], T0);
    const s = st.sessions.get('s1')!;
    expect(s.events.map((e) => e.id)).toEqual([a.id, b.id, c.id, d.id]);
    expect(s.cwd).toBe('/w/app');
    // the timeline position is the highest delivered by the timeline subscription only
    expect(s.timelinePos).toEqual({ epoch: 0, seq: 2 });
  });

  it('derives running / waiting / idle / ended, and lists newest activity first', () => {
    const st = new Store();
    st.applyBatch([{ ev: ev('run.started', 1, { run: 'r1' }) }], T0);
    const now = T0 + 5_000;
    expect(st.stateOf(st.sessions.get('s1')!, now)).toBe('running');
    const req = ev('attention.requested', 2, { data: { kind: 'permission', prompt: 'p', expires_at: new Date(T0 + 60_000).toISOString() } });
    st.applyBatch([{ ev: req }, { ev: ev('session.started', 0, {}, 's2') }], T0);
    expect(st.stateOf(st.sessions.get('s1')!, now)).toBe('waiting');
    expect(st.waiting(now).map((a) => a.id)).toEqual([req.id]);
    st.applyBatch([{ ev: ev('attention.timeout', 3, { subject: req.id, cause: req.id }) }, { ev: ev('run.finished', 4, { run: 'r1' }) }], T0);
    expect(st.stateOf(st.sessions.get('s1')!, now)).toBe('idle');
    expect(st.waiting(now)).toEqual([]);
    st.applyBatch([{ ev: ev('session.ended', 5) }], T0);
    expect(st.stateOf(st.sessions.get('s1')!, now)).toBe('ended');
    expect(st.sessionList().map((s) => s.id)).toEqual(['s1', 's2']);
  });

  it('a request far past its deadline with no outcome is stale, not waiting', () => {
    const st = new Store();
    const req = ev('attention.requested', 1, { data: { kind: 'permission', expires_at: new Date(T0 + 10_000).toISOString() } });
    st.applyBatch([{ ev: req }], T0);
    expect(st.waiting(T0 + 20_000)).toHaveLength(1);
    expect(st.waiting(T0 + 10_000 + 61_000)).toHaveLength(0);
    expect(outcomeOf(st, st.attn.get(req.id)!, T0 + 10_000 + 61_000).phase).toBe('stale');
  });

  it('a card follows the stream: sent, accepted, answered, resolved; never ahead of it', () => {
    const st = new Store();
    const req = ev('attention.requested', 1, { data: { kind: 'permission', options: [{ id: 'allow', label: 'Allow' }, { id: 'deny', label: 'Deny' }], expires_at: new Date(T0 + 55_000).toISOString() } });
    st.applyBatch([{ ev: req }], T0);
    const a = st.attn.get(req.id)!;
    expect(outcomeOf(st, a, T0)).toMatchObject({ phase: 'pending', settled: false });
    const cmd = ev('control.attention.respond', undefined, { id: newId(), subject: req.id, agent: 'hookmap-inbox', data: { answer: { option: 'allow' } } });
    st.sent(cmd, T0);
    expect(outcomeOf(st, a, T0)).toMatchObject({ phase: 'sending', settled: false });
    // the relay fans our own command out to us too: nothing changes
    st.applyBatch([{ ev: cmd }], T0);
    expect(outcomeOf(st, a, T0).phase).toBe('sending');
    st.applyBatch([{ ev: ev('control.accepted', 2, { cause: cmd.id }) }], T0);
    expect(outcomeOf(st, a, T0).phase).toBe('accepted');
    const ans = ev('attention.answered', 3, { subject: req.id, cause: cmd.id, data: { answer: { option: 'allow' }, via: 'control', by: 'alice' } });
    st.applyBatch([{ ev: ans }], T0);
    expect(outcomeOf(st, a, T0)).toMatchObject({ phase: 'answered', settled: true });
    st.applyBatch([{ ev: ev('attention.resolved', 4, { subject: req.id, cause: ans.id, data: { resolution: 'answered' } }) }], T0);
    expect(outcomeOf(st, a, T0)).toEqual({ phase: 'resolved', text: 'Answered by alice: Allow. Resolved.', settled: true, tone: 'good' });
    expect(st.recentlySettled(T0 + 1000).map((x) => x.id)).toEqual([req.id]);
  });

  it('two people: the one whose answer lost is told so, and who answered', () => {
    const st = new Store();
    const req = ev('attention.requested', 1, { data: { kind: 'permission', options: [{ id: 'allow', label: 'Allow' }, { id: 'deny', label: 'Deny' }] } });
    st.applyBatch([{ ev: req }], T0);
    const mine = ev('control.attention.respond', undefined, { id: 'mine', subject: req.id, data: { answer: { option: 'deny' } } });
    st.sent(mine, T0);
    const theirs = ev('control.attention.respond', undefined, { id: 'theirs', subject: req.id, agent: 'phone', data: { answer: { option: 'allow' } } });
    st.applyBatch([{ ev: theirs }], T0);
    st.applyBatch([
      { ev: ev('control.accepted', 2, { cause: 'theirs' }) },
      { ev: ev('attention.answered', 3, { subject: req.id, cause: 'theirs', data: { answer: { option: 'allow' }, via: 'control', by: 'bob' } }) },
      { ev: ev('attention.resolved', 4, { subject: req.id, data: { resolution: 'answered' } }) },
      { ev: ev('control.rejected', 5, { cause: 'mine', data: { reason: 'invalid', detail: 'already answered' } }) },
    ], T0);
    expect(outcomeOf(st, st.attn.get(req.id)!, T0).text).toBe('Answered by bob: Allow. Resolved. Your answer came second and was not applied.');
  });

  it('the relay’s refusal and a silent target are the command’s outcome; a timeout terminal wins over everything', () => {
    const st = new Store();
    const req = ev('attention.requested', 1, { data: { kind: 'permission' } });
    st.applyBatch([{ ev: req }], T0);
    const cmd = ev('control.attention.respond', undefined, { id: 'c1', subject: req.id, data: { answer: { option: 'allow' } } });
    st.sent(cmd, T0);
    st.refused('c1', 'no-route', "no live connection claims session 's1'");
    expect(outcomeOf(st, st.attn.get(req.id)!, T0)).toMatchObject({ phase: 'refused', settled: false, text: "Not delivered (no-route): no live connection claims session 's1'" });
    st.applyBatch([{ ev: ev('attention.timeout', 2, { subject: req.id, data: { after_ms: 55000 } }) }], T0);
    expect(outcomeOf(st, st.attn.get(req.id)!, T0)).toMatchObject({ phase: 'timeout', text: TIMED_OUT, settled: true });
  });

  it('respond_via without control makes a card informational (AEP-0008)', () => {
    const st = new Store();
    const req = ev('attention.requested', 1, { data: { kind: 'auth', respond_via: ['oob'] } });
    st.applyBatch([{ ev: req }], T0);
    expect(outcomeOf(st, st.attn.get(req.id)!, T0).phase).toBe('elsewhere');
  });
});

describe('forms (AEP-0006)', () => {
  const fields = [
    { id: 'env', type: 'select', label: 'Environment', required: true, choices: [{ id: 'staging', label: 'Staging' }, { id: 'prod', label: 'Production' }] },
    { id: 'n', type: 'number', label: 'Replicas', min: 1, max: 5 },
    { id: 'why', type: 'string', label: 'Why' },
    { id: 'ok', type: 'boolean', label: 'Proceed', required: true },
    { id: 'tags', type: 'select', label: 'Tags', multi: true, other: true, choices: [{ id: 'a', label: 'A' }] },
  ];

  it('says what is wrong per field before anything is sent', () => {
    const r = checkForm(fields, { n: { ...emptyInput(), text: 'three' }, tags: { ...emptyInput(), chosen: [OTHER] } });
    expect(Object.fromEntries(r.errors)).toEqual({ n: 'Enter a number.', tags: 'Write your answer, or pick one of the choices.', env: 'Choose one.', ok: 'Answer yes or no.' });
    expect(Object.fromEntries(checkForm(fields, { env: { ...emptyInput(), chosen: ['staging'] }, ok: { ...emptyInput(), flag: 'no' }, n: { ...emptyInput(), text: '9' } }).errors)).toEqual({ n: 'Enter a number from 1 to 5.' });
  });

  it('builds values exactly as the daemon expects them: ids, numbers, booleans, free text, arrays for multi', () => {
    const r = checkForm(fields, {
      env: { ...emptyInput(), chosen: ['prod'] },
      n: { ...emptyInput(), text: ' 3 ' },
      why: { ...emptyInput(), text: '  ' },
      ok: { ...emptyInput(), flag: 'yes' },
      tags: { ...emptyInput(), chosen: ['a', OTHER], other: 'urgent' },
    });
    expect(r.errors.size).toBe(0);
    expect(r.values).toEqual({ env: 'prod', n: 3, ok: true, tags: ['a', 'urgent'] });
  });
});

describe('timeline rows', () => {
  it('pairs a tool call with its end by call id, folds the attention lifecycle, and links causes', () => {
    const start = ev('run.started', 1, { run: 'r1' });
    const req = ev('tool.requested', 2, { run: 'r1', data: { tool: { name: 'Bash', call_id: 'c1' }, args_redacted: { command: 'ls -la' } } });
    const att = ev('attention.requested', 3, { run: 'r1', subject: 'Bash', data: { kind: 'permission' } });
    const ack = ev('control.accepted', 4, { cause: 'cmd-1' });
    const ans = ev('attention.answered', 5, { subject: att.id, cause: 'cmd-1' });
    const done = ev('tool.completed', 6, { run: 'r1', data: { tool: { name: 'Bash', call_id: 'c1' }, duration_ms: 12 } });
    const fin = ev('run.finished', 7, { run: 'r1', cause: start.id });
    const tl = buildTimeline([start, req, att, ack, ans, done, fin], new Set(['cmd-1']));
    expect(tl.rows.map((r) => r.kind)).toEqual(['run', 'tool', 'attention', 'run-end']);
    expect(tl.rows[1]).toMatchObject({ kind: 'tool', end: done });
    expect(tl.rows[3].causeRow).toBe(start.id);
    expect(tl.rowOf.get(ans.id)).toBe(att.id);
    expect(toolDetail(req)).toBe('ls -la');
    expect(toolDetail(ev('tool.requested', 1, { data: { tool: { name: 'Read' }, args_digest: 'ab' } }))).toBeUndefined();
  });
});
