// The operator policy file (engine/runtime/policy/policy.ts, docs/policy.md): a file
// loads whole or not at all; every broken rule is refused with a code and a
// position; nothing of a broken file takes effect.
import { describe, expect, it } from 'vitest';
import { compilePolicy, formatPolicyError, POLICY_ERROR_CODES } from '../../../engine/runtime/policy/policy.ts';

const AGENTS = ['agent-a', 'agent-b'];
const codes = (text: string) => compilePolicy('p.yaml', text, AGENTS).errors.map((e) => e.code);

describe('policy file', () => {
  it('compiles rules with literal and expression reasons; continue defaults to once per run', () => {
    const r = compilePolicy(
      'p.yaml',
      `rules:
  - id: red
    on: run.finished
    decide: continue
    reason: keep going
  - id: ctx
    on: [run.started, tool.requested]
    agent: agent-a
    when: '=data.trigger = "user"'
    decide: context
    text: '="house style for " & $agent'
`,
      AGENTS,
    );
    expect(r.errors).toEqual([]);
    expect(r.policy!.rules.map((x) => [x.id, x.decide, x.maxPerRun])).toEqual([
      ['red', 'continue', 1],
      ['ctx', 'context', undefined],
    ]);
    expect(r.policy!.digest).toMatch(/^[0-9a-f]{16}$/);
  });

  it('refuses every broken rule with its code and position, and yields no policy', () => {
    const text = `rules:
  - id: a
    on: run.finishd
    decide: continue
    reason: x
  - id: a
    on: run.finished
    decide: explode
  - id: c
    on: run.finished
    decide: block
  - id: d
    on: run.finished
    decide: context
    text: '=data.(('
  - id: e
    on: run.finished
    agent: nobody
    decide: block
    reason: r
    colour: red
`;
    const r = compilePolicy('p.yaml', text, AGENTS);
    expect(r.policy).toBeUndefined();
    expect(r.errors.map((e) => e.code).sort()).toEqual(
      [
        'policy-duplicate-id',
        'policy-invalid-expression',
        'policy-missing-reason',
        'policy-unknown-agent',
        'policy-unknown-key',
        'policy-unknown-type',
        'policy-unknown-verb',
      ].sort(),
    );
    const first = r.errors.find((e) => e.code === 'policy-unknown-type')!;
    expect([first.line, first.col]).toEqual([3, 9]);
    expect(formatPolicyError(first)).toMatch(/^p\.yaml:3:9 policy-unknown-type: rules\[0\]\.on: 'run\.finishd'/);
    for (const e of r.errors) expect(Object.keys(POLICY_ERROR_CODES)).toContain(e.code);
  });

  it('refuses a file that is not YAML or has no rules list', () => {
    expect(codes('rules: [')).toEqual(['policy-yaml']);
    expect(codes('- a\n- b\n')).toEqual(['policy-yaml']);
    expect(codes('rules: 3\n')).toEqual(['policy-invalid-rule']);
    expect(codes('rule: []\n')).toContain('policy-unknown-key');
  });

  it('names are resolved at load: an unknown $variable or function is refused', () => {
    const r = compilePolicy(
      'p.yaml',
      `rules:\n  - { id: a, on: run.finished, when: '=$sesion = "x"', decide: block, reason: r ` +
        `}\n  - { id: b, on: run.finished, decide: block, reason: '=$upper(data.x)' }\n`,
      AGENTS,
    );
    expect(r.errors.map((e) => e.code)).toEqual(['policy-invalid-expression', 'policy-invalid-expression']);
    expect(r.errors[0].message).toMatch(/\$sesion.*\$session/s);
    expect(r.errors[1].message).toMatch(/`\$upper` is not a function/);
  });

  it('a when that is not marked as an expression is refused (literals are literal)', () => {
    expect(codes('rules:\n  - { id: a, on: run.finished, when: data.x = 1, decide: block, reason: r }\n')).toEqual(['policy-invalid-expression']);
  });
});
