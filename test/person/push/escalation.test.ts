// When a push goes out (engine/person/push/escalation.ts) and what it says
// (payload.ts): the delay, at once with nobody at the desk, quiet hours
// across midnight, the kinds (turn_finished opt-in), per-agent overrides,
// coded config errors; the title at each capture level; one padded size.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { delayFor, escalate, inQuietHours, parseQuietHours, pushConfigOf, PushConfigError } from '../../../engine/person/push/escalation.ts';
import { ladderKind, reaches, seenLine, stepsFor, SURFACES, waitOf, type LadderKind } from '../../../engine/person/push/ladder.ts';
import { CHANNEL_KINDS } from '../../../engine/person/channels/schema.ts';
import { ROOT } from '../../../engine/core/descriptor/registry.ts';
import { encodeMessage, PAD_SIZE, requestText } from '../../../engine/person/push/payload.ts';
import { alertKind } from '../../../engine/person/push/moments.ts';
import { limitAlert } from '../../../engine/person/push/moment-kinds.ts';
import { Presence, PRESENCE_TTL_MS } from '../../../engine/person/push/presence.ts';
import { ActionCredentials } from '../../../engine/person/push/credentials.ts';

const at = (hh: number, mm = 0) => new Date(2026, 11, 1, hh, mm);

describe('escalation', () => {
  it('pushes after delay_ms while someone looks, at once when nobody does', () => {
    expect(escalate({}, 'permission', 'codex', { now: at(12), inboxVisible: true })).toEqual({ push: true, afterMs: 10_000 });
    expect(escalate({ delayMs: 2500 }, 'permission', 'codex', { now: at(12), inboxVisible: true })).toEqual({ push: true, afterMs: 2500 });
    expect(escalate({ delayMs: 2500 }, 'permission', 'codex', { now: at(12), inboxVisible: false })).toEqual({ push: true, afterMs: 0 });
  });

  it('keeps quiet hours, also across midnight', () => {
    const q = parseQuietHours('22:00-07:00', 'push');
    expect([at(23), at(3), at(6, 59)].map((d) => inQuietHours(q, d))).toEqual([true, true, true]);
    expect([at(7), at(12), at(21, 59)].map((d) => inQuietHours(q, d))).toEqual([false, false, false]);
    expect(escalate({ quietHours: q }, 'permission', 'codex', { now: at(23), inboxVisible: false })).toEqual({ push: false, why: 'quiet hours' });
    expect(inQuietHours(parseQuietHours('12:00-13:30', 'push'), at(13, 15))).toBe(true);
  });

  it('pushes only the kinds asked for; turn_finished is opt-in; an agent may differ', () => {
    expect(escalate({}, 'turn_finished', 'codex', { now: at(12), inboxVisible: false }).push).toBe(false);
    expect(escalate({ kinds: ['turn_finished'] }, 'turn_finished', 'codex', { now: at(12), inboxVisible: false }).push).toBe(true);
    const c = pushConfigOf({ delay_ms: 5000, agents: { 'claude-code': { delay_ms: 0, kinds: ['permission'] } } });
    expect(escalate(c, 'permission', 'claude-code', { now: at(12), inboxVisible: true })).toEqual({ push: true, afterMs: 0 });
    expect(escalate(c, 'run_failed', 'claude-code', { now: at(12), inboxVisible: false }).push).toBe(false);
    expect(escalate(c, 'run_failed', 'codex', { now: at(12), inboxVisible: false }).push).toBe(true);
  });

  it('says what is wrong in a push: block, and where', () => {
    expect(() => pushConfigOf({ delay: 1 })).toThrow(/push: Unrecognized key: "delay"/);
    expect(() => pushConfigOf({ quiet_hours: '25:00-07:00' })).toThrow(PushConfigError);
    expect(() => pushConfigOf({ kinds: ['everything'] })).toThrow(/push\.kinds\[0\]: Invalid option: expected one of "permission"\|"question"/);
    expect(() => pushConfigOf({ agents: { codex: { delay_ms: -1 } } })).toThrow(/push\.agents\.codex\.delay_ms: Too small/);
    expect(() => pushConfigOf({ capture: 'none' })).toThrow(/push\.capture: Invalid option: expected one of "metadata"\|"redacted"\|"full"/);
  });

  it('names the alerts: run failed, idle, session ended on an error, turn finished', () => {
    expect(alertKind({ type: 'run.failed', data: {} } as any)).toBe('run_failed');
    expect(alertKind({ type: 'session.ended', data: { reason: 'error' } } as any)).toBe('session_error');
    expect(alertKind({ type: 'session.ended', data: { reason: 'normal' } } as any)).toBeUndefined();
    expect(alertKind({ type: 'progress.status', subject: 'idle_prompt', data: {} } as any)).toBe('idle');
    // a limit: the agent's stop, and hookmap's continuing it (on its own session, about the agent's)
    expect(alertKind({ type: 'x.hookmap.limit.reached', data: { kind: 'rate_limit' } } as any)).toBe('limit');
    expect(alertKind({ type: 'x.hookmap.limit.resumed', data: { ok: true } } as any)).toBe('limit');
    expect(alertKind({ type: 'x.hookmap.limit.resumed', data: { ok: false } } as any)).toBeUndefined();
    const at = new Date(2026, 11, 4, 15, 4).toISOString();
    expect(
      limitAlert({ type: 'x.hookmap.limit.reached', agent: 'claude-code', session: 's', time: at, data: { kind: 'rate_limit', resets_at: at } } as any),
    ).toEqual({
      agent: 'claude-code',
      session: 's',
      title: 'claude-code: rate limit: paused until 15:04',
    });
    expect(limitAlert({ type: 'x.hookmap.limit.reached', agent: 'qwen-code', session: 's', time: at, data: { kind: 'rate_limit' } } as any).title).toBe(
      'qwen-code: rate limit: paused (no reset time given)',
    );
    // an agent that retries by itself: news only when it waits a minute or more
    const retrying = (inMs: number | undefined) =>
      ({
        type: 'x.hookmap.limit.reached',
        agent: 'opencode',
        session: 's3',
        time: at,
        data: { kind: 'rate_limit', agent_retries: true, ...(inMs === undefined ? {} : { resets_at: new Date(Date.parse(at) + inMs).toISOString() }) },
      }) as any;
    expect(alertKind(retrying(3_000))).toBeUndefined();
    expect(alertKind(retrying(undefined))).toBeUndefined();
    expect(alertKind(retrying(10 * 60_000))).toBe('limit');
    expect(limitAlert(retrying(10 * 60_000)).title).toBe('opencode: rate limit: retrying by itself at 15:14');
    expect(
      limitAlert({ type: 'x.hookmap.limit.resumed', agent: 'hookmap', session: 'op', time: at, data: { agent: 'codex', session: 's2', ok: true } } as any),
    ).toEqual({
      agent: 'codex',
      session: 's2',
      title: 'codex: continued after its limit',
    });
    expect(alertKind({ type: 'run.finished', data: {} } as any)).toBe('turn_finished');
  });
});

