// Live: budgets (issue 44, docs/usage.md "Budgets") with the real Claude Code
// (`claude -p`, default permission mode) and Codex (`codex exec`, as
// test/live/codex.live.ts runs it) against the scripted model, which reports
// known usage (1,200+ input and 34 output tokens a response).
// A session budget of 1,000 tokens: the first response crosses it, hookmap
// reads that usage from the transcript once the first tool call ended, so
// the SECOND call meets the cap. `block`: refused with the budget's reason,
// which the model's next request carries; the stream says why. `ask`: the
// call is held with a card, answered "allow more" with `hookmap answer`, and
// the run goes on; the answer and the raise carry who gave them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { run, type Run } from './harness.ts';
import { Live } from './live.ts';
import type { Step } from './model-server.ts';

const ANSWER_TIMEOUT_MS = 30_000;

/** Every tool_result block (Messages) or function_call_output (Responses) the model was sent, as text, newest last. */
const resultTexts = (reqs: { body: any; step?: number }[]): string[] =>
  reqs
    .filter((r) => r.step !== undefined)
    .flatMap((r) => [
      ...(r.body?.messages ?? []).flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])),
      ...(Array.isArray(r.body?.input) ? r.body.input : []),
    ])
    .filter((c: any) => c?.type === 'tool_result' || c?.type === 'function_call_output')
    .map((c: any) =>
      c.type === 'function_call_output'
        ? typeof c.output === 'string'
          ? c.output
          : JSON.stringify(c.output ?? '')
        : typeof c.content === 'string'
          ? c.content
          : (c.content ?? []).map((x: any) => x.text ?? '').join(''),
    );
/** Which checks ran (PostToolUse as the tap recorded it: the stream carries no arguments at its metadata ceiling). */
const ran = (hooks: { body: any }[]) =>
  hooks.filter((h) => h.body?.hook_event_name === 'PostToolUse').map((h) => /budget-check-(one|two|three)/.exec(JSON.stringify(h.body.tool_input ?? {}))?.[0]);

interface Rig {
  id: string;
  shell: (cmd: string) => Step;
  /** After the rig started: the agent's own setup (hooks wired). */
  setup(live: Live): Promise<void>;
  start(live: Live, prompt: string): Promise<Run>;
  scenario: 'budget' | 'budget-3';
  /** The checks the scenario runs, in order. */
  checks: string[];
  /** Which call (1-based) can meet the cap: the first response's usage is read once the first call ended. */
  refused: number[];
}

const CLAUDE: Rig = {
  id: 'claude-code',
  scenario: 'budget',
  checks: ['budget-check-one', 'budget-check-two'],
  refused: [2],
  shell: (cmd) => ({ tool: 'Bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }),
  setup: async (live) => void (await live.setup(['--project', '--dir', live.s.project])),
  start: (live, prompt) =>
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
    }),
};

