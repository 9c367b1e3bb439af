// The acceptance test of issue 39's "one fold": one stream, five stories the
// views used to tell apart, told the same by every view. An ACP call answered
// "never" with no tool outcome; an ACP call whose request timed out; a Claude
// Code call denied by its permission answer with no `tool.denied` (the bridge
// fixture's events); a call allowed in the agent's own dialog with no outcome;
// a resumed session (`s-cc-7~2`) with a completed call and a request still
// pending at its end. The kernel fold reads each call's and request's fate; the
// inbox model, `hookmap timeline` (tree and --json), `tail`, the OTLP trace
// projection and `hookmap validate` must say the same.
import { describe, expect, it } from 'vitest';
import { TraceProjector } from '../../../engine/person/bridge/projection/otlp-traces.ts';
import { renderTree, sessionNodes } from '../../../engine/person/bridge/timeline.ts';
import { tailText } from '../../../engine/cli/commands/tail.ts';
import { answerOf, callFate, requestFate, StoryFold, type CallFate, type RequestFate } from '../../../engine/core/kernel/fold/index.ts';
import type { AepEvent } from '../../../engine/core/kernel/event.ts';
import { validateStream } from '../../../engine/core/validate/index.ts';
import type { Ev } from '../../../web/src/model/aep.ts';
import { callOutcome, type CallStatus } from '../../../web/src/model/calls.ts';
import { isWaiting } from '../../../web/src/model/attention.ts';
import { outcomeOf } from '../../../web/src/model/outcome.ts';
import { Store } from '../../../web/src/model/store.ts';
import { buildTimeline, type ToolRow } from '../../../web/src/model/timeline.ts';
import { fixtureEvent } from '../../person/bridge/fixtures.ts';

let ids = 0;

/** A valid AEP event of `session` (by `agent`); its position and time are given when the stream is put together. */
function ev(agent: string, session: string, type: string, extra: Record<string, unknown> = {}): AepEvent {
  const id = `01JZSAME${String(++ids).padStart(18, '0')}`;
  return { aep: '0.1', id, type, time: '', source: `aep://devbox/agent/${agent}/session/${session}`, agent, session, epoch: 0, ...extra } as AepEvent;
}

/** A bridge fixture event (its ids and payload kept), re-sequenced into this stream. */
const fixture = (name: string): AepEvent => fixtureEvent(name, { epoch: 0 });

/** The stream in order: each session's seq from 0, one second apart. */
function sequence(events: AepEvent[]): AepEvent[] {
  const seqs = new Map<string, number>();
  let clock = Date.parse('2026-11-30T09:00:00.000Z');
  for (const e of events) {
    e.seq = seqs.get(e.session!) ?? 0;
    seqs.set(e.session!, e.seq + 1);
    e.time = new Date((clock += 1000)).toISOString();
  }
  return events;
}

const OPTIONS = [
  { id: 'allow', label: 'Allow' },
  { id: 'always', label: 'Always allow' },
  { id: 'deny', label: 'Deny' },
  { id: 'never', label: 'Never' },
];

// an ACP session: one call answered "never", one whose request timed out; neither reports an outcome
const acp = (type: string, extra: Record<string, unknown> = {}) => ev('acp', 's-acp-1', type, extra);
const acpCall7 = acp('tool.requested', { run: 'r1', subject: 'call-7', data: { tool: { name: 'execute', call_id: 'call-7' } } });
const acpAsk7 = acp('attention.requested', { run: 'r1', subject: 'call-7', data: { kind: 'permission', prompt: 'Run ls?', options: OPTIONS } });
const acpCall8 = acp('tool.requested', { run: 'r1', subject: 'call-8', data: { tool: { name: 'execute', call_id: 'call-8' } } });
const acpAsk8 = acp('attention.requested', { run: 'r1', subject: 'call-8', data: { kind: 'permission', prompt: 'Run rm?', options: OPTIONS } });
const ACP = [
  acp('session.started', { data: {} }),
  acp('run.started', { run: 'r1', data: {} }),
  acpCall7,
  acpAsk7,
  acp('attention.answered', { subject: acpAsk7.id, data: { answer: { option: 'never' }, by: 'alex', via: 'control' } }),
  acp('attention.resolved', { subject: acpAsk7.id, data: { resolution: 'answered' } }),
  acpCall8,
  acpAsk8,
  acp('attention.timeout', { subject: acpAsk8.id, data: { after_ms: 60000 } }),
  acp('run.finished', { run: 'r1', data: {} }),
];

