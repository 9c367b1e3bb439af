// Continuing a session at its limit's reset (issue 44, docs/usage.md "Rate
// limits"): what ResumeAtReset decides from the stream. The start it calls is
// the launcher's (its real run is test/live/limits.live.ts: Claude Code
// continued by its own --resume after a 429); here a recorder stands in for
// it so the timing is the test's: the stated reset, `wait_ms` after the stop
// when none was said, a new run dropping the wait, an unknown project or a
// refused start audited as not continued, a reset past a day not waited for,
// and at most MAX_WAITS waits.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { INSTRUCT_OUTCOME_MS, MAX_RESUMES, MAX_WAITS, ResumeAtReset } from '../../../engine/person/launch/resume-at-reset.ts';
import { LaunchError } from '../../../engine/person/launch/argv.ts';
import type { LaunchRequest, LaunchRun, Who } from '../../../engine/person/launch/launcher.ts';

const T0 = Date.parse('2026-12-04T10:00:00.000Z');
let started: { r: LaunchRequest; who: Who }[];
let audits: Record<string, unknown>[];
let refuse: string | undefined;

let told: { agent: string; session: string; text: string }[];
let refuseInstruct: string | undefined;
const make = (o: { waitMs?: number; project?: string | null; instruct?: boolean } = {}) =>
  new ResumeAtReset({
    ...(o.instruct
      ? {
          instruct: (agent: string, session: string, text: string) => {
            if (refuseInstruct) return { ok: false as const, why: refuseInstruct };
            told.push({ agent, session, text });
            return { ok: true as const, id: `c${told.length}` };
          },
        }
      : {}),
    waitMs: o.waitMs ?? 60_000,
    prompt: 'go on',
    start: (r, who) => {
      if (refuse) throw new LaunchError('busy', refuse);
      started.push({ r, who });
      return { id: `l${started.length}` } as LaunchRun;
    },
    projectOf: () => (o.project === null ? undefined : (o.project ?? 'shop-api')),
    audit: (_type, data) => audits.push(data),
    say: () => {},
    now: () => Date.now(),
  });
const limit = (session: string, data: Record<string, unknown> = { kind: 'rate_limit', hook: 'StopFailure' }, agent = 'claude-code') => ({
  type: 'x.hookmap.limit.reached',
  agent,
  session,
  time: new Date(Date.now()).toISOString(),
  data,
});

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
  started = [];
  audits = [];
  refuse = undefined;
  told = [];
  refuseInstruct = undefined;
});
afterEach(() => vi.useRealTimers());

