// Capability evidence rules, one row per behaviour: which passing cases prove
// which vocabulary entry, and what a decision-codec answer's shape is.
import { describe, expect, it } from 'vitest';
import { answerShape, proofOf, type EvidenceCase } from '../../../engine/tools/check/evidence.ts';
import { CAPABILITY_BY_ID } from '../../../engine/core/capabilities/vocabulary.ts';

const ev = (type: string, data: Record<string, unknown> = {}) => ({ aep: '0.1' as const, id: 'x', type, time: '', source: '', agent: 'a', data });
const events = (ref: string, ...evs: ReturnType<typeof ev>[]): EvidenceCase => ({ ref, kind: 'events', passed: true, events: evs });
const decision = (ref: string, hold: string, answer: unknown): EvidenceCase => ({
  ref,
  kind: 'decisions',
  passed: true,
  events: [],
  hold,
  answer: answerShape(answer),
});
const def = (id: string) => CAPABILITY_BY_ID.get(id)!;

describe('proofOf', () => {
  const rows: { name: string; id: string; cases: EvidenceCase[]; want: string[] | undefined }[] = [
    { name: 'all types in one case', id: 'observe.tools', cases: [events('f#both', ev('tool.requested'), ev('tool.completed'))], want: ['f#both'] },
    {
      name: 'all types across cases',
      id: 'observe.tools',
      cases: [events('f#a', ev('tool.requested')), events('f#b', ev('tool.completed'))],
      want: ['f#a', 'f#b'],
    },
    { name: 'a missing type proves nothing', id: 'observe.tools', cases: [events('f#a', ev('tool.requested'))], want: undefined },
    { name: 'a failing case proves nothing', id: 'observe.compaction', cases: [{ ...events('f#a', ev('session.compacted')), passed: false }], want: undefined },
    { name: 'any of the types', id: 'observe.sessions', cases: [events('f#end', ev('session.ended'))], want: ['f#end'] },
    { name: 'x.* stands for vendor types', id: 'observe.vendorExtensions', cases: [events('f#fb', ev('x.v.session.odd'))], want: ['f#fb'] },
    {
      name: 'data match tells a permission from a question',
      id: 'observe.questions',
      cases: [events('f#perm', ev('attention.requested', { kind: 'permission' }))],
      want: undefined,
    },
    { name: 'a form request is a question', id: 'observe.questions', cases: [events('f#form', ev('attention.requested', { kind: 'form' }))], want: ['f#form'] },
    { name: 'codec: hold kind and answer shape', id: 'decide.permission', cases: [decision('d#allow', 'permission', { option: 'allow' })], want: ['d#allow'] },
    { name: 'codec: wrong answer shape', id: 'decide.permissionText', cases: [decision('d#allow', 'permission', { option: 'allow' })], want: undefined },
    { name: 'codec: any hold kind times out', id: 'decide.timeoutFailOpen', cases: [decision('d#t', 'form', 'timeout')], want: ['d#t'] },
    { name: 'shim case', id: 'shim.failOpen', cases: [{ ref: 's#down', kind: 'shim', passed: true, mood: 'down', events: [] }], want: ['s#down'] },
    {
      name: 'fail-open: one case per mood, never a daemon-up pass-through',
      id: 'shim.failOpen',
      cases: [
        { ref: 's#up', kind: 'shim', passed: true, mood: 'up', events: [] },
        { ref: 's#error', kind: 'shim', passed: true, mood: 'error', events: [] },
        { ref: 's#hung', kind: 'shim', passed: true, mood: 'hung', events: [] },
        { ref: 's#down', kind: 'shim', passed: true, mood: 'down', events: [] },
        { ref: 's#down2', kind: 'shim', passed: true, mood: 'down', events: [] },
      ],
      want: ['s#down', 's#hung', 's#error'],
    },
    {
      name: 'fail-open: only daemon-up cases prove nothing',
      id: 'shim.failOpen',
      cases: [{ ref: 's#up', kind: 'shim', passed: true, mood: 'up', events: [] }],
      want: undefined,
    },
    {
      name: 'fail-open: a failing case proves nothing; one a docs pass did not run is named',
      id: 'shim.failOpen',
      cases: [
        { ref: 's#down', kind: 'shim', passed: false, mood: 'down', events: [] },
        { ref: 's#hung', kind: 'shim', passed: false, unrun: true, mood: 'hung', events: [] },
      ],
      want: ['s#hung'],
    },
    { name: 'no rule: never proven by finding', id: 'inject.context', cases: [events('f#a', ev('run.started'))], want: undefined },
  ];
  for (const r of rows) it(r.name, () => expect(proofOf(def(r.id), r.cases)).toEqual(r.want));
});

describe('answerShape', () => {
  const rows: [unknown, string | undefined][] = [
    [{ option: 'allow' }, 'option'],
    [{ text: 'no' }, 'text'],
    [{ values: {} }, 'values'],
    ['timeout', 'timeout'],
    ['dismissed', 'dismissed'],
    ['allow', undefined],
    [undefined, undefined],
  ];
  for (const [answer, want] of rows) it(JSON.stringify(answer) ?? 'undefined', () => expect(answerShape(answer)).toBe(want));
});
