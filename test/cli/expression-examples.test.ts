// Every example of the expression reference (docs/reference/expressions.md)
// is executed and yields what the reference says it yields; every binding
// and every function has one.
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { BINDING_EXAMPLES, ENGINE_FUNCTION_DOCS, ENGINE_FUNCTION_EXAMPLES, JSONATA_EXAMPLES, type Example } from '../../codegen/expression-examples.ts';
import { runExample } from '../../codegen/reference-expressions.ts';
import { BINDINGS } from '../../engine/core/expr/bindings.ts';
import { EXPR_FUNCTIONS } from '../../engine/core/expr/functions.ts';
import { JSONATA_SIGNATURES } from '../../engine/core/expr/functions-table.ts';

const all: [string, Example[]][] = [
  ['binding', BINDING_EXAMPLES],
  ['engine function', ENGINE_FUNCTION_EXAMPLES],
  ['JSONata function', JSONATA_EXAMPLES],
];

describe('expression reference examples', () => {
  for (const [kind, list] of all) {
    for (const ex of list) {
      it(`${kind} $${ex.name}: ${ex.expr}`, async () => {
        const got = await runExample(ex);
        if (ex.throws) expect(got).toEqual({ throws: ex.throws });
        else expect(got).toEqual({ result: ex.result });
      });
    }
  }
  it('covers every binding, every engine function and every JSONata built-in', () => {
    expect(BINDING_EXAMPLES.map((e) => e.name).sort()).toEqual(BINDINGS.map((b) => b.name).sort());
    expect(ENGINE_FUNCTION_EXAMPLES.map((e) => e.name).sort()).toEqual(Object.keys(EXPR_FUNCTIONS).sort());
    expect(Object.keys(ENGINE_FUNCTION_DOCS).sort()).toEqual(Object.keys(EXPR_FUNCTIONS).sort());
    expect(JSONATA_EXAMPLES.map((e) => e.name).sort()).toEqual(Object.keys(JSONATA_SIGNATURES).sort());
  });
  it('runs through the engine (its functions registered), not bare JSONata', async () => {
    await expect(jsonata('$snake("A")').evaluate({})).rejects.toThrow();
    expect(await runExample({ expr: '$snake("PreToolUse")' })).toEqual({ result: 'pre_tool_use' });
  });
});
