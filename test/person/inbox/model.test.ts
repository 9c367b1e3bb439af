// The inbox's client model, in Node: the store's ordering and (source, id)
// dedupe across subscriptions and resumes, session states, the attention
// lifecycle and what a card says at each step (never ahead of the stream),
// form answers checked like the daemon checks them, and timeline rows.
import { describe, expect, it } from 'vitest';
import { newId, type Ev } from '../../../web/src/model/aep.ts';
import { checkForm, emptyInput, OTHER } from '../../../web/src/model/forms.ts';
import { outcomeOf, TIMED_OUT } from '../../../web/src/model/outcome.ts';
import { Store } from '../../../web/src/model/store.ts';
import { callOutcome, NO_OUTCOME, NOT_ANSWERED, runStatus } from '../../../web/src/model/calls.ts';
import { sessionLabel, shortId } from '../../../web/src/model/label.ts';
import { missedText, parseMissed, showMissed } from '../../../web/src/model/missed.ts';
import { buildTimeline, formatDuration, isQuiet, toolDetail, type RunRow, type ToolRow } from '../../../web/src/model/timeline.ts';

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

  it('a session stopped on a limit is paused until its next run (the fold, kernel/limits.ts), with its reset time', () => {
    const st = new Store();
    const until = new Date(T0 + 3_600_000).toISOString();
    st.applyBatch([{ ev: ev('run.started', 1, { run: 'r1' }) }, { ev: ev('run.failed', 2, { run: 'r1', data: { reason: 'rate_limit' } }) }], T0);
    st.applyBatch([{ ev: ev('x.hookmap.limit.reached', 3, { run: 'r1', data: { kind: 'rate_limit', hook: 'StopFailure', resets_at: until } }) }], T0);
    const s = st.sessions.get('s1')!;
    expect(st.stateOf(s, T0 + 5_000)).toBe('paused');
    expect(st.pauseOf(s)).toEqual({ kind: 'rate_limit', until, since: new Date(T0 + 3000).toISOString() });
    st.applyBatch([{ ev: ev('run.started', 4, { run: 'r2' }) }], T0);
    expect(st.stateOf(s, T0 + 5_000)).toBe('running');
    expect(st.pauseOf(s)).toBeUndefined();
    // no reset time said: paused all the same; a session's end outranks it
    st.applyBatch(
      [{ ev: ev('run.failed', 5, { run: 'r2' }) }, { ev: ev('x.hookmap.limit.reached', 6, { data: { kind: 'usage_limit', hook: 'StopFailure' } }) }],
      T0,
    );
    expect(st.stateOf(s, T0 + 5_000)).toBe('paused');
    expect(st.pauseOf(s)).toEqual({ kind: 'usage_limit', since: new Date(T0 + 6000).toISOString() });
    st.applyBatch([{ ev: ev('session.ended', 7) }], T0);
    expect(st.stateOf(s, T0 + 5_000)).toBe('ended');
  });

  it('an agent that retries by itself is paused inside its run until its next event or its retry time', () => {
    const st = new Store();
    const next = new Date(T0 + 90_000).toISOString();
    const sign = { kind: 'rate_limit', hook: 'session.status', agent_retries: true, resets_at: next };
    st.applyBatch([{ ev: ev('run.started', 1, { run: 'r1' }) }, { ev: ev('progress.status', 2, { run: 'r1', subject: 'retry' }) }], T0);
    st.applyBatch([{ ev: ev('x.hookmap.limit.reached', 3, { run: 'r1', data: sign }) }], T0);
    const s = st.sessions.get('s1')!;
    expect(st.stateOf(s, T0 + 5_000)).toBe('paused'); // its run is open, but waits
    expect(st.pauseOf(s, T0 + 5_000)).toEqual({ kind: 'rate_limit', until: next, since: new Date(T0 + 3000).toISOString(), agentRetries: true });
    st.applyBatch([{ ev: ev('x.hookmap.budget.warned', 4, { run: 'r1' }) }], T0); // hookmap's own word is not the agent going on
    expect(st.stateOf(s, T0 + 5_000)).toBe('paused');
    expect(st.stateOf(s, T0 + 90_000)).toBe('running'); // from its retry time on, it is at work again
    expect(st.pauseOf(s, T0 + 90_000)).toBeUndefined();
    st.applyBatch([{ ev: ev('progress.status', 5, { run: 'r1', subject: 'busy' }) }], T0);
    expect(st.stateOf(s, T0 + 5_000)).toBe('running');
    expect(st.pauseOf(s, T0 + 5_000)).toBeUndefined();
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
    const req = ev('attention.requested', 1, {
      data: {
        kind: 'permission',
        options: [
          { id: 'allow', label: 'Allow' },
          { id: 'deny', label: 'Deny' },
        ],
        expires_at: new Date(T0 + 55_000).toISOString(),
      },
    });
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
    const req = ev('attention.requested', 1, {
      data: {
        kind: 'permission',
        options: [
          { id: 'allow', label: 'Allow' },
          { id: 'deny', label: 'Deny' },
        ],
      },
    });
    st.applyBatch([{ ev: req }], T0);
    const mine = ev('control.attention.respond', undefined, { id: 'mine', subject: req.id, data: { answer: { option: 'deny' } } });
    st.sent(mine, T0);
    const theirs = ev('control.attention.respond', undefined, { id: 'theirs', subject: req.id, agent: 'phone', data: { answer: { option: 'allow' } } });
    st.applyBatch([{ ev: theirs }], T0);
    st.applyBatch(
      [
        { ev: ev('control.accepted', 2, { cause: 'theirs' }) },
        { ev: ev('attention.answered', 3, { subject: req.id, cause: 'theirs', data: { answer: { option: 'allow' }, via: 'control', by: 'bob' } }) },
        { ev: ev('attention.resolved', 4, { subject: req.id, data: { resolution: 'answered' } }) },
        { ev: ev('control.rejected', 5, { cause: 'mine', data: { reason: 'invalid', detail: 'already answered' } }) },
      ],
      T0,
    );
    expect(outcomeOf(st, st.attn.get(req.id)!, T0).text).toBe('Answered by bob: Allow. Resolved. Your answer came second and was not applied.');
  });

  it('the relay’s refusal and a silent target are the command’s outcome; a timeout terminal wins over everything', () => {
    const st = new Store();
    const req = ev('attention.requested', 1, { data: { kind: 'permission' } });
    st.applyBatch([{ ev: req }], T0);
    const cmd = ev('control.attention.respond', undefined, { id: 'c1', subject: req.id, data: { answer: { option: 'allow' } } });
    st.sent(cmd, T0);
    st.refused('c1', 'no-route', "no live connection claims session 's1'");
    expect(outcomeOf(st, st.attn.get(req.id)!, T0)).toMatchObject({
      phase: 'refused',
      settled: false,
      text: "Not delivered (no-route): no live connection claims session 's1'",
    });
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
    {
      id: 'env',
      type: 'select',
      label: 'Environment',
      required: true,
      choices: [
        { id: 'staging', label: 'Staging' },
        { id: 'prod', label: 'Production' },
      ],
    },
    { id: 'n', type: 'number', label: 'Replicas', min: 1, max: 5 },
    { id: 'why', type: 'string', label: 'Why' },
    { id: 'ok', type: 'boolean', label: 'Proceed', required: true },
    { id: 'tags', type: 'select', label: 'Tags', multi: true, other: true, choices: [{ id: 'a', label: 'A' }] },
  ];

  it('says what is wrong per field before anything is sent', () => {
    const r = checkForm(fields, { n: { ...emptyInput(), text: 'three' }, tags: { ...emptyInput(), chosen: [OTHER] } });
    expect(Object.fromEntries(r.errors)).toEqual({
      n: 'Enter a number.',
      tags: 'Write your answer, or pick one of the choices.',
      env: 'Choose one.',
      ok: 'Answer yes or no.',
    });
    expect(
      Object.fromEntries(
        checkForm(fields, { env: { ...emptyInput(), chosen: ['staging'] }, ok: { ...emptyInput(), flag: 'no' }, n: { ...emptyInput(), text: '9' } }).errors,
      ),
    ).toEqual({ n: 'Enter a number from 1 to 5.' });
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
    // the run is one row: its end is folded into its start
    expect(tl.rows.map((r) => r.kind)).toEqual(['run', 'tool', 'attention']);
    expect(tl.rows[0]).toMatchObject({ kind: 'run', end: fin });
    expect(tl.rowOf.get(fin.id)).toBe(start.id);
    expect(tl.rows[1]).toMatchObject({ kind: 'tool', end: done });
    expect(tl.rowOf.get(ans.id)).toBe(att.id);
    expect(toolDetail(req)).toBe('ls -la');
    expect(toolDetail(ev('tool.requested', 1, { data: { tool: { name: 'Read' }, args_digest: 'ab' } }))).toBeUndefined();
  });
});

