// A normalized-event case may switch descriptor config on (`config:`), and a
// step may assert whether it opens a hold (`hold:`): opt-in gates are then
// provable by plain fixtures, off and on.
import { describe, expect, it } from 'vitest';
import { compileDescriptor } from '../../../engine/core/descriptor/compile.ts';
import { runEventCase } from '../../../engine/tools/cases/run-events.ts';

const text = `
vendor: demo
name: Demo
surface: { kind: command-hook, pin: test, hook_name: =hook }
identity: { session: =sid }
config: { gate: { default: false, doc: the opt-in gate }, gate_tools: { default: [], doc: the tools it holds } }
hooks:
  Pre:
    emit:
      - type: tool.requested
        subject: =tool
        data: { tool: { name: =tool } }
      - type: attention.requested
        when: '=$config.gate = true and ($count($config.gate_tools) = 0 or tool in $config.gate_tools)'
        subject: =tool
        data: { kind: permission, prompt: '="gate " & tool' }
    hold:
      kind: gate
      when: '=$config.gate = true and ($count($config.gate_tools) = 0 or tool in $config.gate_tools)'
      decisions: { allow: {} }
replies: { neutral: "" }
capabilities: {}
posture: observe-opt-in
`;

const d = compileDescriptor('demo.yaml', text).descriptor!;
const step = (tool: string, hold: string | null, types: string[]) => ({
  input: { hook: 'Pre', sid: 's1', tool },
  hold,
  expect: types.map((type) => ({ type })),
});

describe('fixture case config and step hold', () => {
  it('config defaults: no hold, observe only', async () => {
    const out = await runEventCase(d, { name: 'off', steps: [step('Bash', null, ['tool.requested'])] });
    expect(out.failures).toEqual([]);
  });
  it('case config switches the gate on, scoped by the tool list', async () => {
    const out = await runEventCase(d, {
      name: 'on',
      config: { gate: true, gate_tools: ['Bash'] },
      steps: [step('Bash', 'gate', ['tool.requested', 'attention.requested']), step('Read', null, ['tool.requested'])],
    });
    expect(out.failures).toEqual([]);
  });
  it('a wrong hold expectation fails the case', async () => {
    const out = await runEventCase(d, { name: 'bad', steps: [step('Bash', 'gate', ['tool.requested'])] });
    expect(out.failures).toEqual(['step 1: hold none != expected gate']);
  });
});