describe('continuing a session after its limit', () => {
  it("at the stated reset, by the agent's resume, as principal hookmap; audited with the launch", () => {
    const r = make();
    r.seen(limit('s1', { kind: 'usage_limit', hook: 'StopFailure', resets_at: new Date(T0 + 600_000).toISOString() }));
    vi.advanceTimersByTime(599_000);
    expect(started).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(started).toEqual([
      { r: { agent: 'claude-code', project: 'shop-api', prompt: 'go on', resume: 's1' }, who: { principal: 'hookmap', surface: 'after-limit' } },
    ]);
    expect(audits).toEqual([{ session: 's1', agent: 'claude-code', at: new Date(T0 + 600_000).toISOString(), ok: true, launch: 'l1' }]);
    expect(r.waiting).toBe(0);
  });

  it('no reset said: wait_ms after the stop; a new run in the session (its line) first drops the wait; a later limit waits again', () => {
    const r = make({ waitMs: 5_000 });
    r.seen(limit('s2'));
    vi.advanceTimersByTime(2_000);
    r.seen({ type: 'run.started', agent: 'claude-code', session: 's2~2', time: new Date().toISOString() }); // a person continued it
    vi.advanceTimersByTime(10_000);
    expect(started).toEqual([]);
    r.seen(limit('s2~2'));
    vi.advanceTimersByTime(5_000);
    expect(started.map((x) => x.r.resume)).toEqual(['s2~2']);
  });

  it('a session refused again and again is continued at most MAX_RESUMES times in a row; a finished run starts the count again', () => {
    const r = make({ waitMs: 1_000 });
    const again = () => {
      r.seen(limit('s7'));
      vi.advanceTimersByTime(1_000);
    };
    for (let i = 0; i < MAX_RESUMES + 2; i++) again();
    expect(started).toHaveLength(MAX_RESUMES);
    expect(audits.filter((a) => a.ok === false).map((a) => String(a.why))).toEqual([
      `stopped on its limit ${MAX_RESUMES} times in a row after being continued: not continued again`,
      `stopped on its limit ${MAX_RESUMES} times in a row after being continued: not continued again`,
    ]);
    r.seen({ type: 'run.finished', agent: 'claude-code', session: 's7~4', time: new Date().toISOString() });
    again();
    expect(started).toHaveLength(MAX_RESUMES + 1);
  });

  it('an unknown project, or a start the launcher refuses: audited as not continued', () => {
    make({ project: null }).seen(limit('s3'));
    vi.advanceTimersByTime(60_000);
    refuse = 'claude-code already runs 2 headless runs';
    make().seen(limit('s4'));
    vi.advanceTimersByTime(60_000);
    expect(started).toEqual([]);
    expect(audits.map((a) => [a.session, a.ok, String(a.why).slice(0, 30)])).toEqual([
      ['s3', false, 'its project is not known (no s'],
      ['s4', false, 'claude-code already runs 2 hea'],
    ]);
  });

  it('an agent that retries by itself is not continued: no wait, no launch, nothing audited', () => {
    const r = make({ waitMs: 1_000 });
    r.seen(limit('s9', { kind: 'rate_limit', hook: 'session.status', agent_retries: true, resets_at: new Date(T0 + 5_000).toISOString() }, 'opencode'));
    r.seen(limit('s10', { kind: 'rate_limit', hook: 'session.status', agent_retries: true }, 'opencode'));
    expect(r.waiting).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(started).toEqual([]);
    expect(audits).toEqual([]);
  });

  it("a reset more than a day out is not waited for; other agents' and other events are ignored; at most MAX_WAITS waits", () => {
    const r = make();
    r.seen(limit('s5', { kind: 'usage_limit', resets_at: new Date(T0 + 25 * 3600_000).toISOString() }));
    r.seen({ type: 'run.failed', agent: 'claude-code', session: 's6', time: new Date().toISOString() });
    expect(r.waiting).toBe(0);
    for (let i = 0; i < MAX_WAITS + 5; i++) r.seen(limit(`m${i}`));
    expect(r.waiting).toBe(MAX_WAITS);
    r.close();
    vi.advanceTimersByTime(120_000);
    expect(started).toEqual([]);
  });

  describe('a session still open (no end seen): the continue prompt as an instruction through the relay', () => {
    const outcome = (how: 'delivered' | 'dropped', cause: string, session = 'o1') => ({
      type: `x.claude-code.instruction.${how}`,
      agent: 'claude-code',
      session,
      cause,
      time: new Date(Date.now()).toISOString(),
      data: {},
    });

    it('sent at the reset; delivered: continued via instruct, no launch', () => {
      const r = make({ waitMs: 1_000, instruct: true });
      r.seen(limit('o1'));
      vi.advanceTimersByTime(1_000);
      expect(told).toEqual([{ agent: 'claude-code', session: 'o1', text: 'go on' }]);
      expect(audits).toEqual([]);
      r.seen(outcome('delivered', 'c1'));
      r.seen(outcome('delivered', 'c1')); // once
      expect(audits).toEqual([{ session: 'o1', agent: 'claude-code', at: new Date(T0 + 1_000).toISOString(), ok: true, via: 'instruct', command: 'c1' }]);
      expect(started).toEqual([]);
    });

    it('refused by the relay: audited as not continued, no launch (the session is open elsewhere)', () => {
      refuseInstruct = 'no-route: no emitter accepts x.claude-code.control.instruct';
      const r = make({ waitMs: 1_000, instruct: true });
      r.seen(limit('o2'));
      vi.advanceTimersByTime(1_000);
      expect(audits).toEqual([expect.objectContaining({ session: 'o2', ok: false, via: 'instruct', why: expect.stringContaining('no-route') })]);
      expect(started).toEqual([]);
    });

    it('dropped as the session ended: resumed by a launch instead; no outcome in time: said so', () => {
      const r = make({ waitMs: 1_000, instruct: true });
      r.seen(limit('o3'));
      r.seen(limit('o4'));
      vi.advanceTimersByTime(1_000);
      expect(told.map((t) => t.session)).toEqual(['o3', 'o4']);
      r.seen(outcome('dropped', 'c1', 'o3'));
      expect(started.map((x) => x.r.resume)).toEqual(['o3']);
      expect(audits).toEqual([expect.objectContaining({ session: 'o3', ok: true, launch: 'l1' })]);
      vi.advanceTimersByTime(INSTRUCT_OUTCOME_MS);
      expect(audits[1]).toMatchObject({ session: 'o4', ok: false, via: 'instruct', command: 'c2', why: expect.stringContaining('not delivered') });
      r.seen(outcome('delivered', 'c2', 'o4')); // too late: said once
      expect(audits).toHaveLength(2);
    });

    it('a session that ended is resumed by a launch; one that started again after its end is instructed', () => {
      const r = make({ waitMs: 1_000, instruct: true });
      r.seen(limit('o5'));
      r.seen({ type: 'session.ended', agent: 'claude-code', session: 'o5', time: new Date().toISOString() });
      vi.advanceTimersByTime(1_000);
      expect(started.map((x) => x.r.resume)).toEqual(['o5']);
      expect(told).toEqual([]);
      r.seen({ type: 'session.started', agent: 'claude-code', session: 'o5~2', time: new Date().toISOString() });
      r.seen(limit('o5~2'));
      vi.advanceTimersByTime(1_000);
      expect(told.map((t) => t.session)).toEqual(['o5~2']);
    });
  });
});