describe('what became of a tool call (the permission joined in; views only)', () => {
  const tool = (seq: number, call: string, extra: Partial<Ev> = {}) =>
    ev('tool.requested', seq, { run: 'r1', subject: 'Bash', data: { tool: { name: 'Bash', call_id: call } }, ...extra });
  const ask = (seq: number, extra: Partial<Ev> = {}) =>
    ev('attention.requested', seq, { run: 'r1', subject: 'Bash', data: { kind: 'permission', prompt: 'Permission requested: Bash' }, ...extra });
  const toolRow = (events: Ev[], id: string) => buildTimeline(events).rows.find((r) => r.id === id) as ToolRow;
  const start = () => ev('run.started', 1, { run: 'r1' });
  const fin = (seq: number) => ev('run.finished', seq, { run: 'r1' });
  const answered = (seq: number, a: Ev, answer: object, extra: object = {}) =>
    ev('attention.answered', seq, { subject: a.id, data: { answer, via: 'control', by: 'alex', ...extra } });

  const cases: { name: string; events: () => [Ev[], string]; want: { status: string; text?: string } }[] = [
    {
      name: 'denied with guidance text: no post-tool event ever comes',
      events: () => {
        const [s0, t, a] = [start(), tool(2, 'c1'), ask(3)];
        return [
          [
            s0,
            t,
            a,
            answered(4, a, { option: 'deny', text: 'use make clean' }),
            ev('attention.resolved', 5, { subject: a.id, data: { resolution: 'answered' } }),
            fin(6),
          ],
          t.id,
        ];
      },
      want: { status: 'denied', text: 'denied by alex: “use make clean”' },
    },
    {
      name: 'a text answer alone is a deny the agent reads',
      events: () => {
        const [s0, t, a] = [start(), tool(2, 'c1'), ask(3)];
        return [[s0, t, a, answered(4, a, { text: 'not now' })], t.id];
      },
      want: { status: 'denied', text: 'denied by alex: “not now”' },
    },
    {
      name: 'a plain deny, run still open',
      events: () => {
        const [s0, t, a] = [start(), tool(2, 'c1'), ask(3)];
        return [[s0, t, a, answered(4, a, { option: 'deny' })], t.id];
      },
      want: { status: 'denied', text: 'denied by alex' },
    },
    {
      name: 'timed out: the agent decided',
      events: () => {
        const [s0, t, a] = [start(), tool(2, 'c1'), ask(3)];
        return [[s0, t, a, ev('attention.timeout', 4, { subject: a.id, cause: a.id }), fin(5)], t.id];
      },
      want: { status: 'timed out', text: NOT_ANSWERED },
    },
    {
      name: 'no terminal event by run end',
      events: () => {
        const t = tool(2, 'c1');
        return [[start(), t, fin(3)], t.id];
      },
      want: { status: 'unknown', text: NO_OUTCOME },
    },
    {
      name: 'no terminal event by session end (no run end either)',
      events: () => {
        const t = tool(2, 'c1');
        return [[start(), t, ev('session.ended', 3)], t.id];
      },
      want: { status: 'unknown', text: NO_OUTCOME },
    },
    {
      name: 'allowed, then nothing by run end',
      events: () => {
        const [s0, t, a] = [start(), tool(2, 'c1'), ask(3)];
        return [[s0, t, a, answered(4, a, { option: 'allow' }), fin(5)], t.id];
      },
      want: { status: 'unknown', text: `allowed by alex; ${NO_OUTCOME}` },
    },
    {
      name: 'waiting for its permission while the run goes on',
      events: () => {
        const t = tool(2, 'c1');
        return [[start(), t, ask(3)], t.id];
      },
      want: { status: 'waiting', text: 'waiting for an answer to its permission request' },
    },
    {
      name: 'running while its run is',
      events: () => {
        const t = tool(2, 'c1');
        return [[start(), t], t.id];
      },
      want: { status: 'running' },
    },
    {
      name: 'its own terminal event wins over the permission (allowed in the agent, then completed)',
      events: () => {
        const [s0, t, a] = [start(), tool(2, 'c1'), ask(3)];
        return [
          [
            s0,
            t,
            a,
            ev('attention.timeout', 4, { subject: a.id }),
            ev('tool.completed', 5, { run: 'r1', data: { tool: { name: 'Bash', call_id: 'c1' } } }),
            fin(6),
          ],
          t.id,
        ];
      },
      want: { status: 'done' },
    },
    {
      name: 'a policy denial names the policy',
      events: () => {
        const t = tool(2, 'c1');
        return [[start(), t, ev('tool.denied', 3, { run: 'r1', data: { tool: { name: 'Bash', call_id: 'c1' }, by: 'policy' } })], t.id];
      },
      want: { status: 'denied', text: 'denied by policy' },
    },
    {
      name: "answered in the agent's own dialog",
      events: () => {
        const [s0, t, a] = [start(), tool(2, 'c1'), ask(3)];
        return [[s0, t, a, answered(4, a, { option: 'deny' }, { via: 'oob', by: undefined })], t.id];
      },
      want: { status: 'denied', text: "denied in the agent's own dialog" },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const [events, id] = c.events();
      const o = callOutcome(toolRow(events, id));
      expect(o.status).toBe(c.want.status);
      expect(o.text).toBe(c.want.text);
    });
  }

  it('joins the permission to the newest open call of that tool in its run, else by its cause', () => {
    const s0 = start();
    const read = ev('tool.requested', 2, { run: 'r1', subject: 'Read', data: { tool: { name: 'Read', call_id: 'c0' } } });
    const older = tool(3, 'c1');
    const newer = tool(4, 'c2');
    const a = ask(5);
    const other = ev('tool.requested', 6, { run: 'r2', subject: 'Bash', data: { tool: { name: 'Bash', call_id: 'c3' } } });
    const b = ask(7, { run: 'r2' });
    const c = ask(8, { cause: older.id });
    const rows = buildTimeline([s0, read, older, newer, a, other, b, c]).rows as ToolRow[];
    const of = (t: Ev) => rows.find((r) => r.id === t.id)!.permission?.req.id;
    expect(of(newer)).toBe(a.id);
    expect(of(other)).toBe(b.id);
    expect(of(older)).toBe(c.id);
    expect(of(read)).toBeUndefined();
  });

  it('a run is never running once the session ended', () => {
    const r = start();
    expect(runStatus(buildTimeline([r]).rows[0] as RunRow)).toBe('running');
    expect(runStatus(buildTimeline([r, ev('session.ended', 2)]).rows[0] as RunRow)).toBe('ended');
    expect(runStatus(buildTimeline([r, ev('run.cancelled', 2, { run: 'r1' })]).rows[0] as RunRow)).toBe('cancelled');
  });
});

