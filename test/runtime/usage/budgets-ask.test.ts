// A budget with `at_cap: ask` (docs/usage.md "Budgets") through a real
// `hookmap up` and its relay over loopback: Qwen Code's Stops carry their
// turns' input tokens (payloads as Qwen Code 0.24.4 sent them:
// fixtures/qwen-code/recorded/); at the cap its next PreToolUse is held with
// a card in its session, while other firings go on; the card is answered
// over the relay by the owner (control.attention.respond): "allow more"
// raises the cap (x.hookmap.budget.raised, with who), "stop" refuses the
// call with the agent's deny bytes, "let this run finish" lets the rest of
// the run pass; nobody answering (Claude Code, a 1.5 s window) refuses it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadUpConfig } from '../../../engine/app/up-config.ts';
import { run as budgetsCmd } from '../../../engine/cli/commands/budgets.ts';
import { makeCommand, openSocket, sendCommand, type SocketSession } from '../../../engine/runtime/relay/client.ts';
import { upStack, watchAll, type UpStack, type Watcher } from '../../helpers/up-stack.ts';
import { until } from '../daemon/helpers.ts';

let s: UpStack;
let w: Watcher;
let human: SocketSession;

beforeAll(async () => {
  s = await upStack({
    prefix: 'hookmap-budget-ask-',
    hello: true,
    agents: [{ descriptor: 'qwen-code' }, { descriptor: 'claude-code', attentionTimeoutMs: 1_500 }],
    setup: (home) => {
      const file = join(home, 'up.yaml');
      writeFileSync(file, 'budgets:\n  - { id: ask-all, scope: all, tokens: 1000, at_cap: ask, raise_by: 500 }\n');
      return { budgets: loadUpConfig(file, {}).budgets };
    },
  });
  w = await watchAll(s.url, s.token);
  human = await openSocket(s.url, s.token, 'consumer');
}, 30_000);

afterAll(async () => {
  human?.close();
  w?.close();
  await s?.done();
});

