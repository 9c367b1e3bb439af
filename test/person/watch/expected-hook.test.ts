// A hook the descriptor expects after another that never came (issue 43,
// docs/watch.md), through a whole `hookmap up` with Claude Code's hooks posted
// as the agent posts them: AskUserQuestion's PreToolUse is followed at once
// by a PermissionRequest (its form); when none comes within the sign's 5 s,
// the daemon publishes the waiting sign (data.expected names what it waited
// for) and the watch raises "waits at its terminal", cleared when the agent
// moves on. The expected hook arriving in time, or the session ending, drops
// the wait; a PreToolUse of any other tool is no sign.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';

let s: UpStack;
const WITHIN_MS = 5000;

beforeAll(async () => {
  s = await upStack({
    prefix: 'hookmap-expected-hook-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 30_000 }],
    watch: { enabled: true, callMs: 600_000, runMs: 0 },
  });
}, 30_000);

afterAll(async () => {
  await s?.done();
});

const hook = (body: Record<string, unknown>) =>
  fetch(`${s.url}/hooks/claude-code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const base = (session: string) => ({ session_id: session, cwd: '/tmp/shop-api', transcript_path: '/tmp/none.jsonl' });
const ASK = { questions: [{ question: 'Which database?', header: 'Database', multiSelect: false, options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }] }] };
const start = async (session: string) => {
  expect((await hook({ ...base(session), hook_event_name: 'SessionStart', source: 'startup' })).status).toBe(200);
  expect((await hook({ ...base(session), hook_event_name: 'UserPromptSubmit', prompt: 'set it up' })).status).toBe(200);
};
const preTool = (session: string, tool: string, id: string, input: unknown) =>
  hook({ ...base(session), hook_event_name: 'PreToolUse', tool_name: tool, tool_use_id: id, tool_input: input });
const signs = (session: string) => readLogs(join(s.logDir, 'claude-code')).filter((e) => e.session === session && e.type === 'x.hookmap.watch.waiting');
const raisedFor = (session: string) =>
  readLogs(join(s.logDir, '_operator')).filter((e) => e.type === 'attention.requested' && (e.data as any)?.watch?.session === session);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the watch: a hook expected next that never came', () => {
  it('the descriptor says so: AskUserQuestion expects a PermissionRequest within 5 s', () => {
    const w = loadVendor('claude-code').waiting.find((x) => x.sign === 'question_without_hook')!;
    expect(w).toMatchObject({ hook: 'PreToolUse', reason: 'question', unless: { withinMs: WITHIN_MS } });
    expect(w.unless!.hooks).toContain('PermissionRequest');
  });

  it('none came: the sign after its time, the watch raises it, the agent moving on clears it; in time, or a session ended: nothing', async () => {
    for (const x of ['eh-1', 'eh-2', 'eh-3', 'eh-4']) await start(x);
    const asked = Date.now();
    // eh-1: the question's PreToolUse, then nothing
    expect((await preTool('eh-1', 'AskUserQuestion', 'tu-1', ASK)).status).toBe(200);
    // eh-2: its PermissionRequest follows at once (held: a form card covers it)
    expect((await preTool('eh-2', 'AskUserQuestion', 'tu-2', ASK)).status).toBe(200);
    const held = hook({ ...base('eh-2'), hook_event_name: 'PermissionRequest', tool_name: 'AskUserQuestion', tool_input: ASK, permission_suggestions: [] });
    // eh-3: the session ends before the time
    expect((await preTool('eh-3', 'AskUserQuestion', 'tu-3', ASK)).status).toBe(200);
    expect((await hook({ ...base('eh-3'), hook_event_name: 'SessionEnd', reason: 'other' })).status).toBe(200);
    // eh-4: another tool is no sign
    expect((await preTool('eh-4', 'Bash', 'tu-4', { command: 'sleep 30' })).status).toBe(200);
    expect(signs('eh-1')).toHaveLength(0); // not before its time
    const [sign] = await until('the sign', () => (signs('eh-1').length ? signs('eh-1') : undefined), WITHIN_MS + 5000);
    expect(Date.parse(sign.time) - asked).toBeGreaterThanOrEqual(WITHIN_MS - 100);
    expect(sign.data).toEqual({
      sign: 'question_without_hook',
      reason: 'question',
      hook: 'PreToolUse',
      expected: ['PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied'],
    });
    const [req] = await until('raised', () => (raisedFor('eh-1').length ? raisedFor('eh-1') : undefined));
    expect(req.data).toMatchObject({ respond_via: ['oob'], watch: { session: 'eh-1', agent: 'claude-code' } });
    expect((req.data as any).prompt).toMatch(/waits at its terminal/);
    await sleep(500);
    for (const x of ['eh-2', 'eh-3', 'eh-4']) {
      expect(signs(x), x).toHaveLength(0);
      expect(raisedFor(x), x).toHaveLength(0);
    }
    // the agent moves on: the question answered at its terminal, the tool done
    expect(
      (await hook({ ...base('eh-1'), hook_event_name: 'PostToolUse', tool_name: 'AskUserQuestion', tool_use_id: 'tu-1', tool_input: ASK, tool_response: {} }))
        .status,
    ).toBe(200);
    await until('resolved', () => readLogs(join(s.logDir, '_operator')).find((e) => e.type === 'attention.resolved' && e.subject === req.id));
    void held.catch(() => undefined);
  }, 30_000);
});