describe('timeline noise and words', () => {
  it("vendor x.* rows are quiet unless they carry a steer's fate or an error", () => {
    const rows: [string, boolean][] = [
      ['x.agent-x.tool.batch', true],
      ['x.agent-x.session.setup', true],
      ['x.agent-x.instruction.delivered', false],
      ['x.agent-x.instruction.dropped', false],
      ['x.agent-x.session.error', false],
      ['progress.status', false],
    ];
    for (const [type, quiet] of rows) expect(isQuiet(type), type).toBe(quiet);
    const tl = buildTimeline([ev('x.agent-x.tool.batch', 1), ev('progress.status', 2)]);
    expect(tl.rows.map((r) => r.kind === 'event' && !!r.quiet)).toEqual([true, false]);
  });

  it('durations read as a person says them (no "0 s")', () => {
    const rows: [number, string][] = [
      [420, '420 ms'],
      [42_000, '42 s'],
      [60_000, '1 min'],
      [65_000, '1 min 5 s'],
      [3600_000, '1 h'],
      [3900_000, '1 h 5 min'],
      [49 * 3600_000, '2 d 1 h'],
      [48 * 3600_000, '2 d'],
    ];
    for (const [ms, want] of rows) expect(formatDuration(ms)).toBe(want);
  });
});