describe('what a notification says', () => {
  const facts = {
    kind: 'permission' as const,
    agent: 'claude-code',
    tool: 'Bash',
    project: 'notes-app',
    text: 'curl -H "Authorization: Bearer sk-abc123" https://x',
  };
  const redact = (s: string) => s.replace(/sk-\w+/, '[REDACTED]');

  it('at metadata: agent, tool, project folder and kind; no command', () => {
    const t = requestText(facts, 'metadata', redact);
    expect(t).toEqual({ title: 'claude-code wants to run Bash in notes-app', body: 'Permission request' });
  });

  it('at redacted: the command, through redaction', () => {
    const t = requestText(facts, 'redacted', redact);
    expect(t.body).toBe('Permission request: curl -H "Authorization: Bearer [REDACTED]" https://x');
    expect(t.body).not.toContain('sk-abc123');
  });

  it('pads every message to one size, whatever its text', () => {
    const short = encodeMessage({ type: 'test', tag: 't', title: 'a', body: 'b', url: '/' });
    const long = encodeMessage({ type: 'request', tag: 't', title: 'a'.repeat(120), body: 'x'.repeat(5000), url: '/', credential: `hma_${'a'.repeat(43)}` });
    expect(short.length).toBe(PAD_SIZE);
    expect(long.length).toBe(PAD_SIZE);
    expect(JSON.parse(long.toString()).credential).toMatch(/^hma_/);
  });
});

describe('presence and credentials', () => {
  it('a visible tab counts until it stops saying so', () => {
    let now = 0;
    const p = new Presence(() => now);
    expect(p.visible).toBe(false);
    p.report('tab-aaaaaaaa', true);
    expect(p.visible).toBe(true);
    now += PRESENCE_TTL_MS + 1;
    expect(p.visible).toBe(false);
    p.report('tab-aaaaaaaa', true);
    p.report('tab-aaaaaaaa', false);
    expect(p.visible).toBe(false);
  });

  it('a credential answers once, expires with its request, and dies when the request settles', () => {
    let now = 1000;
    const c = new ActionCredentials(() => now);
    const a = c.issue({ request: 'r1', session: 's', device: 'd', expires: 5000 });
    const b = c.issue({ request: 'r2', session: 's', device: 'd', expires: 5000 });
    const e = c.issue({ request: 'r3', session: 's', device: 'd', expires: 2000 });
    expect(c.redeem(a)).toMatchObject({ ok: true, grant: { request: 'r1' } });
    expect(c.redeem(a)).toMatchObject({ ok: false, code: 'credential-used' });
    now = 3000;
    expect(c.redeem(e)).toMatchObject({ ok: false, code: 'credential-expired' });
    c.settle('r2');
    expect(c.redeem(b)).toMatchObject({ ok: false, code: 'unknown-credential' });
    expect(c.redeem('hmk_not-one')).toMatchObject({ ok: false, code: 'unknown-credential' });
  });
});

