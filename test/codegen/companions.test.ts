// `$first` names the firing's first event, so companions emitted after an
// answer (its resolution, a denial fact) can all cite the answer as cause;
// the pin importer appends declared companions after the pinned events and
// leaves runtime-wired envelope fields (`unpinned`) unasserted.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { importPins } from '../../codegen/import-pins.ts';
import { compileDescriptor } from '../../engine/core/descriptor/compile.ts';
import { Mapper } from '../../engine/core/map/mapper.ts';

const text = `
vendor: demo
name: Demo
surface: { kind: command-hook, pin: test, hook_name: =hook }
identity: { session: =sid }
hooks:
  Result:
    emit:
      - { type: attention.answered, subject: =req, data: { answer: { option: =decision }, via: oob } }
      - { type: attention.resolved, subject: =req, cause: =$first, data: { resolution: answered } }
      - { type: tool.denied, when: '=decision = "rejected"', subject: =tool, cause: =$first, data: { tool: { name: =tool }, by: runtime } }
replies: { neutral: "" }
capabilities: {}
posture: observe-only
`;

describe('$first', () => {
  it('is the id of the first event of the firing', async () => {
    const m = new Mapper(compileDescriptor('demo.yaml', text).descriptor!);
    const r = await m.map(undefined, { hook: 'Result', sid: 's', req: 'r1', tool: 'Bash', decision: 'rejected' });
    expect(r.events.map((e) => e.type)).toEqual(['attention.answered', 'attention.resolved', 'tool.denied']);
    expect(r.events[1].cause).toBe(r.events[0].id);
    expect(r.events[2].cause).toBe(r.events[0].id);
    expect(r.events[0].cause).toBeUndefined();
  });
});

describe('pin import: companions and unpinned', () => {
  it('appends companions after the pinned events and drops unpinned keys', () => {
    const doc = parse(importPins('kimi-code')!);
    const rejected = doc.cases.find((c: any) => c.name === 'hooks.PermissionResult_rejected');
    const last = rejected.steps.at(-1);
    expect(last.expect.map((e: any) => e.type)).toEqual(['attention.answered', 'attention.resolved', 'tool.denied']);
    expect('subject' in last.expect[0]).toBe(false);
    const stop = doc.cases.find((c: any) => c.name === 'hooks.Stop');
    expect(stop.steps.at(-1).expect[0].subject).toBeNull(); // everything else stays asserted
  });
});