describe('session labels', () => {
  it('the project from hookmapproject, else the folder of cwd, else the id; a short id beside a project', () => {
    const st = new Store();
    st.applyBatch(
      [
        { ev: { ...ev('session.started', 0, { data: { cwd: '/home/dev/shop-api' } }, 'aaaa1111-bbbb'), hookmapproject: 'shop' } as Ev },
        { ev: ev('session.started', 0, { data: { cwd: '/home/dev/billing/' } }, 'cccc2222-dddd') },
        { ev: ev('session.started', 0, {}, 'eeee3333-ffff') },
      ],
      T0,
    );
    expect(sessionLabel(st.sessions.get('aaaa1111-bbbb')!)).toEqual({ project: 'shop', from: '/home/dev/shop-api', short: 'aaaa1111' });
    expect(sessionLabel(st.sessions.get('cccc2222-dddd')!)).toEqual({ project: 'billing', from: '/home/dev/billing/', short: 'cccc2222' });
    expect(sessionLabel(st.sessions.get('eeee3333-ffff')!)).toEqual({ short: 'eeee3333' });
    expect(shortId('cc-2b91')).toBe('cc-2b91');
  });
});

describe('hooks that failed open (GET /inbox/api/failed-open)', () => {
  const body = {
    count: 6,
    first: '2026-11-30T09:02:00.000Z',
    last: '2026-11-30T09:40:00.000Z',
    agents: [{ agent: 'claude-code', count: 6, last: '2026-11-30T09:40:00.000Z', why: { down: 6 } }],
  };
  const clock = (iso: string) => iso.slice(11, 16);

  it('says how many, of which agent, when and why', () => {
    expect(missedText(parseMissed(body)!, clock)).toBe(
      '6 hooks of claude-code got no answer from hookmap between 09:02 and 09:40 (hookmap was not running): their events were not recorded',
    );
    const two = parseMissed({ ...body, count: 8, agents: [...body.agents, { agent: 'codex', count: 2, last: body.last, why: { down: 1, timeout: 1 } }] })!;
    expect(missedText(two, clock)).toBe(
      '6 hooks of claude-code and 2 of codex got no answer from hookmap between 09:02 and 09:40 ' +
        '(7: hookmap was not running; 1: hookmap did not answer in time): their events were not ' +
        'recorded',
    );
    const one = parseMissed({ count: 1, first: body.last, last: body.last, agents: [{ agent: 'codex', count: 1, last: body.last, why: { error: 1 } }] })!;
    expect(missedText(one, clock)).toBe('1 hook of codex got no answer from hookmap at 09:40 (hookmap answered with an error): its events were not recorded');
  });

  it('shows when something was missed and not dismissed; a newer last shows it again', () => {
    const m = parseMissed(body);
    expect(showMissed(m, null)).toBe(true);
    expect(showMissed(m, body.last)).toBe(false);
    expect(showMissed(m, '2026-11-30T09:30:00.000Z')).toBe(true);
    expect(showMissed(parseMissed({ count: 0, first: null, last: null, agents: [] }), null)).toBe(false);
    expect(showMissed(parseMissed('nonsense'), null)).toBe(false);
    expect(showMissed(undefined, null)).toBe(false);
  });
});