describe('the escalation ladder (docs/escalation.md)', () => {
  // the worked example, as the page shows it
  const page = readFileSync(join(ROOT, 'docs', 'escalation.md'), 'utf8');
  const example = parse(/```yaml\n([\s\S]*?)```/.exec(page)![1]);
  const c = pushConfigOf(example.push);
  const steps = (kind: LadderKind, agent: string, project?: string) => stepsFor(c.ladder, kind, agent, project, delayFor(c, agent));

  it("reads the worked example: the kind's steps, a project's, an agent's, the default", () => {
    expect(steps('permission', 'claude-code', 'notes-app')).toEqual([
      { to: ['inbox'], afterMs: 0, atOnceWhenAway: false, evenIfSeen: false },
      { to: ['push'], afterMs: 10_000, atOnceWhenAway: true, evenIfSeen: false },
      { to: ['telegram'], afterMs: 60_000, atOnceWhenAway: false, evenIfSeen: false },
    ]);
    expect(steps('permission', 'claude-code', 'shop-api')).toEqual([{ to: ['push', 'telegram'], afterMs: 0, atOnceWhenAway: false, evenIfSeen: false }]);
    expect(steps('question', 'codex', 'shop-api')).toEqual([{ to: ['push'], afterMs: 5000, atOnceWhenAway: false, evenIfSeen: false }]);
    expect(steps('question', 'claude-code')[0]).toMatchObject({ to: ['push', 'slack'], afterMs: 30_000 });
    expect(steps('watch', 'claude-code')[1]).toMatchObject({ to: ['telegram'], afterMs: 120_000, evenIfSeen: true });
    expect(steps('run_failed', 'claude-code')).toEqual([{ to: ['telegram'], afterMs: 0, atOnceWhenAway: false, evenIfSeen: false }]);
    // no ladder for idle: push.delay_ms to every surface, at once when away, seen or not (as before ladders)
    const idle = steps('idle', 'claude-code');
    expect(idle).toEqual([{ to: ['*'], afterMs: 10_000, atOnceWhenAway: true, evenIfSeen: true }]);
    expect([waitOf(idle[0], false), waitOf(idle[0], true)]).toEqual([10_000, 0]);
    expect(reaches(idle[0], 'slack') && reaches(steps('permission', 'x', 'shop-api')[0], 'telegram')).toBe(true);
    expect(reaches(steps('run_failed', 'x')[0], 'push')).toBe(false);
    expect(ladderKind('form')).toBe('question');
    expect(ladderKind('gate')).toBe('permission');
  });

  it('names every chat channel as a surface', () => {
    expect(SURFACES.filter((x) => x !== 'inbox' && x !== 'push')).toEqual([...CHANNEL_KINDS]);
  });

  it('says what is wrong in a ladder, and where (the push schema is its one checker); a person is no surface', () => {
    expect(() => pushConfigOf({ ladder: { permission: [{ to: 'person' }] } })).toThrow(
      /push\.ladder\.permission\[0\]\.to: a surface or a list of them \(inbox, push, telegram, slack, ntfy, webhook; a person is no surface: see people\)/,
    );
    expect(() => pushConfigOf({ ladder: { permission: [{ to: 'pager' }] } })).toThrow(/push\.ladder\.permission\[0\]\.to: a surface or a list of them/);
    expect(() => pushConfigOf({ ladder: { permision: [{ to: 'push' }] } })).toThrow(/push\.ladder: Unrecognized key: "permision"/);
    expect(() => pushConfigOf({ ladder: { permission: [{ to: 'push', after_ms: -1 }] } })).toThrow(/push\.ladder\.permission\[0\]\.after_ms: Too small/);
    expect(() => pushConfigOf({ ladder: { permission: [{ to: 'push', when_away: 'soon' }] } })).toThrow(
      /when_away: Invalid option: expected one of "at_once"\|"wait"/,
    );
    expect(() => pushConfigOf({ ladder: { permission: [] } })).toThrow(/push\.ladder\.permission: Too small: expected array to have >=1 items/);
    expect(() => pushConfigOf({ ladder: { agents: { codex: { question: [{ to: 'push', delay: 1 }] } } } })).toThrow(
      /push\.ladder\.agents\.codex\.question\[0\]: Unrecognized key: "delay"/,
    );
    expect(() => pushConfigOf({ ladder: { permission: [{ to: ['push', 'ntfy'], people: ['a'] }] } })).toThrow(/ntfy reach no one person/);
  });

  it('says who has seen it', () => {
    expect(seenLine([])).toBe('');
    expect(
      seenLine([
        { by: 'alice', via: 'inbox' },
        { by: 'bob', via: 'telegram' },
      ]),
    ).toBe('seen by alice via inbox, bob via telegram');
  });
});
