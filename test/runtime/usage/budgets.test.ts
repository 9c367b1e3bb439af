// Budgets through a real `hookmap up` over loopback (docs/usage.md "Budgets"):
// the up config file loaded as the CLI loads it, Claude Code's hooks POSTed
// as its HTTP hooks send them, its usage read from a transcript under a temp
// config dir after each Stop (x.hookmap.usage.reported, priced by the price
// table), the book following the relay's stream. A session at its cap gets
// Claude Code's own deny bytes with the budget's reason on the next
// PreToolUse, and the stream says why; a notify budget sends a moment (a
// webhook channel) and allows; the warning goes out once; a day budget
// starts over at 00:00 UTC (an injected clock); `hookmap budgets` reads it all.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadUpConfig } from '../../../engine/app/up-config.ts';
import { run as budgetsCmd } from '../../../engine/cli/commands/budgets.ts';
import { upStack, watchAll, type UpStack, type Watcher } from '../../helpers/up-stack.ts';
import { startRecorder, type Recorder } from '../../helpers/http-recorder.ts';
import { until } from '../daemon/helpers.ts';

const CONFIG = `budgets:
  - { id: project-day, scope: project, window: day, tokens: 40000, at_cap: block, reason: "The shop-api budget for today is spent." }
  - { id: session-cap, scope: session, usd: 0.05, at_cap: block }
  - id: claude-day
    scope: agent
    only: claude-code
    tokens: 12000
    warn_at: 0.5
    at_cap: notify
`;

let s: UpStack;
let w: Watcher;
let hookRx: Recorder;
let transcripts: string;
const DAY = 86_400_000;
let shift = 0;

beforeAll(async () => {
  hookRx = await startRecorder();
  s = await upStack({
    prefix: 'hookmap-budgets-',
    hello: true,
    push: { delayMs: 0 },
    budgetClock: () => Date.now() + shift,
    setup: (home) => {
      const file = join(home, 'up.yaml');
      writeFileSync(file, CONFIG);
      writeFileSync(join(home, 'webhook-secret'), 'whsec_budget_test_secret_0123456789\n', { mode: 0o600 });
      transcripts = join(home, 'claude', 'projects', '-work-shop-api');
      mkdirSync(transcripts, { recursive: true });
      return {
        budgets: loadUpConfig(file, {}).budgets,
        agents: [{ descriptor: 'claude-code', config: { config_dir: join(home, 'claude') } }],
        channels: { webhook: { url: `${hookRx.url}/x`, secretFile: join(home, 'webhook-secret'), principal: 'pager' } },
      };
    },
  });
  w = await watchAll(s.url, s.token);
}, 30_000);

afterAll(async () => {
  vi.restoreAllMocks();
  w?.close();
  await s?.done();
  await hookRx?.close();
});

