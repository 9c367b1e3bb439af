// `hookmap map` as other tools use it: NDJSON steps in, exactly one NDJSON
// result per step out, garbage answered per the contract, never a crash.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

function run(args: string[], stdin: string | Buffer): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(ROOT, 'bin/hookmap.mjs'), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (c) => (out += c));
    p.stderr.on('data', (c) => (err += c));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out, err }));
    p.stdin.end(stdin);
  });
}

const step = (input: unknown, hook?: string) => JSON.stringify(hook ? { hook, input } : { input });
const base = { session_id: 's1', turn_id: 't1' };

describe('hookmap map', () => {
  it('answers every step, in order, sharing one engine state; garbage becomes coded errors', async () => {
    const big = JSON.stringify({ input: { ...base, hook_event_name: 'PreToolUse', blob: 'x'.repeat(50 * 1024 * 1024) } });
    const lines = [
      step({ ...base, hook_event_name: 'PreToolUse', tool_name: 'shell', tool_use_id: 'c1', tool_input: { command: 'ls' } }),
      'not json at all',
      '[1, 2, 3]',
      JSON.stringify({ hook: 42, input: {} }),
      JSON.stringify({ hook: 'PreToolUse' }),
      step({ session_id: 's1' }),
      step('a string payload', 'PreToolUse'),
      big,
      step({ ...base, hook_event_name: 'SomethingNobodyKnows' }),
      step({ ...base, hook_event_name: 'PermissionRequest', tool_name: 'shell', tool_input: { command: 'rm -rf build' } }),
      step({ ...base, hook_event_name: 'PostToolUse', tool_name: 'shell', tool_use_id: 'c1', tool_response: 'ok' }),
      '',
    ];
    const r = await run(['map', 'codex'], lines.join('\n'));
    expect(r.code).toBe(1);
    const out = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out).toHaveLength(11); // the blank line is not a step
    expect(out[0].events.map((e: any) => e.type)).toEqual(['tool.requested']);
    expect(out[0].reply).toBe('');
    expect(out.slice(1, 8).map((o: any) => o.error?.code)).toEqual([
      'invalid-json',
      'invalid-step',
      'invalid-step',
      'invalid-step',
      'no-hook-name',
      'invalid-payload',
      'step-too-large',
    ]);
    expect(out[8].events.map((e: any) => e.type)).toEqual(['x.codex.session.something_nobody_knows']);
    // a held hook does not wait in `map`: it emits its request and reports the neutral reply
    expect(out[9].events.map((e: any) => e.type)).toEqual(['attention.requested']);
    expect(out[9].reply).toBe('');
    // the pairing step saw the state of the first: same session, next position
    expect(out[10].events[0]).toMatchObject({ type: 'tool.completed', session: 's1', run: 't1' });
    expect(out[10].events[0].seq).toBeGreaterThan(out[0].events[0].seq);
  }, 60_000);

  it('applies --capture to every category and refuses a bad level', async () => {
    const input = step({ ...base, hook_event_name: 'PreToolUse', tool_name: 'shell', tool_use_id: 'c1', tool_input: { command: 'ls' } });
    const full = await run(['map', 'codex', '--capture', 'full'], input);
    expect(full.code).toBe(0);
    expect(JSON.parse(full.out).events[0]).toMatchObject({ capture: 'full', data: { args: { command: 'ls' } } });
    const bad = await run(['map', 'codex', '--capture', 'everything'], input);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--capture must be one of/);
  });

  it('reports a broken descriptor with every error located and coded (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookmap-map-'));
    try {
      const file = join(dir, 'broken.yaml');
      writeFileSync(
        file,
        [
          'vendor: broken',
          'name: Broken',
          'surface: { kind: command-hook, pin: test }',
          'identity: { session: =session_id }',
          'hooks:',
          '  A:',
          '    emit:',
          '      - type: tool.nonsense',
          '        data: "={ oops: ( }"',
          'replies: { neutral: "" }',
          'capabilities: {}',
          'posture: observe-only',
          '',
        ].join('\n'),
      );
      const r = await run(['map', file], '');
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/broken\.yaml:8:\d+ unknown-event-type: hooks\.A\.emit\[0\]\.type/);
      expect(r.err).toMatch(/broken\.yaml:9:\d+ invalid-expression: hooks\.A\.emit\[0\]\.data/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names an unknown agent (exit 2)', async () => {
    const r = await run(['map', 'no-such-agent'], '');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown agent 'no-such-agent'/);
  });
});
