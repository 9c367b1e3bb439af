// A direct-to-closure compiler for the common subset of JSONata that
// descriptors use (field paths, literals, object/array constructors,
// conditions, comparisons, string concatenation, a few functions). Anything
// outside the subset is left to JSONata at compile time; any runtime value
// whose JSONata semantics are subtle (an array met mid-path, an object
// compared with `=`) bails out to JSONata for that evaluation. The result is
// always what JSONata itself would produce; tests compare the two.
import { EXPR_FUNCTIONS } from './functions.ts';

export const BAIL: unique symbol = Symbol('bail-to-jsonata');
type Scope = Record<string, unknown>;
export type FastFn = (input: unknown, scope: Scope) => unknown;
/** Block-local variables live in frames, resolved to (depth, slot) at compile time. */
type Frames = unknown[][];
type Fn = (input: unknown, scope: Scope, frames: Frames) => unknown;
type Env = Map<string, number>[];

class Reject extends Error {}

export function compileFast(ast: any): FastFn | null {
  try {
    const fn = node(ast, []);
    return (input, scope) => fn(input, scope, []);
  } catch (e) {
    if (e instanceof Reject) return null;
    throw e;
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const bail = (): never => {
  throw BAIL;
};

function boolize(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0;
  if (Array.isArray(v) || typeof v === 'function') return bail();
  return Object.keys(v as object).length > 0;
}

function str(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return bail();
}

const primitive = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

const BUILTINS: Record<string, (...a: unknown[]) => unknown> = {
  exists: (x) => x !== undefined,
  not: (x) => (x === undefined ? undefined : !boolize(x)),
  boolean: (x) => (x === undefined ? undefined : boolize(x)),
  count: (x) => (x === undefined ? 0 : Array.isArray(x) ? x.length : 1),
  string: (x) => (x === undefined ? undefined : typeof x === 'string' ? x : primitive(x) && x !== null ? str(x) : bail()),
  lowercase: (x) => (x === undefined ? undefined : typeof x === 'string' ? x.toLowerCase() : bail()),
  uppercase: (x) => (x === undefined ? undefined : typeof x === 'string' ? x.toUpperCase() : bail()),
  join: (arr, sep) => {
    if (arr === undefined) return undefined;
    if (typeof arr === 'string') return arr;
    if (!Array.isArray(arr) || !arr.every((s) => typeof s === 'string')) return bail();
    if (sep !== undefined && typeof sep !== 'string') return bail();
    return arr.join((sep as string | undefined) ?? '');
  },
};

function node(n: any, env: Env): Fn {
  switch (n.type) {
    case 'string':
    case 'number':
    case 'value': {
      const v = n.value;
      return () => v;
    }
    case 'variable': {
      if (n.predicate || n.stages) throw new Reject();
      const name = n.value as string;
      if (name === '') return (input) => input;
      for (let depth = env.length - 1; depth >= 0; depth--) {
        const slot = env[depth].get(name);
        if (slot !== undefined) return (_i, _s, frames) => frames[depth][slot];
      }
      return (_i, scope) => scope[name];
    }
    case 'path':
      return path(n, env);
    case 'block':
      return block(n, env);
    case 'bind':
      throw new Reject(); // only inside blocks
    case 'condition': {
      const c = node(n.condition, env),
        t = node(n.then, env),
        e = n.else ? node(n.else, env) : undefined;
      return (i, s, f) => (boolize(c(i, s, f)) ? t(i, s, f) : e ? e(i, s, f) : undefined);
    }
    case 'binary':
      return binary(n, env);
    case 'unary':
      return unary(n, env);
    case 'function':
      return call(n, env);
    default:
      throw new Reject();
  }
}

function path(n: any, env: Env): Fn {
  if (n.keepSingletonArray || n.tuple || n.group || n.seekingParent) throw new Reject();
  const steps = n.steps as any[];
  let start: Fn | undefined;
  let names: string[];
  if (steps[0].type === 'variable') {
    start = node({ ...steps[0] }, env);
    names = steps.slice(1).map(nameOf);
  } else names = steps.map(nameOf);
  return (input, scope, frames) => {
    let v: unknown = start ? start(input, scope, frames) : input;
    for (const name of names) {
      if (v === undefined) return undefined;
      if (Array.isArray(v)) return bail();
      if (!isObj(v)) return undefined;
      v = v[name];
    }
    if (Array.isArray(v)) return bail();
    return v;
  };
}

function nameOf(step: any): string {
  if (step.type !== 'name' || step.stages || step.predicate || step.group || step.focus || step.index || step.tuple || step.keepArray) throw new Reject();
  return step.value;
}

function block(n: any, env: Env): Fn {
  const slots = new Map<string, number>();
  const inner: Env = [...env, slots];
  const parts: ({ slot: number; fn: Fn } | Fn)[] = (n.expressions as any[]).map((e) => {
    if (e.type === 'bind') {
      if (e.lhs?.type !== 'variable') throw new Reject();
      const fn = node(e.rhs, inner);
      const name = e.lhs.value as string;
      if (!slots.has(name)) slots.set(name, slots.size);
      return { slot: slots.get(name)!, fn };
    }
    return node(e, inner);
  });
  return (input, scope, frames) => {
    const frame: unknown[] = new Array(slots.size);
    frames.push(frame);
    try {
      let last: unknown;
      for (const p of parts) {
        if (typeof p === 'function') last = p(input, scope, frames);
        else {
          last = p.fn(input, scope, frames);
          frame[p.slot] = last;
        }
      }
      return last;
    } finally {
      frames.pop();
    }
  };
}

function binary(n: any, env: Env): Fn {
  const l = node(n.lhs, env),
    r = node(n.rhs, env);
  switch (n.value) {
    case '&':
      return (i, s, f) => str(l(i, s, f)) + str(r(i, s, f));
    case 'and':
      return (i, s, f) => boolize(l(i, s, f)) && boolize(r(i, s, f));
    case 'or':
      return (i, s, f) => boolize(l(i, s, f)) || boolize(r(i, s, f));
    case '=':
    case '!=': {
      const neg = n.value === '!=';
      return (i, s, f) => {
        const a = l(i, s, f),
          b = r(i, s, f);
        if (a === undefined || b === undefined) return false;
        if (!primitive(a) || !primitive(b)) return bail();
        return neg ? a !== b : a === b;
      };
    }
    case 'in':
      return (i, s, f) => {
        const a = l(i, s, f),
          b = r(i, s, f);
        if (a === undefined || b === undefined) return false;
        if (!primitive(a)) return bail();
        if (Array.isArray(b)) {
          if (!b.every(primitive)) return bail();
          return b.includes(a);
        }
        if (!primitive(b)) return bail();
        return a === b;
      };
    default:
      throw new Reject();
  }
}

function unary(n: any, env: Env): Fn {
  if (n.value === '{') {
    const pairs = (n.lhs as any[]).map(([k, v]) => {
      if (k.type !== 'string') throw new Reject();
      return [k.value as string, node(v, env)] as const;
    });
    return (input, scope, frames) => {
      if (Array.isArray(input)) return bail();
      const out: Record<string, unknown> = {};
      for (const [k, fn] of pairs) {
        if (k in out) return bail();
        const v = fn(input, scope, frames);
        if (v !== undefined) out[k] = v;
      }
      return out;
    };
  }
  if (n.value === '[') {
    const items = (n.expressions as any[]).map((e) => ({ fn: node(e, env), cons: e.type === 'unary' && e.value === '[' }));
    return (input, scope, frames) => {
      const out: unknown[] = [];
      for (const it of items) {
        const v = it.fn(input, scope, frames);
        if (v === undefined) continue;
        if (Array.isArray(v) && !it.cons) out.push(...v);
        else out.push(v);
      }
      return out;
    };
  }
  throw new Reject();
}

function call(n: any, env: Env): Fn {
  if (n.procedure?.type !== 'variable') throw new Reject();
  const name = n.procedure.value as string;
  const fn = BUILTINS[name] ?? EXPR_FUNCTIONS[name];
  if (!fn) throw new Reject();
  if (env.some((frame) => frame.has(name))) throw new Reject();
  const args = (n.arguments as any[]).map((a) => node(a, env));
  return (i, s, f) => {
    // a binding of the same name shadows the function in JSONata too
    if (s[name] !== undefined) return bail();
    return fn(...args.map((a) => a(i, s, f)));
  };
}