const post = async (agent: string, body: Record<string, unknown>) =>
  (await fetch(`${s.url}/hooks/${agent}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).text();
const qwen = (name: string, extra: Record<string, unknown> = {}) =>
  post('qwen-code', { session_id: 'q1', cwd: '/tmp/project', hook_event_name: name, permission_mode: 'default', ...extra });
const tool = (id: string) => qwen('PreToolUse', { tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_use_id: id });
const view = async () => (await (await fetch(`${s.url}/budgets`, { headers: { authorization: `Bearer ${s.token}` } })).json()).budgets[0];
const spent = async () => (await view()).spends[0]?.spent ?? 0;
const cards = () => w.stream.filter((e) => e.type === 'attention.requested' && e.subject === 'budget:ask-all');
const nextCard = (n: number) => until(`card ${n}`, () => cards()[n - 1]);
const pending = (p: Promise<string>) => Promise.race([p, new Promise((r) => setTimeout(() => r('(still held)'), 300))]);

async function respond(request: any, answer: unknown) {
  const cmd = makeCommand('control.attention.respond', request.session, { subject: request.id, data: { answer } });
  cmd.cause = request.id;
  const r = await sendCommand(human, cmd, {
    ackWindowMs: 15_000,
    outcomeWindowMs: 15_000,
    isFinal: (e) => e.type === 'attention.resolved' || e.type === 'control.rejected',
  });
  if (r.kind !== 'acked') throw new Error(`command not acked: ${JSON.stringify(r)}`);
  return r.ack;
}

describe('a budget that asks at its cap', () => {
  it('holds the next tool call with a card; "allow more" raises the cap, audited, and the call goes ahead', async () => {
    await qwen('SessionStart', { source: 'startup', model: 'qwen3-coder' });
    await qwen('UserPromptSubmit', { prompt: 'go', prompt_id: 'p1' });
    await qwen('Stop', { stop_hook_active: false, input_tokens: 1100, prompt_id: 'p1' });
    await until('1,100 tokens counted', async () => (await spent()) === 1100);
    expect((await view()).spends[0]).toMatchObject({ state: 'reached', next: 'the next tool call is held with a card (ask)' });
    await qwen('UserPromptSubmit', { prompt: 'more', prompt_id: 'p2' });
    const held = tool('c1');
    const card = await nextCard(1);
    expect(card.session).toBe('q1');
    expect(card.data).toMatchObject({
      kind: 'permission',
      prompt: 'all agents together has spent 1,100 tokens of 1,000 tokens today (UTC) (budget ask-all)',
      options: [
        { id: 'finish', label: 'Let this run finish' },
        { id: 'more', label: 'Allow 500 tokens more' },
        { id: 'stop', label: 'Stop' },
      ],
    });
    const requested = w.stream.find((e) => e.type === 'tool.requested' && e.session === 'q1' && e.id === card.cause);
    expect(requested?.run).toBe(card.run);
    expect(await pending(held)).toBe('(still held)');
    // the held call holds nobody else: another session's firings are answered meanwhile
    expect(
      await post('qwen-code', { session_id: 'q2', cwd: '/tmp/other', hook_event_name: 'SessionStart', source: 'startup', permission_mode: 'default' }),
    ).toBe('');
    await respond(card, { option: 'more' });
    expect(await held).toBe(''); // Qwen Code's neutral bytes: the call goes ahead
    const answered = await w.seen((e) => e.type === 'attention.answered' && e.subject === card.id, 'the answer');
    expect(answered.data).toMatchObject({ answer: { option: 'more' }, via: 'control', by: 'owner' });
    const raised = await w.seen((e) => e.type === 'x.hookmap.budget.raised', 'the raise');
    expect(raised.agent).toBe('hookmap');
    expect(raised.data).toMatchObject({
      budget: 'ask-all',
      name: '*',
      unit: 'tokens',
      cap: 1500,
      spent: 1100,
      amount: 500,
      raised: 500,
      by: 'owner',
      request: card.id,
    });
    expect((await view()).spends[0]).toMatchObject({ state: 'under', raised: 1500, spent: 1100, share: 0.733 });
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((c: any) => (lines.push(String(c)), true));
    try {
      expect(await budgetsCmd(['--url', s.url, '--token-file', join(s.home, 'token')])).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
    expect(lines.join('')).toMatch(/^ask-all: 1,000 tokens all per day \(\d{4}-\d\d-\d\d UTC\); warns at 80%, at the cap: ask \(allow more: 500 tokens\)$/m);
    expect(lines.join('')).toMatch(/^ {2}\* +1,100 tokens +73% {2}under: allowed \(cap raised to 1,500 tokens\)$/m);
    expect(await tool('c2')).toBe(''); // under the raised cap: no card
    expect(cards()).toHaveLength(1);
  }, 30_000);

  it('"stop" refuses the call with the agent\'s deny bytes and the reason; the refusal is on the stream', async () => {
    await qwen('Stop', { stop_hook_active: false, input_tokens: 400, prompt_id: 'p2' });
    await until('1,500 tokens counted', async () => (await spent()) === 1500);
    await qwen('UserPromptSubmit', { prompt: 'again', prompt_id: 'p3' });
    const held = tool('c3');
    const card = await nextCard(2);
    expect(card.data.prompt).toBe('all agents together has spent 1,500 tokens of 1,500 tokens today (UTC) (budget ask-all)');
    // an option the card does not offer is refused, and the card stays open
    const bogus = await respond(card, { option: 'unlimited' });
    expect(bogus.type).toBe('control.rejected');
    expect(await pending(held)).toBe('(still held)');
    await respond(card, { option: 'stop' });
    const reason =
      'hookmap budget ask-all: all agents together has spent 1,500 tokens of 1,500 tokens today (UTC). ' +
      'Tool calls are refused until a person allows more: stop here and tell the user.';
    expect(JSON.parse(await held)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
    });
    const blocked = await w.seen((e) => e.type === 'x.hookmap.budget.blocked' && e.cause === card.id, 'the refusal');
    expect(blocked.data).toMatchObject({ budget: 'ask-all', verb: 'block', answer: 'stop', hook: 'PreToolUse', cap: 1500, spent: 1500 });
    const denied = await w.seen((e) => e.type === 'tool.denied' && e.session === 'q1', 'the denied call');
    expect(denied.cause).toBe(card.cause);
    expect(denied.data).toMatchObject({ by: 'policy' });
    // the answer replayed as "allow more" once the card is closed: refused, nothing raised
    const replayed = await respond(card, { option: 'more' });
    expect(replayed.type).toBe('control.rejected');
    expect(JSON.stringify(replayed.data)).toContain('already-closed');
    expect(w.stream.filter((e) => e.type === 'x.hookmap.budget.raised')).toHaveLength(1);
  }, 30_000);

  it('"let this run finish" lets the rest of the run pass and asks again in the next run', async () => {
    const first = tool('c4');
    const card = await nextCard(3);
    await respond(card, { option: 'allow' }); // `hookmap answer --allow`: the card's allow is "let this run finish"
    const answered = await w.seen((e) => e.type === 'attention.answered' && e.subject === card.id, 'the answer');
    expect(answered.data.answer).toEqual({ option: 'finish' });
    // said on the stream by hookmap, with who: it outlives this daemon (a restarted book reads it back)
    const finishing = await w.seen((e) => e.type === 'x.hookmap.budget.finishing', 'the finishing record');
    expect(finishing.agent).toBe('hookmap');
    expect(finishing.data).toEqual({ budget: 'ask-all', session: 'q1', run: card.run, by: 'owner', request: card.id });
    expect(await first).toBe('');
    expect(await tool('c5')).toBe(''); // the same run: no card
    expect(cards()).toHaveLength(3);
    await qwen('Stop', { stop_hook_active: false, input_tokens: 1, prompt_id: 'p3' });
    await qwen('UserPromptSubmit', { prompt: 'next', prompt_id: 'p4' });
    const next = tool('c6');
    const again = await nextCard(4);
    expect(again.run).not.toBe(card.run);
    await respond(again, { option: 'more' });
    expect(await next).toBe('');
  }, 30_000);

  it('refuses the call when nobody answers within the window (never an allow)', async () => {
    const cc = (name: string, extra: Record<string, unknown> = {}) =>
      post('claude-code', { session_id: 'cc1', transcript_path: '/nonexistent/cc1.jsonl', cwd: '/tmp/project', hook_event_name: name, ...extra });
    await cc('SessionStart', { source: 'startup' });
    await cc('UserPromptSubmit', { prompt: 'hi' });
    // 2,001 tokens: past the cap raised twice (2,000)
    await qwen('Stop', { stop_hook_active: false, input_tokens: 500, prompt_id: 'p4' });
    await until('2,001 tokens counted', async () => (await spent()) === 2001);
    const t0 = Date.now();
    const reply = JSON.parse(await cc('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1', permission_mode: 'default' }));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_400);
    expect(reply.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    const card = cards().find((e) => e.session === 'cc1');
    await w.seen((e) => e.type === 'attention.timeout' && e.subject === card.id, 'the timeout');
    const blocked = await w.seen((e) => e.type === 'x.hookmap.budget.blocked' && e.cause === card.id, 'the refusal');
    expect(blocked.data).toMatchObject({ answer: 'none' });
  }, 30_000);
});
