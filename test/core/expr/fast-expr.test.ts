// The direct-closure subset must agree with JSONata on every expression it
// accepts, and bail out (to JSONata) wherever the semantics get subtle.
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { evaluate, isFast, tryCompile, type Expr } from '../../../engine/core/expr/compile.ts';
import { EXPR_FUNCTIONS } from '../../../engine/core/expr/functions.ts';

const inputs: unknown[] = [
  {
    a: 'x',
    b: { c: 1, d: [1, 2] },
    n: 0,
    e: '',
    t: true,
    nul: null,
    arr: [{ k: 1 }, { k: 2 }],
    one: [7],
    tool_name: 'Bash',
    tool_input: { command: 'ls', description: 'list' },
  },
  { a: 3, b: null, tool_name: 'AskUserQuestion', tool_input: { command: ['git', 'status'] } },
  {},
];
const bindings = { hook: 'SomeFutureHook', config: { gate: true, tools: ['Bash', 'Edit'] }, run: undefined, tool: { name: 'x' } };

const cases = [
  'a',
  'b.c',
  'b.d',
  'arr.k',
  'one',
  'missing.deeper',
  'nul',
  '$',
  '$hook',
  '$config.gate',
  '$config.tools',
  '"lit"',
  '42',
  'true',
  'null',
  '{ "x": a, "y": missing, "z": { "w": b.c } }',
  '[a, missing, b.d, [1, 2]]',
  '[]',
  '{}',
  'a = "x"',
  'a != "x"',
  'missing = "x"',
  'missing != "x"',
  'b = b',
  'a in ["x", "y"]',
  'tool_name in $config.tools',
  'a & "-" & b.c',
  'missing & "!"',
  'n & ""',
  't and a',
  'e or n',
  'e or a',
  'arr and a',
  '$exists(a) ? "yes" : "no"',
  'e ? 1 : 2',
  'n ? 1',
  '$not(e)',
  '$boolean(a)',
  '$count(b.d)',
  '$count(missing)',
  '$string(a)',
  '$string(b)',
  '$lowercase(tool_name)',
  '$join(tool_input.command, " ")',
  '$isstring(tool_input.command) ? tool_input.command : $join(tool_input.command, " ")',
  '($x := a; $y := $x & "!"; $y)',
  '($__when := tool_name = "Bash"; $__when ? {"ok": $__when})',
  '$snake($hook)',
  '$token("Some Thing")',
  '$digest(b)',
  '"Permission requested: " & tool_name & ($exists(tool_input.command) ? " — " & ' +
    '($isstring(tool_input.command) ? tool_input.command : $join(tool_input.command, " ")) : ' +
    '"") & ($exists(tool_input.description) ? " (" & tool_input.description & ")" : "")',
];

function plainJsonata(src: string): Expr {
  const e = jsonata(src);
  for (const [name, fn] of Object.entries(EXPR_FUNCTIONS)) e.registerFunction(name, fn as any);
  return e;
}

describe('fast expression subset', () => {
  it('compiles the common descriptor expressions to closures', () => {
    for (const src of ['session_id', '{ "name": tool_name, "call_id": tool_use_id }', '"x.codex.session." & $snake($hook)', 'a in ["x"]']) {
      expect(isFast(tryCompile(src, []) as Expr), src).toBe(true);
    }
    for (const src of ['a[0]', '$map(a, function($v) { $v })', 'a.*', '**.b', 'a ~> $uppercase()']) {
      expect(isFast(tryCompile(src, []) as Expr), src).toBe(false);
    }
  });
  for (const src of cases) {
    it(`agrees with JSONata: ${src}`, async () => {
      const fast = tryCompile(src, []) as Expr;
      for (const input of inputs) {
        let want: unknown, got: unknown, wantErr: unknown, gotErr: unknown;
        try {
          want = JSON.parse(JSON.stringify(await plainJsonata(src).evaluate(input, bindings)) ?? 'null');
        } catch (e) {
          wantErr = e;
        }
        try {
          got = JSON.parse(JSON.stringify(await evaluate(fast, input, bindings)) ?? 'null');
        } catch (e) {
          gotErr = e;
        }
        expect(!!gotErr, `${src} on ${JSON.stringify(input)}: error ${String(gotErr ?? wantErr)}`).toBe(!!wantErr);
        expect(got, `${src} on ${JSON.stringify(input)}`).toEqual(want);
      }
    });
  }
});
