// Issue 31, the CLI stream views (`tail`, `timeline`, `answer`) as a new user
// meets them: a real `hookmap up` (test/helpers/up-stack.ts) fed Claude Code
// hook payloads over HTTP, then the commands run against it. One test per
// numbered item of the issue: 1 a denied / unanswered / unreported tool call
// says so; 5 client state under $HOOKMAP_HOME, an explicit --from wins;
// 6 answer reads the request's fate first; 7 unique id prefixes; 8 timeline
// noise; 12 tail's answered line and hints; and the session label.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as answer } from '../../engine/cli/commands/answer.ts';
import { run as cancel } from '../../engine/cli/commands/cancel.ts';
import { run as replay } from '../../engine/cli/commands/replay.ts';
import { run as tail } from '../../engine/cli/commands/tail.ts';
import { run as timeline } from '../../engine/cli/commands/timeline.ts';
import { resolveConfig } from '../../engine/cli/config.ts';
import { main } from '../../engine/cli/main.ts';
import { readLogs, until } from '../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../helpers/up-stack.ts';

// Two sessions share the prefix a1b2c3d4 (ambiguous); each is unique from its fifth group on.
const DENIED = 'a1b2c3d4-0000-4000-8000-00000000000d';
const TIMED_OUT = 'a1b2c3d4-1111-4000-8000-00000000000e';
const UNREPORTED = 'f9e8d7c6-2222-4000-8000-00000000000f';

let s: UpStack;
let xdg: string;
let denied: any;
let timedOut: any;

const hook = (session: string, name: string, extra: Record<string, unknown> = {}) =>
  fetch(`${s.url}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: '/home/dev/proj-alpha', hook_event_name: name, ...extra }),
  });
const bash = { tool_name: 'Bash', tool_input: { command: 'touch marker.txt', description: 'run touch' } };
const request = (session: string) =>
  until(`${session}'s attention.requested`, () =>
    readLogs(join(s.logDir, 'claude-code')).find((e) => e.type === 'attention.requested' && e.session === session),
  );

/** Run one command with stdout and stderr captured. */
async function cli(cmd: (argv: string[]) => Promise<number>, argv: string[]): Promise<{ code: number; out: string[]; text: string }> {
  const out: string[] = [];
  const keep = (c: any) => (out.push(...String(c).split('\n').filter(Boolean)), true);
  vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  try {
    const code = await cmd(argv);
    return { code, out, text: out.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}
const at = () => ['--url', s.url, '--token-file', join(s.home, 'token')];

beforeAll(async () => {
  // tail's old default wrote under $XDG_STATE_HOME: keep any such write out of the real home
  xdg = mkdtempSync(join(tmpdir(), 'hookmap-xdg-'));
  vi.stubEnv('XDG_STATE_HOME', xdg);
  vi.stubEnv('HOOKMAP_STATE_DIR', join(xdg, 'state-dir'));
  s = await upStack({ prefix: 'hookmap-views-', hello: true, agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 2500 }] });
  // 1. a permission denied with guidance text; Claude Code sends no post-tool hook for it
  await hook(DENIED, 'SessionStart', { source: 'startup' });
  await hook(DENIED, 'UserPromptSubmit', { prompt: 'touch a marker', prompt_id: 'p1' });
  await hook(DENIED, 'PreToolUse', { ...bash, tool_use_id: 'toolu_den' });
  const held = hook(DENIED, 'PermissionRequest', bash);
  denied = await request(DENIED);
  const a = await cli(answer, [denied.id, '--deny', '--text', 'use the test database instead', ...at()]);
  expect(a.code, a.text).toBe(0);
  await held;
  await hook(DENIED, 'PostToolBatch', { tool_calls: [{ tool_name: 'Bash', tool_use_id: 'toolu_den' }] });
  await hook(DENIED, 'Stop', { stop_hook_active: false });
  await hook(DENIED, 'SessionEnd', { reason: 'other' });
  // 2. a permission nobody answered: the hold times out, the agent's own dialog decides
  await hook(TIMED_OUT, 'SessionStart', { source: 'startup' });
  await hook(TIMED_OUT, 'UserPromptSubmit', { prompt: 'touch a marker', prompt_id: 'p2' });
  await hook(TIMED_OUT, 'PreToolUse', { ...bash, tool_use_id: 'toolu_out' });
  await hook(TIMED_OUT, 'PermissionRequest', bash);
  timedOut = await request(TIMED_OUT);
  await hook(TIMED_OUT, 'Stop', { stop_hook_active: false });
  await hook(TIMED_OUT, 'SessionEnd', { reason: 'other' });
  // 3. a call whose post-tool hook never came
  await hook(UNREPORTED, 'SessionStart', { source: 'startup' });
  await hook(UNREPORTED, 'UserPromptSubmit', { prompt: 'read it', prompt_id: 'p3' });
  await hook(UNREPORTED, 'PreToolUse', { tool_name: 'Read', tool_input: { file_path: '/home/dev/proj-alpha/a.txt' }, tool_use_id: 'toolu_unr' });
  await hook(UNREPORTED, 'Stop', { stop_hook_active: false });
  await hook(UNREPORTED, 'SessionEnd', { reason: 'other' });
  const ended = async () =>
    (
      await cli(tail, [...at(), '--from', 'all', '--no-follow', '--no-resume', '--state', join(xdg, 'probe.json'), '--filter', 'type=session.ended'])
    ).out.filter((l) => l.endsWith('session.ended')).length;
  await until('every session ended on the relay', async () => (await ended()) === 3);
}, 60_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await s?.done();
  rmSync(xdg, { recursive: true, force: true });
});

