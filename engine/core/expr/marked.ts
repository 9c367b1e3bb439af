// Literal or expression, never guessed (docs/expressions.md): in a
// descriptor a plain YAML scalar is a literal value, and a string that starts
// with `=` is a JSONata expression (`subject: =tool_name`, `trigger: user`).
// Positions that only make sense as expressions (keys, conditions, identity)
// require the mark; value positions (data, subject, vars, decisions) take
// either. A plain string that reads as a JSONata expression (a variable, a
// function call, a quoted string, a constructor, a condition, `&`) is
// rejected as ambiguous: it is almost certainly an expression written
// without its mark (the convention before descriptors marked expressions).
import { createRequire } from 'node:module';
import type jsonataFn from 'jsonata';

export const EXPR_MARK = '=';

// JSONata is loaded at the first compile, not with this module: a descriptor built from the validated cache
// (descriptor/descriptor-cache.ts) compiles its expressions after `hookmap up` listens
const load = createRequire(import.meta.url);
let fn: typeof jsonataFn | undefined;
export function jsonata(): typeof jsonataFn {
  return (fn ??= load('jsonata') as typeof jsonataFn);
}

export function isMarked(v: unknown): v is string {
  return typeof v === 'string' && v.startsWith(EXPR_MARK);
}

/** The JSONata source of a marked expression (the text after `=`). */
export function exprText(marked: string): string {
  return marked.slice(EXPR_MARK.length);
}

/** Node kinds that only an expression has; paths, names and numbers are ordinary words. */
const EXPRESSION_ONLY = new Set(['variable', 'function', 'partial', 'string', 'condition', 'block', 'bind', 'regex', 'apply', 'lambda', 'transform']);

/**
 * Why a plain (unmarked) string reads as a JSONata expression, or undefined
 * when it reads as an ordinary literal (prose, identifiers, dotted names,
 * anything JSONata cannot parse).
 */
export function readsAsExpression(s: string): string | undefined {
  if (!/[$"'{[(&?]/.test(s)) return undefined;
  let ast: any;
  try {
    ast = jsonata()(s).ast();
  } catch {
    return undefined;
  }
  return feature(ast);
}

/** The plain value a JSONata literal (`"user"`, `{}`, `{ "status": "allow" }`) stands for, or undefined. */
export function jsonataLiteral(s: string): { value: unknown } | undefined {
  let ast: any;
  try {
    ast = jsonata()(s).ast();
  } catch {
    return undefined;
  }
  const v = literalOf(ast);
  return v === NOT_LITERAL ? undefined : { value: v };
}

const NOT_LITERAL = Symbol('not a literal');
function literalOf(n: any): unknown {
  if (n.type === 'string' || n.type === 'number' || n.type === 'value') return n.value;
  if (n.type === 'unary' && n.value === '{') {
    const o: Record<string, unknown> = {};
    for (const [k, v] of n.lhs) {
      const x = k.type === 'string' ? literalOf(v) : NOT_LITERAL;
      if (x === NOT_LITERAL) return NOT_LITERAL;
      o[k.value] = x;
    }
    return o;
  }
  if (n.type === 'unary' && n.value === '[') {
    const out: unknown[] = [];
    for (const e of n.expressions) {
      const x = literalOf(e);
      if (x === NOT_LITERAL) return NOT_LITERAL;
      out.push(x);
    }
    return out;
  }
  return NOT_LITERAL;
}

function feature(n: any): string | undefined {
  if (!n || typeof n !== 'object') return undefined;
  if (Array.isArray(n)) {
    for (const x of n) {
      const f = feature(x);
      if (f) return f;
    }
    return undefined;
  }
  if (n.type === 'variable') return n.value === '' ? 'the context variable `$`' : `the variable \`$${n.value}\``;
  if (n.type === 'function' || n.type === 'partial') return 'a function call';
  if (n.type === 'string') return 'a quoted string';
  if (n.type === 'unary' && n.value === '{') return 'an object constructor';
  if (n.type === 'unary' && n.value === '[') return 'an array constructor';
  if (n.type === 'binary' && n.value === '&') return 'the `&` operator';
  if (EXPRESSION_ONLY.has(n.type)) return `a ${n.type}`;
  for (const [k, v] of Object.entries(n)) {
    if (k === 'position' || k === 'value' || k === 'type') continue;
    const f = feature(v);
    if (f) return f;
  }
  return undefined;
}
