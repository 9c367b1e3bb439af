// codegen/import-pins.ts: a pin-setup `wrap` with `input_at: "."` merges the
// pin block into the base payload (a pin whose fields ARE the hook payload's
// top-level fields, e.g. Claude Code's Elicitation), instead of nesting it.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { importPins, syncPins } from '../../codegen/import-pins.ts';

describe('import-pins: wrap input_at "."', () => {
  it('merges the pin input into the base at the top level', () => {
    const doc = parse(importPins('claude-code')!);
    const c = doc.cases.find((x: any) => x.name === 'elicitation.expected_data');
    const input = c.steps.at(-1).input;
    expect(input.hook_event_name).toBe('Elicitation');
    expect(input.message).toBe('Configure the deployment target');
    expect(Object.keys(input.requestedSchema.properties)).toEqual(['environment', 'replicas', 'reason', 'confirm']);
    expect(input['.']).toBeUndefined();
  });

  it('the generated pins of gemini-cli and claude-code are current', () => {
    expect(syncPins(['gemini-cli', 'claude-code'], true)).toEqual([]);
  });
});
