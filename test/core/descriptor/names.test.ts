// Names resolved at load (docs/expressions.md): every `$variable` against its
// position's bindings, every function against JSONata's built-ins and the
// engine's (with arity), every `$config.<key>` against the config, every
// field a rule writes against its type's payload schema. One table: a rule
// as written, the one located, coded error it must give (or none).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import jsonata from 'jsonata';
import { compileDescriptor } from '../../../engine/core/descriptor/compile.ts';
import { formatError } from '../../../engine/core/descriptor/errors.ts';
import { functionTable, JSONATA_SIGNATURES, signatureArity } from '../../../engine/core/expr/functions-table.ts';

function descriptor(hook: string, top = ''): string {
  return `vendor: t
name: T
surface: { kind: command-hook, pin: test, hook_name: =hook }
identity: { session: =sid }
config: { gate: { default: false, doc: the opt-in gate }, gate_tools: { default: [], doc: the tools it holds } }
vars:
  tool: { name: =tool_name, call_id: =tool_use_id }
hooks:
  A:
${hook}
replies: { neutral: "" }
capabilities: {}
posture: observe-only
${top}`;
}

const errorsOf = (text: string) => compileDescriptor('t.yaml', text).errors.map(formatError);

const ok: { name: string; hook: string; top?: string }[] = [
  {
    name: 'engine bindings of an emit',
    hook: '    emit:\n      - { type: tool.requested, subject: =$hook & $agent & $session, cause: =$previous, data: { tool: =$tool } }',
  },
  {
    name: 'lambda parameters and := bindings',
    hook: '    emit:\n      - { type: tool.requested, data: { tool: { name: "=($n := 1; $f := function($x){ $x > 0 ? $f($x - 1) : $string($n) }; $f(2))" } } }',
  },
  {
    name: 'path variables @$ and #$',
    hook: '    emit:\n      - { type: tool.requested, data: { tool: { name: "=$join(items@$it#$i.($string($i) & $it.name), \\",\\")" } } }',
  },
  { name: 'a built-in as a value', hook: '    emit:\n      - { type: tool.requested, data: { tool: { name: "=$join($map(xs, $string), \\",\\")" } } }' },
  {
    name: 'the ~> operator counts its left side',
    hook: '    emit:\n      - { type: tool.requested, data: { tool: { name: "=tool_name ~> $substring(1)" } } }',
  },
  {
    name: 'decision bindings in decisions',
    hook: '    emit: []\n    hold: { kind: permission, decisions: { text: { message: =$text, option: =$option, tool: =$tool } } }',
  },
  {
    name: 'lookups are visible after them',
    hook:
      '    lookup: [{ table: t, key: =tool_use_id, as: pending }]\n    emit:\n      - { type: ' +
      'tool.completed, cause: =$pending, data: { tool: =$tool } }\n    store: [{ table: t, key: ' +
      '=tool_use_id, value: =$event_id }]',
  },
  { name: 'a declared config key', hook: '    emit:\n      - { type: tool.requested, when: =$config.gate, data: { tool: =$tool } }' },
  { name: 'a gated extension field', hook: '    emit:\n      - { type: tool.requested, data: { tool: =$tool, origin: =o }, gates: { origin: metadata } }' },
];

