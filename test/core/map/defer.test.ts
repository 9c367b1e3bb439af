// Descriptor `defer` (attribution): a firing another agent delivered through
// this agent's hooks emits nothing, touches no state and answers neutral, so
// the agent that really ran is the only one that reports the moment. Proven
// on the real pair: Cursor running Claude Code's hook config.
import { describe, expect, it } from 'vitest';
import { compileDescriptor } from '../../../engine/core/descriptor/compile.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { Mapper } from '../../../engine/core/map/mapper.ts';

// What Cursor delivers when it runs a Claude-configured hook: Cursor's common
// fields (https://cursor.com/docs/agent/hooks) on a Claude-named event.
const cursorRunsClaudeHook = {
  hook_event_name: 'UserPromptSubmit',
  conversation_id: 'conv-123',
  generation_id: 'gen-456',
  workspace_roots: ['/path/to/project'],
  cursor_version: '2.0.77',
  prompt: 'Fix the bug in main.ts',
};
const cursorNative = { ...cursorRunsClaudeHook, hook_event_name: 'beforeSubmitPrompt' };

describe('defer: one moment, one agent', () => {
  it('Cursor running Claude Code hooks: counted once, as cursor', async () => {
    const claude = new Mapper(loadVendor('claude-code'));
    const cursor = new Mapper(loadVendor('cursor'));
    const viaClaude = await claude.map(undefined, cursorRunsClaudeHook);
    const viaCursor = await cursor.map(undefined, cursorNative);
    expect(viaClaude.events).toEqual([]);
    expect(viaClaude.deferredTo).toBe('cursor');
    expect(viaClaude.reply).toBe(loadVendor('claude-code').replies.neutral);
    expect(viaClaude.hold).toBeUndefined();
    expect(claude.state.has('conv-123')).toBe(false); // no state, no session lane
    const all = [...viaClaude.events, ...viaCursor.events];
    expect(all.map((e) => [e.agent, e.type])).toEqual([['cursor', 'run.started']]);
  });

  it('a genuine Claude Code payload is not deferred', async () => {
    const claude = new Mapper(loadVendor('claude-code'));
    const r = await claude.map(undefined, { hook_event_name: 'UserPromptSubmit', session_id: 's1', transcript_path: '/t', cwd: '/p', prompt: 'hi' });
    expect(r.deferredTo).toBeUndefined();
    expect(r.events.map((e) => e.agent)).toContain('claude-code');
  });

  it('is checked before the hook name: a payload naming no known hook still defers', async () => {
    const claude = new Mapper(loadVendor('claude-code'));
    const r = await claude.map(undefined, { conversation_id: 'c', generation_id: 'g', hook_event_name: 'beforeShellExecution', command: 'ls' });
    expect(r.events).toEqual([]);
    expect(r.deferredTo).toBe('cursor');
  });

  it('compiles with located errors like every other expression', () => {
    const bad = compileDescriptor(
      'x.yaml',
      `vendor: x\nname: X\nsurface: { kind: command-hook, pin: p, hook_name: =h }\nidentity: { ` +
        `session: =s }\nhooks: { A: { emit: [] } }\nreplies: { neutral: "" }\ncapabilities: ` +
        `{}\nposture: observe-only\ndefer:\n  - { to: y, when: '=a ++ b' }\n`,
    );
    expect(bad.errors.map((e) => [e.code, e.path])).toEqual([['invalid-expression', 'defer[0].when']]);
  });
});
