// JSONata compilation for descriptors. Templates (YAML values whose string
// leaves marked `=` are expressions, everything else literal; see marked.ts)
// are turned into ONE JSONata source so a firing evaluates one expression per
// emit, not one per field.
import type jsonataFn from 'jsonata';
import { EXPR_FUNCTIONS } from './functions.ts';
import { BAIL, compileFast, type FastFn } from './fast.ts';
import { exprText, isMarked, jsonata, EXPR_MARK } from './marked.ts';

export type Expr = jsonataFn.Expression;

export interface ExprFailure {
  path: (string | number)[];
  /** Index of the error inside `source` (the expression, without its `=` mark). */
  index: number;
  message: string;
  code?: string;
  source: string;
  /** Characters before the expression in the YAML scalar (the `=` mark). */
  lead?: number;
}

let fastExpressions = true;
/** The CLI edge's switch (HOOKMAP_NO_FAST_EXPR): false evaluates every expression by JSONata itself. */
export function useFastExpressions(on: boolean): void {
  fastExpressions = on;
}

/** Compile one expression; returns the failure (with the index inside the source) instead of throwing. */
export function tryCompile(source: string, path: (string | number)[]): Expr | ExprFailure {
  try {
    const e = jsonata()(source);
    for (const [name, fn] of Object.entries(EXPR_FUNCTIONS)) e.registerFunction(name, fn as any);
    const fast = fastExpressions ? compileFast(e.ast()) : null;
    if (fast) (e as any)[FAST] = fast;
    return e;
  } catch (err: any) {
    const token: string = err?.token ?? '';
    const end = typeof err?.position === 'number' ? err.position : 0;
    const index = Math.max(0, end - (token ? String(token).length : 1));
    return { path, index, message: `${err?.code ? `${err.code} ` : ''}${err?.message ?? String(err)}`, code: err?.code, source };
  }
}

/**
 * An expression already checked (its descriptor's bytes validated by this
 * hookmap before: engine/core/descriptor/descriptor-cache.ts): compiled on first
 * use, or by compilePending() in the background once the daemon listens.
 */
const REAL = Symbol('real');
const pending = new Set<() => void>();
export function lazyCompiled(source: string, path: (string | number)[]): Expr {
  let real: Expr | undefined;
  const force = (): Expr => {
    if (!real) {
      pending.delete(force);
      const c = tryCompile(source, path);
      // compiled without error when its descriptor's bytes were validated: the same source cannot fail now
      if (isFailure(c)) throw new Error(`${path.join('.')}: ${c.message}`);
      real = c;
    }
    return real;
  };
  pending.add(force);
  return new Proxy({} as Expr, {
    get(_t, k) {
      if (k === REAL) return force();
      const r = force() as unknown as Record<string | symbol, unknown>;
      const v = r[k];
      return typeof v === 'function' ? v.bind(r) : v;
    },
    has: (_t, k) => k in force(),
  });
}

/** Compile every lazy expression not used yet, one per macrotask (a hook arriving meanwhile is answered in between). */
export async function compilePending(): Promise<void> {
  for (const force of [...pending]) {
    await new Promise<void>((r) => setImmediate(r));
    try {
      force();
    } catch {
      // reported by the first use
    }
  }
}

/** Lazy expressions not compiled yet (tests). */
export const pendingCompiles = (): number => pending.size;

/** Compile a marked expression (`=<jsonata>`); a failure is located inside the expression, `lead` counting the mark. */
export function compileMarked(marked: string, path: (string | number)[]): Expr | ExprFailure {
  const c = tryCompile(exprText(marked), path);
  return isFailure(c) ? { ...c, lead: EXPR_MARK.length } : c;
}

export function isFailure(x: Expr | ExprFailure): x is ExprFailure {
  return (x as ExprFailure).source !== undefined && (x as ExprFailure).message !== undefined && !(x as any).evaluate;
}

/**
 * Turn a template into JSONata source, checking each expression leaf on its
 * own first so errors point at the leaf. String leaves marked `=` are
 * expressions; every other scalar is a literal; mappings and sequences
 * become constructors.
 */
export function templateSource(
  tpl: unknown,
  path: (string | number)[],
  failures: ExprFailure[],
  onLeaf?: (e: Expr, path: (string | number)[]) => void,
  check = true,
): string {
  if (isMarked(tpl)) {
    if (!check) return `(${exprText(tpl)}\n)`;
    const c = compileMarked(tpl, path);
    if (isFailure(c)) failures.push(c);
    else onLeaf?.(c, path);
    return `(${exprText(tpl)}\n)`;
  }
  if (tpl === null || typeof tpl === 'string' || typeof tpl === 'number' || typeof tpl === 'boolean') return JSON.stringify(tpl);
  if (Array.isArray(tpl)) return `[${tpl.map((t, i) => templateSource(t, [...path, i], failures, onLeaf, check)).join(', ')}]`;
  if (typeof tpl === 'object') {
    const parts = Object.entries(tpl as Record<string, unknown>).map(
      ([k, v]) => `${JSON.stringify(k)}: ${templateSource(v, [...path, k], failures, onLeaf, check)}`,
    );
    return `{${parts.join(', ')}}`;
  }
  return 'undefined';
}

/** Evaluate and return plain JSON (JSONata sequences and frozen arrays normalized). */
export function evaluate(lazyOrReal: Expr, input: unknown, bindings: Record<string, unknown>): unknown | Promise<unknown> {
  const expr = ((lazyOrReal as any)[REAL] as Expr | undefined) ?? lazyOrReal;
  const fast = (expr as any)[FAST] as FastFn | undefined;
  if (fast) {
    try {
      return plain(fast(input, bindings));
    } catch (e) {
      if (e !== BAIL) throw e;
    }
  }
  return expr.evaluate(input, bindings).then(plain);
}

/** Where a compiled expression keeps its direct closure, when the subset allows one. */
const FAST = Symbol('fast');
/** Was this expression compiled to a direct closure? (tests, docs) */
export const isFast = (expr: Expr): boolean => !!(expr as any)[FAST];

export function plain(v: unknown): unknown {
  if (v === undefined || v === null) return v;
  if (typeof v === 'function') return undefined;
  if (Array.isArray(v)) {
    const arr = v.map(plain).filter((x) => x !== undefined);
    return arr;
  }
  if (typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const p = plain(x);
      if (p !== undefined) o[k] = p;
    }
    return o;
  }
  return v;
}