const fileOf = (session: string) => join(transcripts, `${session}.jsonl`);
const hook = async (session: string, name: string, extra: Record<string, unknown> = {}) => {
  const r = await fetch(`${s.url}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ hook_event_name: name, session_id: session, transcript_path: fileOf(session), cwd: '/work/shop-api', ...extra }),
  });
  return r.text();
};
const pre = (session: string, id = 't1') => hook(session, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: id });
/** One model response of claude-sonnet-4-5 in the transcript ($3 / $15 per million input / output tokens in the price table). */
const respond = (session: string, id: string, input: number, output: number) =>
  appendFileSync(
    fileOf(session),
    `${JSON.stringify({ type: 'assistant', sessionId: session, message: { id, model: 'claude-sonnet-4-5', usage: { input_tokens: input, output_tokens: output } } })}\n`,
  );
const usages = (session: string) => w.stream.filter((e) => e.type === 'x.hookmap.usage.reported' && e.session === session).length;
/** The turn ends: Stop is answered, then the transcript is read, then the usage reaches the stream. */
async function stop(session: string): Promise<void> {
  const before = usages(session);
  await hook(session, 'Stop', { stop_hook_active: false });
  await until(`the usage of ${session}`, () => usages(session) > before);
}
const budgetEvents = (type: string, budget: string) => w.stream.filter((e) => e.type === `x.hookmap.budget.${type}` && e.data?.budget === budget);
async function listed(): Promise<any> {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((c: any) => (lines.push(String(c)), true));
  try {
    expect(await budgetsCmd(['--json', '--url', s.url, '--token-file', join(s.home, 'token')])).toBe(0);
  } finally {
    vi.restoreAllMocks();
  }
  return JSON.parse(lines.join(''));
}

describe('a session budget with block', () => {
  it('allows under the cap, warns once at 80%, then refuses the next tool call with the budget reason in Claude Code’s deny bytes', async () => {
    await hook('b1', 'SessionStart', { source: 'startup' });
    await hook('b1', 'UserPromptSubmit', { prompt: 'go' });
    expect(await pre('b1')).toBe('');
    respond('b1', 'msg_1', 4000, 1000); // $0.027
    await stop('b1');
    await hook('b1', 'UserPromptSubmit', { prompt: 'more' });
    expect(await pre('b1', 't2')).toBe('');
    respond('b1', 'msg_2', 2000, 500); // $0.0405: 81%
    await stop('b1');
    const warned = await w.seen((e) => e.type === 'x.hookmap.budget.warned' && e.data?.budget === 'session-cap', 'the warning');
    expect(warned.data).toMatchObject({ scope: 'session', name: 'b1', unit: 'usd', cap: 0.05, spent: 0.0405, at_cap: 'block' });
    expect(warned.agent).toBe('hookmap');
    await hook('b1', 'UserPromptSubmit', { prompt: 'more' });
    expect(await pre('b1', 't3')).toBe('');
    respond('b1', 'msg_3', 2000, 500); // $0.054: over
    await stop('b1');
    await w.seen((e) => e.type === 'x.hookmap.budget.reached' && e.data?.budget === 'session-cap', 'the cap reached');
    await hook('b1', 'UserPromptSubmit', { prompt: 'more' });
    const denied = JSON.parse(await pre('b1', 't4'));
    expect(denied.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(denied.hookSpecificOutput.permissionDecisionReason).toBe(
      'hookmap budget session-cap: session b1 has spent $0.054 of $0.05. Tool calls are refused until a person raises the cap: stop here and tell the user.',
    );
    const blocked = await w.seen((e) => e.type === 'x.hookmap.budget.blocked' && e.session === 'b1', 'the block on the stream');
    expect(blocked.data).toMatchObject({ budget: 'session-cap', verb: 'block', hook: 'PreToolUse', spent: 0.054, cap: 0.05 });
    // in the refused call's run, beside Claude Code's own record of the refusal (the block reply's emits: the call requested, then denied)
    const denial = w.stream.find((e) => e.type === 'tool.denied' && e.session === 'b1');
    expect(denial).toMatchObject({ run: blocked.run, data: { tool: { call_id: 't4' }, by: 'policy' } });
    expect(w.stream.find((e) => e.id === denial.cause)).toMatchObject({ type: 'tool.requested', session: 'b1' });
    // more usage: the warning and the cap are not said again
    respond('b1', 'msg_4', 100, 10);
    await stop('b1');
    expect(budgetEvents('warned', 'session-cap')).toHaveLength(1);
    expect(budgetEvents('reached', 'session-cap')).toHaveLength(1);
    // another session is under its own cap
    await hook('b2', 'SessionStart', { source: 'startup' });
    await hook('b2', 'UserPromptSubmit', { prompt: 'go' });
    expect(await pre('b2')).toBe('');
  }, 30_000);
});

describe('a notify budget', () => {
  it('sends the warning and the cap as moments and allows', async () => {
    // claude-day counted 4000+1000 + 2000+500 + 2000+500 + 110 = 10,110 tokens: warned at 50%; b2 takes it over 12,000
    respond('b2', 'msg_b2_1', 2000, 0);
    await stop('b2');
    const reached = await w.seen((e) => e.type === 'x.hookmap.budget.reached' && e.data?.budget === 'claude-day', 'claude-day reached');
    expect(reached.data).toMatchObject({ scope: 'agent', name: 'claude-code', unit: 'tokens', cap: 12000, spent: 12110, at_cap: 'notify' });
    expect(budgetEvents('warned', 'claude-day')).toHaveLength(1);
    await until('the moments on the webhook', () => hookRx.got.filter((r) => r.body?.kind === 'budget').length >= 2);
    const texts = hookRx.got.filter((r) => r.body?.kind === 'budget').map((r) => r.body.text);
    expect(texts).toContain(`claude-code has spent 12,110 tokens of 12,000 tokens today (UTC) (budget claude-day): nothing is refused (notify)`);
    expect(texts.some((t: string) => /^claude-code has spent [\d,]+ tokens of 12,000 tokens today \(UTC\) \(budget claude-day, 50% warning\)$/.test(t))).toBe(
      true,
    );
    await hook('b2', 'UserPromptSubmit', { prompt: 'more' });
    expect(await pre('b2', 't9')).toBe(''); // notify: allowed
  }, 30_000);
});

describe('a day budget', () => {
  it('refuses with its own reason at the cap, and starts over at the next UTC day', async () => {
    // project-day: shop-api at 12,110 tokens; b3 adds 28,000 (and so is over its session cap too: the first budget in the file answers)
    await hook('b3', 'SessionStart', { source: 'startup' });
    await hook('b3', 'UserPromptSubmit', { prompt: 'go' });
    respond('b3', 'msg_b3_1', 22000, 6000);
    await stop('b3');
    await w.seen((e) => e.type === 'x.hookmap.budget.reached' && e.data?.budget === 'project-day', 'project-day reached');
    await hook('b3', 'UserPromptSubmit', { prompt: 'more' });
    const denied = JSON.parse(await pre('b3', 't5'));
    expect(denied.hookSpecificOutput.permissionDecisionReason).toBe('The shop-api budget for today is spent.');
    const view = await listed();
    const day = view.budgets.find((b: any) => b.id === 'project-day');
    expect(day.spends[0]).toMatchObject({ name: 'shop-api', state: 'reached', next: 'the next tool call is refused', spent: 40110 });
    await hook('b4', 'SessionStart', { source: 'startup' });
    await hook('b4', 'UserPromptSubmit', { prompt: 'go' });
    expect(JSON.parse(await pre('b4', 't7')).hookSpecificOutput.permissionDecisionReason).toBe('The shop-api budget for today is spent.');
    shift = DAY - (Date.now() % DAY) + 1000; // 00:00:01 UTC tomorrow
    expect(await pre('b4', 't8')).toBe('');
    const tomorrow = (await listed()).budgets.find((b: any) => b.id === 'project-day');
    expect(tomorrow.spends).toEqual([]);
    shift = 0;
  }, 30_000);
});

describe('hookmap budgets', () => {
  it('prints each cap, each scope’s spend and what happens next; GET /budgets needs a read credential', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((c: any) => (lines.push(String(c)), true));
    try {
      expect(await budgetsCmd(['--url', s.url, '--token-file', join(s.home, 'token')])).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
    const text = lines.join('');
    expect(text).toMatch(/^project-day: 40,000 tokens project per day \(\d{4}-\d\d-\d\d UTC\); warns at 80%, at the cap: block$/m);
    expect(text).toMatch(/^ {2}shop-api +40,110 tokens +100% {2}reached: the next tool call is refused$/m);
    expect(text).toMatch(/^session-cap: \$0\.05 session; warns at 80%, at the cap: block$/m);
    expect(text).toMatch(/^ {2}b1 +\$0\.0544 +109% {2}reached: the next tool call is refused$/m);
    expect((await fetch(`${s.url}/budgets`)).status).toBe(401);
    expect((await fetch(`${s.url}/budgets`, { headers: { authorization: 'Bearer not-the-token' } })).status).toBe(401);
    expect(await budgetsCmd(['--url', s.url, '--token', 'not-the-token'])).toBe(1);
  });
});

describe('within a turn', () => {
  it('with budgets in force the transcript is read after each tool call too: the call after the one that crossed the cap is refused', async () => {
    const at = { cwd: '/work/other' }; // another project: shop-api's day budget is spent
    await hook('b5', 'SessionStart', { source: 'startup', ...at });
    await hook('b5', 'UserPromptSubmit', { prompt: 'go', ...at });
    expect(await pre('b5', 'u1')).toBe('');
    respond('b5', 'msg_b5_1', 20000, 0); // $0.06, in the middle of the turn
    const before = usages('b5');
    await hook('b5', 'PostToolUse', { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 'u1', tool_response: { stdout: '' }, ...at });
    await until('the usage read after the tool call', () => usages('b5') > before);
    await w.seen((e) => e.type === 'x.hookmap.budget.reached' && e.data?.budget === 'session-cap' && e.data?.name === 'b5', 'b5 at its cap');
    const denied = JSON.parse(await pre('b5', 'u2'));
    expect(denied.hookSpecificOutput.permissionDecisionReason).toMatch(/^hookmap budget session-cap: session b5 has spent \$0\.06 of \$0\.05\./);
    expect(w.stream.some((e) => e.type === 'run.finished' && e.session === 'b5')).toBe(false); // no Stop: the same turn
  }, 30_000);
});