// a Claude Code session (the bridge fixture): Bash denied by its permission answer, no tool.denied;
// Read allowed in the agent's own dialog, no outcome reported; then the session ends
const cc = (type: string, extra: Record<string, unknown> = {}) => ev('claude-code', 's-cc-7', type, extra);
const ccBash = fixture('tool.requested');
const ccAsk = fixture('attention.requested');
const ccRead = fixture('tool.requested.read');
const ccAskRead = cc('attention.requested', { run: 'r1', subject: 'Read', cause: ccRead.id, data: { kind: 'permission', prompt: 'Read .env?' } });
const CC = [
  fixture('session.started'),
  fixture('run.started'),
  ccBash,
  ccAsk,
  fixture('attention.answered'),
  fixture('attention.resolved'),
  ccRead,
  ccAskRead,
  cc('attention.answered', { subject: ccAskRead.id, data: { answer: { option: 'allow' }, via: 'oob' } }),
  cc('attention.resolved', { subject: ccAskRead.id, data: { resolution: 'answered' } }),
  fixture('run.finished'),
  fixture('session.ended'),
];

// the same session resumed after its end: a completed call, and a request still pending when it ends
const cc2 = (type: string, extra: Record<string, unknown> = {}) => ev('claude-code', 's-cc-7~2', type, extra);
const resumedCall = cc2('tool.requested', { run: 'r2', subject: 'Edit', data: { tool: { name: 'Edit', call_id: 'toolu-9' } } });
const pendingCall = cc2('tool.requested', { run: 'r2', subject: 'Bash', data: { tool: { name: 'Bash', call_id: 'toolu-10' } } });
const pendingAsk = cc2('attention.requested', { run: 'r2', subject: 'Bash', cause: pendingCall.id, data: { kind: 'permission', prompt: 'Allow Bash?' } });
const RESUMED = [
  cc2('session.started', { data: { resumed_from: 's-cc-7' } }),
  cc2('run.started', { run: 'r2', data: {} }),
  resumedCall,
  cc2('tool.completed', { run: 'r2', subject: 'Edit', data: { tool: { name: 'Edit', call_id: 'toolu-9' } } }),
  pendingCall,
  pendingAsk,
  cc2('session.ended', { data: { reason: 'normal' } }),
];

const STREAM = sequence([...ACP, ...CC, ...RESUMED]);

/** The golden story: each call (by its request event) and each request, with its fate. */
const CALLS: [string, AepEvent, CallFate][] = [
  ['ACP call answered "never", no outcome', acpCall7, 'refused'],
  ['ACP call whose request timed out', acpCall8, 'timed-out'],
  ['call denied by its answer, no tool.denied', ccBash, 'refused'],
  ["call allowed in the agent's own dialog, no outcome", ccRead, 'unreported'],
  ['call of the resumed session, completed', resumedCall, 'completed'],
  ['call of the resumed session, its request pending at the end', pendingCall, 'unreported'],
];
const REQUESTS: [AepEvent, RequestFate][] = [
  [acpAsk7, 'refused'],
  [acpAsk8, 'timed-out'],
  [ccAsk, 'refused'],
  [ccAskRead, 'answered'],
  [pendingAsk, 'unanswered'],
];

/** How each view says a fate. */
const INBOX: Record<CallFate, CallStatus> = {
  running: 'running',
  waiting: 'waiting',
  completed: 'done',
  failed: 'failed',
  denied: 'denied',
  refused: 'denied',
  'timed-out': 'timed out',
  unreported: 'unknown',
};
const WORDS: Partial<Record<CallFate, RegExp>> = {
  refused: /denied/,
  'timed-out': /not answered; the agent decided/,
  unreported: /no outcome reported/,
  completed: /completed/,
};

const name = (e: AepEvent) => (e.data as { tool: { name: string; call_id?: string } }).tool;