describe('item 1: a tool call shows what the stream says became of it', () => {
  it('timeline: denied by who (with the guidance text), not answered, no outcome reported; never unterminated', async () => {
    const d = await cli(timeline, [DENIED, ...at()]);
    expect(d.code, d.text).toBe(0);
    expect(d.text).toMatch(/tool Bash toolu_den .* denied by owner: "use the test database instead"/);
    const t = await cli(timeline, [TIMED_OUT, ...at()]);
    expect(t.text).toMatch(/tool Bash toolu_out .* not answered; the agent decided/);
    const u = await cli(timeline, [UNREPORTED, ...at()]);
    expect(u.text).toMatch(/tool Read toolu_unr .* no outcome reported/);
    for (const r of [d, t, u]) expect(r.text).not.toMatch(/unterminated|running|no terminal event/);
  });

  it("tail: the run that ends without the call's own outcome says what became of it", async () => {
    const r = await cli(tail, [...at(), '--from', 'all', '--no-follow', '--no-resume', '--state', join(xdg, 'one.json')]);
    expect(r.code).toBe(0);
    expect(r.text).toMatch(/tool Bash toolu_den: denied by owner: "use the test database instead"/);
    expect(r.text).toMatch(/tool Bash toolu_out: not answered; the agent decided/);
    expect(r.text).toMatch(/tool Read toolu_unr: no outcome reported/);
  });
});

describe('item 5: tail keeps its position under $HOOKMAP_HOME, and an explicit --from wins', () => {
  it('saves to $HOOKMAP_HOME/state/tail.json; tail --from all prints history despite a saved position', async () => {
    const config = resolveConfig({ HOOKMAP_HOME: s.home, HOME: xdg });
    const run = (argv: string[]) => tail(argv, config);
    const first = await cli(run, [...at(), '--from', 'all', '--no-follow']);
    expect(first.text).toContain(`${DENIED}#0 session.started`);
    expect(existsSync(join(s.home, 'state', 'tail.json'))).toBe(true);
    const again = await cli(run, [...at(), '--from', 'all', '--no-follow']);
    expect(again.text).toContain(`${DENIED}#0 session.started`);
    const resumed = await cli(run, [...at(), '--no-follow']);
    expect(resumed.text).not.toContain('session.started'); // no --from: the saved position stands
  });
});