/** Codex as test/live/codex.live.ts runs it: `codex exec` against the scripted Responses API in a scratch $CODEX_HOME. */
const codexHome = (live: Live) => join(live.s.home, '.codex');
const CODEX: Rig = {
  id: 'codex',
  scenario: 'budget-3',
  checks: ['budget-check-one', 'budget-check-two', 'budget-check-three'],
  refused: [2, 3],
  shell: (cmd) => ({ tool: 'exec_command', args: { cmd } }),
  setup: async (live) => {
    mkdirSync(codexHome(live), { recursive: true });
    writeFileSync(
      join(codexHome(live), 'config.toml'),
      [
        'model = "scripted"',
        'model_provider = "live"',
        'approval_policy = "on-request"',
        'sandbox_mode = "read-only"',
        '[model_providers.live]',
        'name = "hookmap live scripted model"',
        `base_url = "${live.model.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "HOOKMAP_LIVE_API_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '[features]',
        'hooks = true',
        '',
      ].join('\n'),
    );
    await live.setup([], { ...live.agentEnv, CODEX_HOME: codexHome(live) });
  },
  start: (live, prompt) =>
    run(
      live.bin,
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--approve-for-me', '--color', 'never', '--json', '-C', live.s.project, prompt],
      {
        cwd: live.s.project,
        timeoutMs: 90_000,
        env: { ...live.agentEnv, CODEX_HOME: codexHome(live), HOOKMAP_LIVE_API_KEY: 'sk-live-test-not-a-key', RUST_LOG: 'error' },
      },
    ),
};

for (const rig of [CLAUDE, CODEX]) {
  const skip = Live.skipReason(rig.id);
  if (skip) console.log(`[live] budgets ${rig.id}: SKIPPED: ${skip}`);
  const { agent } = resolveAgent(rig.id);

  describe.skipIf(!!skip)(`budgets: ${agent.pkg}@${agent.version} live`, () => {
    const live = new Live(rig.id, rig.shell);
    const play = () => live.play(rig.scenario, (p) => rig.start(live, p));

    /** `hookmap up --config` with one session budget. */
    const budget = async (line: string) => {
      const file = join(live.s.root, `up-${Date.now()}.yaml`);
      writeFileSync(file, `budgets:\n  - ${line}\n`);
      await live.restartUp(ANSWER_TIMEOUT_MS, { args: ['--config', file] });
    };

    beforeAll(async () => {
      await live.start(ANSWER_TIMEOUT_MS);
      await rig.setup(live);
      live.model.reportUsage({ input: 1200, output: 34, cache_read: 0, cache_write: 0, reasoning: 0 });
    }, 90_000);

    afterAll(async () => {
      live.model?.reportUsage(undefined);
      await live.close();
    }, 30_000);

    it('block: the call after the cap is refused with the reason, the model receives it, the stream says why', async () => {
      await budget('{ id: live-session, scope: session, tokens: 1000, at_cap: block }');
      const o = await play();
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
      // the calls before the cap was known ran; from the first refused one on, every call was refused
      const requested = events.filter((e) => e.type === 'tool.requested');
      expect(requested).toHaveLength(rig.checks.length);
      const k = ran(o.hooks).length + 1;
      expect(rig.refused).toContain(k);
      expect(ran(o.hooks)).toEqual(rig.checks.slice(0, k - 1));
      expect(events.filter((e) => e.type === 'tool.completed')).toHaveLength(k - 1);
      const denied = events.filter((e) => e.type === 'tool.denied');
      expect(denied).toHaveLength(rig.checks.length - k + 1);
      expect(denied[0]).toMatchObject({ cause: requested[k - 1].id, data: { by: 'policy' } });
      // the model's next request carries the budget's reason as the refused call's result
      const reason = `hookmap budget live-session: session ${session} has spent`;
      const results = resultTexts(o.requests);
      // how much earlier than the refused call the first response's usage was on the stream (the race the design relies on)
      const usage = events.find((e) => e.type === 'x.hookmap.usage.reported');
      const margin = Date.parse(requested[k - 1].time) - Date.parse(usage.time);
      console.log(`[live] budgets ${rig.id} block: call ${k} refused, spent ${blocked.data.spent} of 1000, usage on the stream ${margin} ms before it`);
      expect(results.some((t) => t.includes('budget-check-one'))).toBe(true);
      expect(results.some((t) => t.includes(reason) && t.includes('Tool calls are refused until a person raises the cap'))).toBe(true);
      await live.checkSession(session);
    }, 120_000);

    it('ask: the call after the cap is held with a card; "allow more" over `hookmap answer` lets the run go on, audited', async () => {
      await budget('{ id: live-ask, scope: session, tokens: 1000, at_cap: ask, raise_by: 10000 }');
      let card: any;
      const o = await live.play(
        rig.scenario,
        (p) => rig.start(live, p),
        async ({ sessionEvents }) => {
          card = await live.nextAttention(sessionEvents, new Set(), 60_000);
          const r = await live.answer(card.id, ['--option', 'more']);
          expect(r.code).toBe(0);
        },
      );
      expect(o.run.code, o.run.stderr).toBe(0);
      const session = o.sessions[0];
      const events = o.events;
      expect(card.subject).toBe('budget:live-ask');
      expect(card.data.prompt).toMatch(new RegExp(`^session ${session} has spent [\\d,]+ tokens of 1,000 tokens \\(budget live-ask\\)$`));
      expect(card.data.options.map((x: any) => x.id)).toEqual(['finish', 'more', 'stop']);
      // the card held the call that met the cap (its tool.requested is the card's cause); then every call ran
      const requested = events.filter((e) => e.type === 'tool.requested');
      expect(requested).toHaveLength(rig.checks.length);
      expect(ran(o.hooks)).toEqual(rig.checks);
      const k = requested.findIndex((e) => e.id === card.cause) + 1;
      expect(rig.refused).toContain(k);
      expect(events.filter((e) => e.type === 'attention.requested')).toHaveLength(1);
      const answered = events.find((e) => e.type === 'attention.answered' && e.subject === card.id);
      expect(answered.data).toMatchObject({ answer: { option: 'more' }, via: 'control', by: 'owner' });
      const raised = live.stream.events.find((e) => e.type === 'x.hookmap.budget.raised' && e.data?.request === card.id);
      expect(raised?.agent).toBe('hookmap');
      expect(raised.data).toMatchObject({ budget: 'live-ask', name: session, amount: 10000, cap: 11000, by: 'owner' });
      // the run went on: both calls completed, nothing was refused, the model got the second call's output
      expect(events.filter((e) => e.type === 'tool.completed')).toHaveLength(rig.checks.length);
      expect(events.some((e) => e.type === 'tool.denied' || e.type === 'x.hookmap.budget.blocked')).toBe(false);
      expect(resultTexts(o.requests).some((t) => t.includes(rig.checks.at(-1)!))).toBe(true);
      expect(events.some((e) => e.type === 'run.finished')).toBe(true);
      console.log(`[live] budgets ${rig.id} ask: card ${card.id} (call ${k}) answered "more" by ${answered.data.by}; the run took ${o.run.ms} ms`);
      await live.checkSession(session);
    }, 120_000);
  });
}
