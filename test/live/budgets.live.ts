// Live: budgets (issue 44, docs/usage.md "Budgets") with the real Claude Code
// (`claude -p`, default permission mode) against the scripted Messages API,
// which reports known usage (1,200+ input and 34 output tokens a response).
// A session budget of 1,000 tokens: the first response crosses it, hookmap
// reads that usage from the transcript once the first tool call ended, so
// the SECOND call meets the cap. `block`: refused with the budget's reason,
// which the model's next request carries; the stream says why. `ask`: the
// call is held with a card, answered "allow more" with `hookmap answer`, and
// the run goes on; the answer and the raise carry who gave them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { run } from './harness.ts';
import { Live } from './live.ts';

const ID = 'claude-code';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] budgets: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);

const ANSWER_TIMEOUT_MS = 30_000;

/** Every tool_result block the model was sent, newest last. */
const toolResults = (reqs: { body: any; step?: number }[]) =>
  reqs
    .filter((r) => r.step !== undefined)
    .flatMap((r) => (r.body?.messages ?? []).flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])))
    .filter((c: any) => c?.type === 'tool_result');
const resultText = (c: any) => (typeof c.content === 'string' ? c.content : (c.content ?? []).map((x: any) => x.text ?? '').join(''));
/** The commands of the calls that ran (PostToolUse as the tap recorded it: the stream carries no arguments at its metadata ceiling). */
const ran = (hooks: { body: any }[]) => hooks.filter((h) => h.body?.hook_event_name === 'PostToolUse').map((h) => h.body.tool_input?.command);

describe.skipIf(!!skip)(`budgets: ${agent.pkg}@${agent.version} live`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'Bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));

  const claude = (prompt: string) =>
    run(live.bin, ['-p', prompt, '--permission-mode', 'default', '--output-format', 'json'], {
      cwd: live.s.project,
      timeoutMs: 90_000,
      env: {
        ...live.agentEnv,
        ANTHROPIC_BASE_URL: live.model.url,
        ANTHROPIC_API_KEY: 'sk-ant-live-test-not-a-key',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    });

  /** `hookmap up --config` with one session budget of 1,000 tokens. */
  const budget = async (line: string) => {
    const file = join(live.s.root, `up-${Date.now()}.yaml`);
    writeFileSync(file, `budgets:\n  - ${line}\n`);
    await live.restartUp(ANSWER_TIMEOUT_MS, { args: ['--config', file] });
  };

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    await live.setup(['--project', '--dir', live.s.project]);
    live.model.reportUsage({ input: 1200, output: 34, cache_read: 0, cache_write: 0, reasoning: 0 });
  }, 90_000);

  afterAll(async () => {
    live.model?.reportUsage(undefined);
    await live.close();
  }, 30_000);

  it('block: the call after the cap is refused with the reason, the model receives it, the stream says why', async () => {
    await budget('{ id: live-session, scope: session, tokens: 1000, at_cap: block }');
    const o = await live.play('budget', claude);
    expect(o.run.code, o.run.stderr).toBe(0);
    expect(o.sessions).toHaveLength(1);
    const session = o.sessions[0];
    const events = o.events;
    const blocked = events.find((e) => e.type === 'x.hookmap.budget.blocked');
    expect(blocked, events.map((e) => e.type).join(', ')).toBeDefined();
    expect(blocked.data).toMatchObject({
      budget: 'live-session',
      scope: 'session',
      name: session,
      unit: 'tokens',
      cap: 1000,
      verb: 'block',
      hook: 'PreToolUse',
    });
    expect(blocked.data.spent).toBeGreaterThan(1000);
    // the first call ran, the second (after the cap) was refused
    expect(events.filter((e) => e.type === 'tool.requested')).toHaveLength(2);
    expect(ran(o.hooks)).toEqual(['echo budget-check-one']);
    const completed = events.filter((e) => e.type === 'tool.completed');
    expect(completed).toHaveLength(1);
    const denied = events.find((e) => e.type === 'tool.denied');
    expect(denied?.data).toMatchObject({ by: 'policy' });
    // the model's next request carries the budget's reason as the refused call's result
    const reason = `hookmap budget live-session: session ${session} has spent`;
    const results = toolResults(o.requests).map(resultText);
    // how much earlier than the second call the first response's usage was on the stream (the race the design relies on)
    const usage = events.find((e) => e.type === 'x.hookmap.usage.reported');
    const margin = Date.parse(events.filter((e) => e.type === 'tool.requested')[1].time) - Date.parse(usage.time);
    console.log(
      `[live] budgets block: spent ${blocked.data.spent} of 1000, usage on the stream ${margin} ms before the second call; the model read: ${results.at(-1)}`,
    );
    expect(results.some((t) => t.includes('budget-check-one'))).toBe(true);
    expect(results.some((t) => t.includes(reason) && t.includes('Tool calls are refused until a person raises the cap'))).toBe(true);
    await live.checkSession(session);
  }, 120_000);

  it('ask: the call after the cap is held with a card; "allow more" over `hookmap answer` lets the run go on, audited', async () => {
    await budget('{ id: live-ask, scope: session, tokens: 1000, at_cap: ask, raise_by: 10000 }');
    let card: any;
    const o = await live.play('budget', claude, async ({ sessionEvents }) => {
      card = await live.nextAttention(sessionEvents, new Set(), 60_000);
      const r = await live.answer(card.id, ['--option', 'more']);
      expect(r.code).toBe(0);
    });
    expect(o.run.code, o.run.stderr).toBe(0);
    const session = o.sessions[0];
    const events = o.events;
    expect(card.subject).toBe('budget:live-ask');
    expect(card.data.prompt).toMatch(new RegExp(`^session ${session} has spent [\\d,]+ tokens of 1,000 tokens \\(budget live-ask\\)$`));
    expect(card.data.options.map((x: any) => x.id)).toEqual(['finish', 'more', 'stop']);
    // the card holds the second call: its tool.requested is the card's cause
    const requested = events.filter((e) => e.type === 'tool.requested');
    expect(requested).toHaveLength(2);
    expect(ran(o.hooks)).toEqual(['echo budget-check-one', 'echo budget-check-two']);
    expect(card.cause).toBe(requested[1].id);
    const answered = events.find((e) => e.type === 'attention.answered' && e.subject === card.id);
    expect(answered.data).toMatchObject({ answer: { option: 'more' }, via: 'control', by: 'owner' });
    const raised = live.stream.events.find((e) => e.type === 'x.hookmap.budget.raised' && e.data?.request === card.id);
    expect(raised?.agent).toBe('hookmap');
    expect(raised.data).toMatchObject({ budget: 'live-ask', name: session, amount: 10000, cap: 11000, by: 'owner' });
    // the run went on: both calls completed, nothing was refused, the model got the second call's output
    expect(events.filter((e) => e.type === 'tool.completed')).toHaveLength(2);
    expect(events.some((e) => e.type === 'tool.denied' || e.type === 'x.hookmap.budget.blocked')).toBe(false);
    expect(
      toolResults(o.requests)
        .map(resultText)
        .some((t) => t.includes('budget-check-two')),
    ).toBe(true);
    expect(events.some((e) => e.type === 'run.finished')).toBe(true);
    console.log(`[live] budgets ask: card ${card.id} answered "more" by ${answered.data.by}; the run took ${o.run.ms} ms`);
    await live.checkSession(session);
  }, 120_000);
});
