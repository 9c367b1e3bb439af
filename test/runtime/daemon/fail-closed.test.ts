// Issue 40, fail closed where a rule said no: a firing hookmap cannot read (a
// tool argument nested 3,000 levels deep once ran the mapper out of stack,
// and the call went ahead on neutral bytes) gets its hook's block reply when
// a policy block rule in force could apply to it; the neutral bytes only
// where no such rule is, or where the descriptor gives the hook no block.
// One case per reply shape: every shipped descriptor's hooks that can block.
import { afterEach, describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { listVendors, loadVendor } from '../../../engine/core/descriptor/registry.ts';
import type { Descriptor } from '../../../engine/core/descriptor/types.ts';
import type { AepEvent } from '../../../engine/core/map/envelope.ts';
import { compilePolicy } from '../../../engine/runtime/policy/policy.ts';
import { MemoryLink, tempDir } from './helpers.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function open(d: Descriptor, policyText?: string) {
  const t = tempDir();
  const events: AepEvent[] = [];
  const lines: string[] = [];
  const compiled = policyText ? compilePolicy('p.yaml', policyText, listVendors()) : undefined;
  expect(compiled?.errors ?? []).toEqual([]);
  const daemon = Daemon.open({ descriptor: d, logDir: t.dir, policy: () => compiled?.policy, onEvent: (e) => events.push(e), say: (l) => lines.push(l) });
  daemon.attach(new MemoryLink(), true);
  cleanups.push(t.done, () => daemon.close());
  return { daemon, events, lines };
}

function deep(levels: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

/** Every shipped hook with a block decision, and the types a block rule would name for it. */
const blocking = listVendors().flatMap((v) => {
  const d = loadVendor(v);
  return [...d.hooks.entries()]
    .filter(([, h]) => h.decide.has('block'))
    .map(([hook, h]) => ({ vendor: v, d, hook, types: [...new Set([...h.emit, ...(h.decide.get('block')!.emit ?? [])].map((e) => e.type))] }));
});

describe('fail closed', () => {
  it('there are blocking hooks to test (one per reply shape)', () => {
    expect(blocking.length).toBeGreaterThan(5);
    expect(new Set(blocking.map((b) => b.vendor)).size).toBeGreaterThan(2);
  });

  for (const b of blocking) {
    it(`${b.vendor} ${b.hook}: an unreadable firing under a block rule gets the block reply, never the neutral bytes`, async () => {
      const policy = `rules:\n  - { id: no-${b.hook.toLowerCase()}, on: [${b.types.join(', ')}], agent: ${b.vendor}, decide: block, reason: "not here" }\n`;
      const { daemon, events, lines } = open(b.d, policy);
      const payload = { session_id: 's1', sessionId: 's1', hook_event_name: b.hook, cwd: '/w', tool_input: deep(3_000), args: deep(3_000) };
      const r = await daemon.handle({ hook: b.hook, payload });
      const neutral = daemon.neutralReply(b.hook);
      expect(r.decided).toBe('block');
      expect(r.error).toBe('payload-too-deep');
      expect(r.body).not.toBe(neutral.body);
      expect(r.body).toContain('fail closed');
      expect(events.some((e) => e.type.endsWith('.error.mapping_failed'))).toBe(true);
      expect(lines.some((l) => l.includes(`no-${b.hook.toLowerCase()} could apply`))).toBe(true);
    });
  }

  it('no block rule: the neutral bytes, coded, as before; a rule for another agent or type does not count', async () => {
    const d = loadVendor('claude-code');
    for (const policy of [
      undefined,
      'rules:\n  - { id: other-agent, on: tool.requested, agent: codex, decide: block, reason: r }\n',
      'rules:\n  - { id: other-type, on: session.started, decide: block, reason: r }\n',
      'rules:\n  - { id: not-block, on: tool.requested, decide: context, text: t }\n',
    ]) {
      const { daemon } = open(d, policy);
      const r = await daemon.handle({ payload: { hook_event_name: 'PreToolUse', session_id: 's1', tool_name: 'Bash', tool_input: deep(3_000) } });
      expect(r.decided).toBeUndefined();
      expect(r.error).toBe('payload-too-deep');
      expect(r.body).toBe(daemon.neutralReply('PreToolUse').body);
    }
  });

  it('Claude Code PreToolUse from the raw body, its hook named only in the payload: the exact deny bytes', async () => {
    const { daemon } = open(loadVendor('claude-code'), 'rules:\n  - { id: no-rm, on: tool.requested, decide: block, reason: "no rm" }\n');
    const body = `{"hook_event_name":"PreToolUse","session_id":"s1","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf x","x":${'['.repeat(3_000)}${']'.repeat(3_000)}}}`;
    const r = await daemon.handle({ body });
    expect(JSON.parse(r.body)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'hookmap could not read this request [payload-too-deep] and rule no-rm could block it: blocked (fail closed)',
      },
    });
  });

  it('a payload of ordinary depth maps as before and the rule decides on what it reads', async () => {
    const { daemon } = open(
      loadVendor('claude-code'),
      'rules:\n  - { id: no-rm, on: tool.requested, when: \'=$contains(data.args.command, "rm")\', decide: block, reason: "no rm" }\n',
    );
    const ok = await daemon.handle({
      payload: { hook_event_name: 'PreToolUse', session_id: 's1', tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'ls', x: deep(40) } },
    });
    expect(ok.decided).toBeUndefined();
    expect(ok.error).toBeUndefined();
    const no = await daemon.handle({
      payload: { hook_event_name: 'PreToolUse', session_id: 's1', tool_name: 'Bash', tool_use_id: 't2', tool_input: { command: 'rm x' } },
    });
    expect(no.decided).toBe('block');
  });
});