describe('one stream, one story: every view tells the fold’s fates', () => {
  const fold = new StoryFold<AepEvent>().addAll(STREAM);

  it('the stream is valid AEP; validate flags only the request the fold says its session left unanswered', () => {
    const v = validateStream(STREAM);
    const unanswered = REQUESTS.filter(([, f]) => f === 'unanswered').map(([q]) => q.id);
    expect(v.map((x) => x.rule)).toEqual(unanswered.map(() => 'lifecycle/attention-dangling'));
    for (const id of unanswered) expect(v.some((x) => x.message.includes(id))).toBe(true);
  });

  it('the fold: each call and request has its fate; "never" is a refusal; the own-dialog answer is marked; the resumed session keeps its line', () => {
    for (const [what, call, fate] of CALLS) expect(callFate(fold.call(call, call.id)!), what).toBe(fate);
    for (const [q, fate] of REQUESTS) expect(requestFate(fold.request(q, q.id)!), q.id).toBe(fate);
    expect(answerOf(fold.request(acpAsk7, acpAsk7.id)!)).toMatchObject({ option: 'never', effect: 'never', refuses: true });
    expect(answerOf(fold.request(ccAskRead, ccAskRead.id)!)?.inAgentDialog).toBe(true);
    const resumed = fold.session(RESUMED[0])!;
    expect(resumed.predecessor).toBe('s-cc-7');
    expect(fold.line(resumed.lineage).map((s) => s.session)).toEqual(['s-cc-7', 's-cc-7~2']);
  });

  it('the inbox model says the same status for every call', () => {
    for (const [what, call, fate] of CALLS) {
      const rows = buildTimeline(STREAM.filter((e) => e.session === call.session) as Ev[]).rows;
      const o = callOutcome(rows.find((r) => r.id === call.id) as ToolRow);
      expect(o.status, what).toBe(INBOX[fate]);
      if (fate !== 'completed') expect(o.text, what).toMatch(WORDS[fate]!);
    }
    // the "never" answer is never shown as an allow
    const rows = buildTimeline(ACP as Ev[]).rows;
    expect(callOutcome(rows.find((r) => r.id === acpCall7.id) as ToolRow).text).toBe('denied by alex');
  });

  it("the inbox's live store says the same of every request card, and its sessions' states", () => {
    const store = new Store();
    const now = Date.parse('2026-11-30T09:05:00.000Z');
    store.applyBatch(
      STREAM.map((e) => ({ ev: e as Ev })),
      now,
    );
    const CARD: Record<string, (o: ReturnType<typeof outcomeOf>) => void> = {
      refused: (o) => expect([o.settled, o.tone]).toEqual([true, 'bad']),
      'timed-out': (o) => expect(o.phase).toBe('timeout'),
      answered: (o) => expect([o.settled, o.tone]).toEqual([true, 'good']),
      unanswered: (o) => expect([o.phase, o.text]).toEqual(['dismissed', 'The session ended before anyone answered']),
    };
    for (const [q, fate] of REQUESTS) {
      const a = store.attn.get(q.id)!;
      expect(isWaiting(a, now), q.id).toBe(false);
      CARD[fate](outcomeOf(store, a, now));
    }
    // the "never" answer is a refusal on the card too
    expect(outcomeOf(store, store.attn.get(acpAsk7.id)!, now).text).toMatch(/never/i);
    const state = (session: string) => store.stateOf(store.sessions.get(session)!, now);
    expect([state('s-acp-1'), state('s-cc-7'), state('s-cc-7~2')]).toEqual(['idle', 'ended', 'ended']);
  });

  it('`hookmap timeline` (the tree and --json) says the same', () => {
    for (const [what, call, fate] of CALLS) {
      const events = STREAM.filter((e) => e.session === call.session);
      const tool = name(call);
      const line = renderTree(events).find((l) => l.includes(`tool ${tool.name}${tool.call_id ? ` ${tool.call_id}` : ''} `));
      expect(line, what).toMatch(WORDS[fate]!);
      const node = sessionNodes(events).find((n) => n.kind === 'tool' && n.startId === call.id);
      expect(node?.fate, what).toBe(fate);
    }
    for (const [q, fate] of REQUESTS) {
      const node = sessionNodes(STREAM.filter((e) => e.session === q.session)).find((n) => n.kind === 'attention' && n.attrs.id === q.id);
      expect(node?.fate, q.id).toBe(fate);
    }
  });

  it('`tail` says the same of every call a run or session end left without its own outcome', () => {
    const text = tailText(STREAM);
    for (const [what, call, fate] of CALLS) {
      const tool = name(call);
      const line = text.split('\n').find((l) => l.includes(`↳ tool ${tool.name}${tool.call_id ? ` ${tool.call_id}` : ''}:`));
      if (fate === 'completed') expect(line, what).toBeUndefined();
      else expect(line, what).toMatch(WORDS[fate]!);
    }
    expect(text).toMatch(/attention\.answered .*never by alex/);
  });

  it('the OTLP trace projection says the same on its spans', () => {
    const p = new TraceProjector({ ceiling: 'full' });
    const spans = [...STREAM.flatMap((e) => p.add(e, 0)), ...p.closeAll()];
    const attrs = (id: string) => spans.find((s) => s.attributes['aep.event_id'] === id || s.attributes['aep.attention.id'] === id)?.attributes;
    for (const [what, call, fate] of CALLS) {
      const span = spans.find((s) => s.attributes['aep.tool.fate'] !== undefined && s.attributes['gen_ai.tool.call.id'] === name(call).call_id);
      expect(span?.attributes['aep.tool.fate'] ?? attrs(call.id)?.['aep.tool.fate'], what).toBe(fate);
    }
    for (const [q, fate] of REQUESTS) {
      const span = spans.find((s) => s.attributes['aep.attention.fate'] !== undefined && JSON.stringify(s.attributes).includes(q.id));
      expect(span?.attributes['aep.attention.fate'], q.id).toBe(fate);
    }
  });
});