describe("item 6: answer reads the request's fate before it sends", () => {
  it('an answered request whose session ended: exit 3, who answered, nothing sent', async () => {
    const r = await cli(answer, [denied.id, '--allow', ...at()]);
    expect(r.code, r.text).toBe(3);
    expect(r.text).toMatch(/already answered by owner \(deny/);
    expect(r.text).not.toMatch(/sent control|no-route/);
  });

  it('a timed-out request: exit 4, says the agent decided', async () => {
    const r = await cli(answer, [timedOut.id, '--allow', ...at()]);
    expect(r.code, r.text).toBe(4);
    expect(r.text).toMatch(/timed out .*the agent's own dialog decided/);
    expect(r.text).not.toMatch(/sent control/);
  });
});

describe('item 7: any unique prefix of a session or attention id', () => {
  it('timeline and answer take a unique prefix; an ambiguous one lists the matches and exits 2', async () => {
    const t = await cli(timeline, ['a1b2c3d4-0', ...at()]);
    expect(t.code, t.text).toBe(0);
    expect(t.out[0]).toContain(`session ${DENIED}`);
    const amb = await cli(timeline, ['a1b2c3d4', ...at()]);
    expect(amb.code).toBe(2);
    expect(amb.text).toMatch(/ambiguous/);
    expect(amb.text).toContain(DENIED);
    expect(amb.text).toContain(TIMED_OUT);
    let n = 1;
    while (denied.id.slice(0, n) === timedOut.id.slice(0, n)) n++;
    const a = await cli(answer, [denied.id.slice(0, n), '--allow', ...at()]);
    expect(a.code, a.text).toBe(3); // found, and already answered
    const common = denied.id.slice(0, n - 1);
    if (common) {
      const b = await cli(answer, [common, '--allow', ...at()]);
      expect(b.code).toBe(2);
      expect(b.text).toContain(denied.id);
      expect(b.text).toContain(timedOut.id);
    }
    const c = await cli(cancel, ['f9e8d7', ...at()]);
    expect(c.text).toContain(`session ${UNREPORTED}`); // resolved, then refused as ended
    // a file's sessions too (replay --session), from the agent's own log
    const log = join(s.logDir, 'claude-code');
    const file = join(
      log,
      readdirSync(log).find((f) => f.includes(UNREPORTED))!,
    );
    const r = await cli(replay, [file, '--session', 'f9e8', '--dry-run']);
    expect(r.code, r.text).toBe(0);
    expect(r.text).toContain(`${UNREPORTED} → `);
  });
});

describe('item 8: the timeline without noise', () => {
  it('no raw vendor rows (only under --verbose), the run once, durations that read naturally', async () => {
    const r = await cli(timeline, [DENIED, ...at()]);
    expect(r.text).not.toMatch(/· \S+ x\.claude-code\.tool\.batch/);
    expect(r.text).toContain('(not shown: x.claude-code.tool.batch; --verbose shows every event)');
    expect(r.out.filter((l) => / run /.test(` ${l.replace(/^[│├└─\s]+/, '')}`))).toHaveLength(1);
    const v = await cli(timeline, [DENIED, '--verbose', ...at()]);
    expect(v.text).toContain('x.claude-code.tool.batch');
    const dir = mkdtempSync(join(tmpdir(), 'hookmap-views-file-'));
    try {
      const file = join(dir, 's.jsonl');
      const e = (seq: number, type: string, time: string, more: Record<string, unknown> = {}) =>
        JSON.stringify({
          aep: '0.1',
          id: `e${seq}`,
          type,
          time,
          source: 'aep://h/agent/claude-code/session/long-1',
          agent: 'claude-code',
          session: 'long-1',
          seq,
          epoch: 0,
          data: {},
          ...more,
        });
      writeFileSync(
        file,
        [
          e(0, 'session.started', '2026-12-01T09:00:00.000Z'),
          e(1, 'run.started', '2026-12-01T09:00:00.000Z', { run: 'r1' }),
          e(2, 'run.finished', '2026-12-01T09:01:05.000Z', { run: 'r1', cause: 'e1' }),
          e(3, 'session.ended', '2026-12-01T09:02:00.000Z', { data: { reason: 'normal' } }),
        ].join('\n') + '\n',
      );
      const f = await cli(timeline, ['long-1', '--file', file]);
      expect(f.text).toContain('(2 min)');
      expect(f.text).toContain('(1 min 5 s)');
      expect(f.text).not.toMatch(/\dm\d\ds| 0 s\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('item 12: tail says who answered what; history has no stale hints', () => {
  it('the answered line names the decision and who; settled requests print no answer: hint; --help names the token file', async () => {
    const r = await cli(tail, [...at(), '--from', 'all', '--no-follow', '--no-resume', '--session', DENIED, '--state', join(xdg, 'two.json')]);
    expect(r.text).toMatch(/attention\.answered \S+ {2}deny by owner: "use the test database instead"/);
    expect(r.text).not.toMatch(/answer: hookmap answer/);
    const h = await cli((argv) => main(argv), ['tail', '--help']);
    expect(h.text).toContain('$HOOKMAP_HOME/token');
  });
});

describe('the session label: the project, never the path', () => {
  it('timeline and tail show hookmapproject, else the basename of data.cwd', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookmap-views-label-'));
    try {
      const file = join(dir, 's.jsonl');
      const e = (session: string, more: Record<string, unknown>) =>
        JSON.stringify({
          aep: '0.1',
          id: `e-${session}`,
          type: 'session.started',
          time: '2026-12-01T09:00:00.000Z',
          source: `aep://h/agent/claude-code/session/${session}`,
          agent: 'claude-code',
          session,
          seq: 0,
          epoch: 0,
          data: {},
          ...more,
        });
      writeFileSync(file, [e('lab-1', { hookmapproject: 'billing-api' }), e('lab-2', { data: { cwd: '/home/dev/work/proj-beta' } })].join('\n') + '\n');
      const one = await cli(timeline, ['lab-1', '--file', file]);
      expect(one.out[0]).toMatch(/^session lab-1 {2}claude-code {2}billing-api {2}/);
      const two = await cli(timeline, ['lab-2', '--file', file]);
      expect(two.out[0]).toMatch(/claude-code {2}proj-beta {2}/);
      expect(two.text).not.toContain('/home/dev/work');
      const posted = await fetch(`${s.url}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${s.token}` },
        body: `${e('lab-3', { id: '01JZLAB0000000000000000003', hookmapproject: 'billing-api' })}\n`,
      });
      expect(posted.status).toBe(202);
      const t = await cli(tail, [...at(), '--session', 'lab-3', '--from', 'all', '--no-follow', '--no-resume', '--state', join(dir, 'tail.json')]);
      expect(t.text).toContain('claude-code [billing-api] lab-3#0 session.started');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a control query's answer is for who asked: timeline and tail leave it out, tail --json keeps it", () => {
  const QUERIED = 'c0ffee00-3333-4000-8000-000000000010';
  it('the inbox\'s "Allow always" proposal asks the daemon; its answer is in the log but not in the story', async () => {
    await hook(QUERIED, 'SessionStart', { source: 'startup' });
    const held = hook(QUERIED, 'PermissionRequest', bash);
    const req = await request(QUERIED);
    const proposal = await fetch(`${s.url}/rules/propose?request=${req.id}`, { headers: { authorization: `Bearer ${s.token}` } });
    expect(proposal.status, await proposal.clone().text()).toBe(200);
    const log = () => readLogs(join(s.logDir, 'claude-code')).filter((e) => e.session === QUERIED);
    const answer = await until('the query answer logged', () => log().find((e) => e.type === 'control.accepted' && (e.data as any)?.result));
    await held; // the hold times out: the agent decides
    const t = await cli(timeline, [QUERIED, ...at(), '--verbose']);
    expect(t.code, t.text).toBe(0);
    expect(t.text).not.toContain(answer.id);
    expect(t.text).not.toMatch(/control\.accepted/);
    const state = join(xdg, 'queried.json');
    const view = await cli(tail, [...at(), '--from', 'all', '--no-follow', '--no-resume', '--state', state, '--filter', `session=${QUERIED}`]);
    expect(view.text).toMatch(/attention\.requested|wants|Bash/);
    expect(view.text).not.toMatch(/control\.accepted/);
    const raw = await cli(tail, [...at(), '--from', 'all', '--no-follow', '--no-resume', '--state', state, '--json', '--filter', `session=${QUERIED}`]);
    expect(raw.out.map((l) => JSON.parse(l).id)).toContain(answer.id);
  });
});
