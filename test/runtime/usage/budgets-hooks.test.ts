// Budgets over usage that rides the agents' own hooks (docs/usage.md
// "Budgets"), through a real `hookmap up` over loopback: Qwen Code's Stop
// carries its turn's input tokens (gen_ai.usage.input_tokens on run.finished,
// payloads as Qwen Code 0.24.4 sent them: fixtures/qwen-code/recorded/); an
// `all` budget in tokens counts every agent; at the cap Qwen Code's next
// PreToolUse gets its own deny bytes, and Cline, whose hooks cannot refuse a
// tool call, has its running task cancelled on its next tool_call (its
// payloads: fixtures/cline/deliveries.yaml, recorded from Cline CLI 3.0.65).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadUpConfig } from '../../../engine/app/up-config.ts';
import { upStack, watchAll, type UpStack, type Watcher } from '../../helpers/up-stack.ts';
import { until } from '../daemon/helpers.ts';

let s: UpStack;
let w: Watcher;

beforeAll(async () => {
  s = await upStack({
    prefix: 'hookmap-budget-hooks-',
    hello: true,
    agents: [{ descriptor: 'qwen-code' }, { descriptor: 'cline' }],
    setup: (home) => {
      const file = join(home, 'up.yaml');
      writeFileSync(file, 'budgets:\n  - { id: all-day, scope: all, tokens: 1000, at_cap: block }\n');
      return { budgets: loadUpConfig(file, {}).budgets };
    },
  });
  w = await watchAll(s.url, s.token);
}, 30_000);

afterAll(async () => {
  w?.close();
  await s?.done();
});

const post = async (agent: string, body: Record<string, unknown>) =>
  (await fetch(`${s.url}/hooks/${agent}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).text();
const qwen = (name: string, extra: Record<string, unknown> = {}) =>
  post('qwen-code', { session_id: 'q1', cwd: '/tmp/project', hook_event_name: name, permission_mode: 'default', ...extra });
const spent = async (): Promise<number> => {
  const r = await fetch(`${s.url}/budgets`, { headers: { authorization: `Bearer ${s.token}` } });
  return (await r.json()).budgets[0].spends[0]?.spent ?? 0;
};
const CLINE = {
  clineVersion: '',
  taskId: 'conv_budget_task',
  sessionContext: { rootSessionId: 'root_budget' },
  workspaceRoots: ['/tmp/project'],
  workspaceInfo: { rootPath: '/tmp/project', hint: 'project' },
  userId: 'unknown',
  agent_id: 'agent_budget',
  parent_agent_id: null,
};
const REASON =
  'hookmap budget all-day: all agents together has spent 1,100 tokens of 1,000 tokens today (UTC). ' +
  'Tool calls are refused until the day ends (00:00 UTC): stop here and tell the user.';

describe('an all-agents budget over hook-carried usage', () => {
  it("refuses Qwen Code's next tool call with its deny bytes once its Stops reported the cap", async () => {
    await qwen('SessionStart', { source: 'startup', model: 'qwen3-coder' });
    await qwen('UserPromptSubmit', { prompt: 'go', prompt_id: 'p1' });
    expect(await qwen('PreToolUse', { tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_use_id: 'c1' })).toBe('');
    await qwen('Stop', { stop_hook_active: false, input_tokens: 600, prompt_id: 'p1' });
    await until('600 tokens counted', async () => (await spent()) === 600);
    await qwen('UserPromptSubmit', { prompt: 'more', prompt_id: 'p2' });
    expect(await qwen('PreToolUse', { tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_use_id: 'c2' })).toBe('');
    await qwen('Stop', { stop_hook_active: false, input_tokens: 500, prompt_id: 'p2' });
    await until('1,100 tokens counted', async () => (await spent()) === 1100);
    await qwen('UserPromptSubmit', { prompt: 'again', prompt_id: 'p3' });
    const reply = JSON.parse(await qwen('PreToolUse', { tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_use_id: 'c3' }));
    expect(reply).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: REASON } });
    const blocked = await w.seen((e) => e.type === 'x.hookmap.budget.blocked' && e.session === 'q1', 'the block');
    expect(blocked.data).toMatchObject({ budget: 'all-day', scope: 'all', name: '*', unit: 'tokens', spent: 1100, verb: 'block', hook: 'PreToolUse' });
    const reached = await w.seen((e) => e.type === 'x.hookmap.budget.reached', 'the cap reached');
    expect(reached.data).toMatchObject({ budget: 'all-day', spent: 1100 });
    // no price (no model on the usage): a token budget counts it all the same
    expect(w.stream.filter((e) => e.type === 'x.hookmap.budget.warned')).toHaveLength(0); // 600 -> 1,100: straight past 80% to the cap
  }, 30_000);

  it("cancels Cline's running task on its next tool_call (its hooks cannot refuse one call)", async () => {
    expect(await post('cline', { ...CLINE, hookName: 'agent_start', taskStart: { taskMetadata: {} } })).toBe('{}');
    const reply = await post('cline', {
      ...CLINE,
      hookName: 'tool_call',
      iteration: 1,
      tool_call: { id: 'call_1', name: 'run_commands', input: { commands: ['echo hi'] } },
      preToolUse: { toolName: 'run_commands', parameters: { commands: '["echo hi"]' } },
    });
    expect(JSON.parse(reply)).toEqual({ cancel: true, errorMessage: REASON });
    const cancelled = await w.seen((e) => e.type === 'run.cancelled' && e.session === 'conv_budget_task', 'the cancel');
    expect(cancelled.data).toEqual({ by: 'policy' }); // its reason is text: above the stream's default capture ceiling
    const blocked = await w.seen((e) => e.type === 'x.hookmap.budget.blocked' && e.session === 'conv_budget_task', 'the record');
    expect(blocked.data).toMatchObject({ budget: 'all-day', verb: 'cancel', hook: 'tool_call' });
    expect(blocked.run).toBe(cancelled.run);
  }, 30_000);
});
