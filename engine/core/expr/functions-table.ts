// Every function a descriptor expression may call, with its arity: JSONata's
// built-ins (their signatures as the installed jsonata declares them; a test
// holds this table equal to the evaluator's own) plus the engine's
// (functions.ts). The name checker (names.ts) resolves `$name(...)` against
// this table when a descriptor loads.
import { EXPR_FUNCTIONS } from './functions.ts';

export interface FunctionInfo {
  name: string;
  min: number;
  /** Infinity for variadic functions. */
  max: number;
  /** The first argument may be left out in a path: the context value is used (`name.$uppercase()`). */
  context?: boolean;
  /** The JSONata signature (built-ins), e.g. `<s-nn?:s>`. */
  signature?: string;
  origin: 'jsonata' | 'engine';
}

/** JSONata 2.x built-ins and their signatures (`staticFrame.bind` plus the per-evaluation `$now`, `$millis`). */
export const JSONATA_SIGNATURES: Record<string, string> = {
  sum: '<a<n>:n>',
  count: '<a:n>',
  max: '<a<n>:n>',
  min: '<a<n>:n>',
  average: '<a<n>:n>',
  string: '<x-b?:s>',
  substring: '<s-nn?:s>',
  substringBefore: '<s-s:s>',
  substringAfter: '<s-s:s>',
  lowercase: '<s-:s>',
  uppercase: '<s-:s>',
  length: '<s-:n>',
  trim: '<s-:s>',
  pad: '<s-ns?:s>',
  match: '<s-f<s:o>n?:a<o>>',
  contains: '<s-(sf):b>',
  replace: '<s-(sf)(sf)n?:s>',
  split: '<s-(sf)n?:a<s>>',
  join: '<a<s>s?:s>',
  formatNumber: '<n-so?:s>',
  formatBase: '<n-n?:s>',
  formatInteger: '<n-s:s>',
  parseInteger: '<s-s:n>',
  number: '<(nsb)-:n>',
  floor: '<n-:n>',
  ceil: '<n-:n>',
  round: '<n-n?:n>',
  abs: '<n-:n>',
  sqrt: '<n-:n>',
  power: '<n-n:n>',
  random: '<:n>',
  boolean: '<x-:b>',
  not: '<x-:b>',
  map: '<af>',
  zip: '<a+>',
  filter: '<af>',
  single: '<af?>',
  reduce: '<afj?:j>',
  sift: '<o-f?:o>',
  keys: '<x-:a<s>>',
  lookup: '<x-s:x>',
  append: '<xx:a>',
  exists: '<x:b>',
  spread: '<x-:a<o>>',
  merge: '<a<o>:o>',
  reverse: '<a:a>',
  each: '<o-f:a>',
  error: '<s?:x>',
  assert: '<bs?:x>',
  type: '<x:s>',
  sort: '<af?:a>',
  shuffle: '<a:a>',
  distinct: '<x:x>',
  base64encode: '<s-:s>',
  base64decode: '<s-:s>',
  encodeUrlComponent: '<s-:s>',
  encodeUrl: '<s-:s>',
  decodeUrlComponent: '<s-:s>',
  decodeUrl: '<s-:s>',
  eval: '<sx?:x>',
  toMillis: '<s-s?:n>',
  fromMillis: '<n-s?s?:s>',
  clone: '<(oa)-:o>',
  now: '<s?s?:s>',
  millis: '<:n>',
};

/** Arity from a JSONata signature: `?` optional, `+` one or more, `-` may come from the context. */
export function signatureArity(sig: string): { min: number; max: number; context: boolean } {
  const body = sig.slice(1, -1);
  const params: string[] = [];
  let depth = 0;
  for (const c of body) {
    if (depth === 0 && c === ':') break;
    if (c === '<' || c === '(') {
      if (depth === 0 && c === '(') params.push('');
      depth++;
    } else if (c === '>' || c === ')') depth--;
    else if (depth > 0) continue;
    else if ('?+-'.includes(c)) params[params.length - 1] += c;
    else params.push('');
  }
  const min = params.filter((p) => !p.includes('?')).length;
  const max = params.some((p) => p.includes('+')) ? Infinity : params.length;
  return { min, max, context: params[0]?.includes('-') ?? false };
}

let table: Map<string, FunctionInfo> | undefined;
/** Every callable name: JSONata's built-ins, then the engine's (which shadow none). */
export function functionTable(): ReadonlyMap<string, FunctionInfo> {
  if (table) return table;
  table = new Map();
  for (const [name, signature] of Object.entries(JSONATA_SIGNATURES)) table.set(name, { name, ...signatureArity(signature), signature, origin: 'jsonata' });
  for (const [name, fn] of Object.entries(EXPR_FUNCTIONS)) table.set(name, { name, min: fn.length, max: fn.length, origin: 'engine' });
  return table;
}

/** Is `given` arguments a valid call (one fewer when the context can stand in for the first)? */
export function arityOk(f: FunctionInfo, given: number, partial = false): boolean {
  return given <= f.max && (partial || given >= f.min - (f.context ? 1 : 0));
}

export function arityText(f: FunctionInfo): string {
  const n =
    f.min === f.max
      ? `${f.min} argument${f.min === 1 ? '' : 's'}`
      : f.max === Infinity
        ? `at least ${f.min} argument${f.min === 1 ? '' : 's'}`
        : `${f.min} to ${f.max} arguments`;
  return f.context ? `${n} (in a path the first may be left out: the context value is used)` : n;
}
