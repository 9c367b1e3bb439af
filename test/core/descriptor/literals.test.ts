// Literals are literal (docs/expressions.md): a plain YAML value is the value
// itself, `=` marks a JSONata expression, and a plain string that reads as an
// expression is refused with the fix. One table: a rule's data as written,
// the payload, the data it produces (or the error it gives).
import { describe, expect, it } from 'vitest';
import { compileDescriptor } from '../../../engine/core/descriptor/compile.ts';
import { formatError } from '../../../engine/core/descriptor/errors.ts';
import { Mapper } from '../../../engine/core/map/mapper.ts';

function descriptor(rule: string, extra = ''): string {
  return `vendor: t
name: T
surface: { kind: command-hook, pin: test, hook_name: =hook }
identity: { session: =sid }
hooks:
  A:
    emit:
      - type: x.t.demo.fired
${rule}
replies: { neutral: "" }
capabilities: {}
posture: observe-only
${extra}`;
}

async function fire(text: string, payload: Record<string, unknown> = {}) {
  const r = compileDescriptor('t.yaml', text);
  if (!r.descriptor) return { errors: r.errors.map(formatError) };
  const res = await new Mapper(r.descriptor, { capture: 'full' }).map(undefined, { hook: 'A', sid: 's', ...payload });
  return { events: res.events.map((e) => ({ subject: e.subject, data: e.data })) };
}

const rows: { name: string; rule: string; payload?: Record<string, unknown>; want: unknown }[] = [
  { name: 'a plain word is that word', rule: '        data: { trigger: user }', want: { data: { trigger: 'user' } } },
  {
    name: 'a plain field-like name stays literal',
    rule: '        data: { kind: tool_name }',
    payload: { tool_name: 'x' },
    want: { data: { kind: 'tool_name' } },
  },
  { name: 'numbers, booleans, null are literal', rule: '        data: { n: 3, b: true, z: null }', want: { data: { n: 3, b: true, z: null } } },
  { name: 'an empty mapping is an empty object', rule: '        data: {}', want: { data: {} } },
  {
    name: 'prose is literal',
    rule: '        data: { message: Denied via hookmap attention loop }',
    want: { data: { message: 'Denied via hookmap attention loop' } },
  },
  {
    name: '= marks an expression',
    rule: '        subject: =tool_name\n        data: { name: =tool_name }',
    payload: { tool_name: 'Bash' },
    want: { subject: 'Bash', data: { name: 'Bash' } },
  },
  {
    name: 'mappings and sequences mix both',
    rule: '        data: { opts: [{ id: allow, label: =label }], via: [control] }',
    payload: { label: 'Allow' },
    want: { data: { opts: [{ id: 'allow', label: 'Allow' }], via: ['control'] } },
  },
  { name: 'a quoted expression with a colon', rule: `        data: { reason: '=error ? error : "unknown"' }`, want: { data: { reason: 'unknown' } } },
  {
    name: 'a block scalar expression',
    rule: '        data:\n          prompt: >-\n            ="asks " &\n            what',
    payload: { what: 'this' },
    want: { data: { prompt: 'asks this' } },
  },
  {
    name: 'a literal with JSONata characters, as a string expression',
    rule: `        data: { message: ='a $HOME & b', eq: ='=x' }`,
    want: { data: { message: 'a $HOME & b', eq: '=x' } },
  },
  { name: 'an expression yielding undefined drops the key', rule: '        data: { a: =missing, b: kept }', want: { data: { b: 'kept' } } },
];

const errors: { name: string; rule: string; extra?: string; want: RegExp }[] = [
  {
    name: 'an old-style JSONata string literal',
    rule: `        data: { trigger: '"user"' }`,
    want: /^t\.yaml:9:26 unmarked-expression: hooks\.A\.emit\[0\]\.data\.trigger: .*write `="user"` for the expression; for the literal, write `user`/,
  },
  {
    name: 'an old-style variable reference',
    rule: '        data: { tool: $tool }',
    want: /^t\.yaml:9:23 unmarked-expression: hooks\.A\.emit\[0\]\.data\.tool: "\$tool" reads as a JSONata expression \(the variable `\$tool`\).*`=\$tool`/,
  },
  {
    name: 'an old-style object constructor',
    rule: `        data: '{}'`,
    want: /^t\.yaml:9:15 unmarked-expression: .*an object constructor.*the YAML value `\{\}`/,
  },
  {
    name: 'an old-style concatenation',
    rule: `        subject: '"a" & b'`,
    want: /unmarked-expression: hooks\.A\.emit\[0\]\.subject: .*the `&` operator|a quoted string/,
  },
  {
    name: 'an expression-only position without its mark',
    rule: '        when: run_open\n        data: {}',
    want: /^t\.yaml:9:15 unmarked-expression: hooks\.A\.emit\[0\]\.when: "run_open" is a plain \(literal\) value, but this position takes an expression: write `=run_open`/,
  },
  {
    name: 'a computed emit type',
    rule: '        data: {}\n      - type: \'="x.t." & kind\'',
    want: /^t\.yaml:10:15 unknown-event-type: hooks\.A\.emit\[1\]\.type: an emit's type is a literal AEP type/,
  },
  {
    name: 'an error inside a marked expression, located past the mark',
    rule: `        data: { a: '=b ! c' }`,
    want: /^t\.yaml:9:24 invalid-expression: hooks\.A\.emit\[0\]\.data\.a: S0204 Unknown operator: "!" \(at 1:3 in the expression\)/,
  },
];

describe('literals are literal', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const r = await fire(descriptor(row.rule), row.payload);
      expect(r.errors).toBeUndefined();
      expect(r.events).toEqual([row.want]);
    });
  }
});

describe('unmarked expressions are refused with the fix', () => {
  for (const row of errors) {
    it(row.name, async () => {
      const r = await fire(descriptor(row.rule, row.extra));
      expect(r.errors).toHaveLength(1);
      expect(r.errors![0]).toMatch(row.want);
    });
  }
});

describe('fallback.type', () => {
  const text = (type: string) => `vendor: t
name: T
surface: { kind: command-hook, pin: test, hook_name: =hook }
identity: { session: =sid }
hooks: { A: { emit: [] } }
fallback: { type: ${type}, data: {} }
replies: { neutral: "" }
capabilities: {}
posture: observe-only
`;
  it('takes a literal type', async () => {
    const m = new Mapper(compileDescriptor('t.yaml', text('x.t.hook.other')).descriptor!);
    expect((await m.map(undefined, { hook: 'B', sid: 's' })).events[0].type).toBe('x.t.hook.other');
  });
  it('or an expression computing one', async () => {
    const m = new Mapper(compileDescriptor('t.yaml', text(`'="x.t.hook." & $snake($hook)'`)).descriptor!);
    expect((await m.map(undefined, { hook: 'PostThing', sid: 's' })).events[0].type).toBe('x.t.hook.post_thing');
  });
});