const bad: { name: string; hook: string; top?: string; want: RegExp }[] = [
  {
    name: 'a misspelt function',
    hook: '    emit:\n      - { type: tool.requested, data: { tool: { name: "=$isstrng(tool_name) ? tool_name : \\"x\\"" } } }',
    want: /^t\.yaml:11:\d+ unknown-function: hooks\.A\.emit\[0\]\.data\.tool\.name: `\$isstrng` is not a function\. Did you mean `\$isstring`\?/,
  },
  {
    name: 'a misspelt binding',
    hook: '    emit:\n      - { type: tool.requested, cause: =$previos, data: { tool: =$tool } }',
    want: /^t\.yaml:11:\d+ unknown-variable: hooks\.A\.emit\[0\]\.cause: `\$previos` is not bound here\. Did you mean `\$previous`\? Bound here: /,
  },
  {
    name: 'a binding of another position',
    hook: '    emit:\n      - { type: tool.requested, subject: =$text, data: { tool: =$tool } }',
    want: /unknown-variable: hooks\.A\.emit\[0\]\.subject: `\$text` is not bound here \(`\$text` is bound in a hold decision or outcome, a `decide` entry \(`when`, `reply`\), not in an emit\)/,
  },
  {
    name: 'too few arguments',
    hook: '    emit:\n      - { type: tool.requested, data: { tool: { name: =$substring() } } }',
    want: /function-arity: hooks\.A\.emit\[0\]\.data\.tool\.name: `\$substring` takes 2 to 3 arguments \(in a path the first may be left out: the context value is used\), given 0 \(JSONata signature <s-nn\?:s>\)/,
  },
  {
    name: 'too many arguments to an engine function',
    hook: '    emit:\n      - { type: tool.requested, data: { tool: { name: "=$snake(a, b)" } } }',
    want: /function-arity: .*`\$snake` takes 1 argument, given 2/,
  },
  {
    name: 'a value called as a function',
    hook: '    emit:\n      - { type: tool.requested, data: { tool: { name: "=$hook()" } } }',
    want: /unknown-function: .*`\$hook` is not a function \(`\$hook` is a value here, not a function\)/,
  },
  {
    name: 'an undeclared config key',
    hook: '    emit:\n      - { type: tool.requested, when: =$config.gat, data: { tool: =$tool } }',
    want: /unknown-field: hooks\.A\.emit\[0\]\.when: `\$config\.gat`: the descriptor's `config` has no key `gat`\. Did you mean `gate`\?/,
  },
  {
    name: 'a misspelt data key',
    hook: '    emit:\n      - { type: tool.completed, data: { tool: =$tool, reslt: 1 } }',
    want: /^t\.yaml:11:\d+ unknown-field: hooks\.A\.emit\[0\]\.data\.reslt: `reslt` is not a field of tool\.completed's payload\. Did you mean `result`\?/,
  },
  {
    name: 'a misspelt key inside an expression constructor',
    hook: '    emit:\n      - { type: tool.completed, data: "={ \\"tool\\": $tool, \\"reslt\\": 1 }" }',
    want: /unknown-field: hooks\.A\.emit\[0\]\.data: `reslt` is not a field of tool\.completed's payload\. Did you mean `result`\?/,
  },
  {
    name: 'a nested unknown key',
    hook: '    emit:\n      - { type: tool.completed, data: { tool: { name: x, cal_id: =c } } }',
    want: /unknown-field: hooks\.A\.emit\[0\]\.data\.tool\.cal_id: `cal_id` is not a field of `tool` of tool\.completed\. Did you mean `call_id`\?/,
  },
  {
    name: 'a literal outside the enum',
    hook: '    emit:\n      - { type: attention.requested, data: { kind: permision, prompt: p } }',
    want: /payload-rejected: hooks\.A\.emit\[0\]\.data\.kind: "permision" is not a valid `kind` of attention\.requested\. Did you mean `permission`\? One of: /,
  },
  {
    name: 'a literal of the wrong JSON type',
    hook: '    emit:\n      - { type: tool.completed, data: { tool: =$tool, duration_ms: soon } }',
    want: /payload-rejected: hooks\.A\.emit\[0\]\.data\.duration_ms: tool\.completed wants an integer at `duration_ms`, the rule writes a string \("soon"\)/,
  },
];

describe('names and fields that resolve', () => {
  for (const row of ok) it(row.name, () => expect(errorsOf(descriptor(row.hook, row.top))).toEqual([]));
});

describe('names and fields that do not: one located, coded error', () => {
  for (const row of bad) {
    it(row.name, () => {
      const errs = errorsOf(descriptor(row.hook, row.top));
      expect(errs, errs.join('\n')).toHaveLength(1);
      expect(errs[0]).toMatch(row.want);
    });
  }
});

describe('vars', () => {
  it('see only the vars declared before them', () => {
    const text = descriptor('    emit: []').replace('vars:\n', 'vars:\n  early: =$late\n  late: 1\n');
    const errs = errorsOf(text);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^t\.yaml:7:11 unknown-variable: vars\.early: `\$late` is not bound here\./);
  });
});

describe('the function table', () => {
  it('lists exactly the built-ins the installed jsonata binds', () => {
    const src = readFileSync(fileURLToPath(new URL('../../../node_modules/jsonata/jsonata.js', import.meta.url)), 'utf8');
    const bound = [...src.matchAll(/(?:staticFrame|environment)\.bind\('([A-Za-z0-9]+)'/g)].map((m) => m[1]);
    expect(Object.keys(JSONATA_SIGNATURES).sort()).toEqual([...new Set(bound)].sort());
  });
  it('holds the signatures the evaluator itself declares', async () => {
    for (const [name, sig] of Object.entries(JSONATA_SIGNATURES)) {
      const fn: any = await jsonata(`$${name}`).evaluate({});
      expect(fn.signature.definition, name).toBe(sig);
    }
  });
  it('derives arity from a signature', () => {
    expect(signatureArity('<s-nn?:s>')).toEqual({ min: 2, max: 3, context: true });
    expect(signatureArity('<a+>')).toEqual({ min: 1, max: Infinity, context: false });
    expect(signatureArity('<s-f<s:o>n?:a<o>>')).toEqual({ min: 2, max: 3, context: true });
    expect(signatureArity('<:n>')).toEqual({ min: 0, max: 0, context: false });
    expect(functionTable().get('snake')).toMatchObject({ min: 1, max: 1, origin: 'engine' });
  });
});
