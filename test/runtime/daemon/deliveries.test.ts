// Delivered commands and decisions through the daemon, beyond what the
// delivery fixtures pin (engine/runtime/daemon/instructions.ts, engine/core/map/decide.ts):
// the per-session queue cap, a redelivered instruct re-acked byte-identically
// and queued once, what a stopping daemon does with the queue, the AEP-0007
// reply fact of a Stop, and a policy rule whose expression fails on an event.
import { afterEach, describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import type { AepEvent } from '../../../engine/core/map/envelope.ts';
import { compilePolicy } from '../../../engine/runtime/policy/policy.ts';
import { validateStream } from '../../../engine/core/validate/index.ts';
import { MemoryLink, tempDir, instructCommand } from './helpers.ts';

const d = loadVendor('claude-code');
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function open(opts: { config?: Record<string, unknown>; policy?: string } = {}) {
  const t = tempDir();
  const events: AepEvent[] = [];
  const lines: string[] = [];
  const policy = opts.policy ? compilePolicy('p.yaml', opts.policy).policy : undefined;
  const daemon = Daemon.open({
    descriptor: d,
    logDir: t.dir,
    config: opts.config,
    policy: () => policy,
    onEvent: (e) => events.push(e),
    say: (l) => lines.push(l),
  });
  const link = new MemoryLink();
  daemon.attach(link, true);
  let closed = false;
  const close = async () => {
    if (!closed) await daemon.close();
    closed = true;
  };
  cleanups.push(t.done, close);
  return { daemon, events, lines, link, close };
}

const payload = (hook: string, extra: Record<string, unknown> = {}) => ({
  hook_event_name: hook,
  session_id: 's1',
  transcript_path: '/tmp/t.jsonl',
  cwd: '/w',
  permission_mode: 'default',
  ...extra,
});
const instruct = (text: string, session = 's1'): AepEvent => instructCommand(text, session);
const ackOf = (events: AepEvent[], cmd: AepEvent) => events.filter((e) => e.cause === cmd.id && e.type.startsWith('control.'));

describe('delivered commands', () => {
  it('the per-session queue holds 20 instructions; the 21st is refused queue-full', async () => {
    const { daemon, events } = open({ config: { instruct: true } });
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'go' }) });
    const cmds = Array.from({ length: 21 }, (_, i) => instruct(`step ${i}`));
    for (const c of cmds) await daemon.onCommand(c);
    expect(cmds.slice(0, 20).every((c) => ackOf(events, c)[0]?.type === 'control.accepted')).toBe(true);
    expect(ackOf(events, cmds[20])[0].data).toEqual({ reason: 'invalid', code: 'queue-full' });
    // all twenty ride one reply, in order
    const r = await daemon.handle({ payload: payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' }) });
    expect(JSON.parse(r.body).hookSpecificOutput.additionalContext).toBe(
      cmds
        .slice(0, 20)
        .map((_, i) => `step ${i}`)
        .join('\n\n'),
    );
    expect(events.filter((e) => e.type === 'x.claude-code.instruction.delivered').map((e) => e.cause)).toEqual(cmds.slice(0, 20).map((c) => c.id));
  });

  it('instructions beyond the cap together ride later replies (each within 10,000 characters)', async () => {
    const { daemon } = open({ config: { instruct: true } });
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'go' }) });
    await daemon.onCommand(instruct('a'.repeat(6000)));
    await daemon.onCommand(instruct('b'.repeat(6000)));
    const pre = () => daemon.handle({ payload: payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' }) });
    const first = JSON.parse((await pre()).body).hookSpecificOutput.additionalContext;
    const second = JSON.parse((await pre()).body).hookSpecificOutput.additionalContext;
    expect([first.length, second.length]).toEqual([6000, 6000]);
    expect((await pre()).body).toBe('');
  });

  it('a redelivered instruct is re-acked byte-identically and queued once', async () => {
    const { daemon, events, link } = open({ config: { instruct: true } });
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'go' }) });
    const c = instruct('once');
    await daemon.onCommand(c);
    await daemon.onCommand(c);
    expect(ackOf(events, c)).toHaveLength(1);
    expect(link.resent).toEqual([JSON.stringify(ackOf(events, c)[0])]);
    const r = await daemon.handle({ payload: payload('PostToolUse', { tool_name: 'Bash', tool_input: {}, tool_use_id: 't1', tool_response: 'ok' }) });
    expect(JSON.parse(r.body).hookSpecificOutput.additionalContext).toBe('once');
  });

  it('a stopping daemon drops what is queued, audited (daemon-stopping)', async () => {
    const { daemon, events, close } = open({ config: { instruct: true } });
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'go' }) });
    const c = instruct('never delivered');
    await daemon.onCommand(c);
    await close();
    const dropped = events.find((e) => e.type === 'x.claude-code.instruction.dropped');
    expect(dropped).toMatchObject({ cause: c.id, data: { reason: 'daemon-stopping' } });
    expect(validateStream(events)).toEqual([]);
  });

  it('the instruction text stays off a metadata stream; the agent gets the real words', async () => {
    const { daemon, events } = open({ config: { instruct: true } });
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'go' }) });
    await daemon.onCommand(instruct('the key is sk-ant-abcdefghijklmnopqrstuvwx'));
    const r = await daemon.handle({ payload: payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' }) });
    expect(r.body).toContain('sk-ant-abcdefghijklmnopqrstuvwx');
    expect(JSON.stringify(events)).not.toContain('sk-ant-');
    expect(JSON.stringify(events)).not.toContain('the key is');
  });
});

describe('messages (AEP-0007, opt-in)', () => {
  it('a Stop carries the reply as message.agent.replied with a per-run id, before the run closes', async () => {
    const { daemon, events } = open({ config: { messages: true } });
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'go', prompt_id: 'p1' }) });
    await daemon.handle({ payload: payload('Stop', { stop_hook_active: false, last_assistant_message: 'Done: 3 files.' }) });
    const reply = events.find((e) => e.type === 'message.agent.replied')!;
    const run = events.find((e) => e.type === 'run.started')!.run;
    expect(reply.subject).toMatch(new RegExp(`^${run}/[0-9a-f]{32}$`));
    expect(reply.data).toEqual({ message_id: reply.subject, role: 'assistant', text: 'Done: 3 files.', text_digest: reply.subject!.split('/')[1], chars: 14 });
    expect(reply.run).toBe(run);
    expect(events.map((e) => e.type)).toEqual(['run.started', 'message.user.submitted', 'message.agent.replied', 'run.finished']);
  });

  it('off by default: no message.* at all', async () => {
    const { daemon, events } = open();
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'go', prompt_id: 'p1' }) });
    await daemon.handle({ payload: payload('Stop', { stop_hook_active: false, last_assistant_message: 'Done.' }) });
    expect(events.map((e) => e.type)).toEqual(['run.started', 'run.finished']);
  });
});

describe('policy', () => {
  it('a rule whose expression fails on an event is skipped and reported; the next rule decides', async () => {
    const { daemon, lines } = open({
      policy: `rules:
  - { id: broken-at-runtime, on: run.finished, when: '=$number("x") > 1', decide: continue, reason: never }
  - { id: ok, on: run.finished, decide: continue, reason: "keep going" }
`,
    });
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'go' }) });
    const r = await daemon.handle({ payload: payload('Stop', { stop_hook_active: false }) });
    expect(r.body).toBe('{"decision":"block","reason":"keep going"}');
    expect(lines.some((l) => l.includes('policy rule broken-at-runtime could not be evaluated'))).toBe(true);
  });
});
