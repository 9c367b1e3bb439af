// Well-formed text from untrusted payloads: a lone UTF-16 surrogate (legal in
// JSON's \uXXXX escapes, illegal in UTF-8 and in URIs) is replaced with
// U+FFFD before any string is used (AEP-0001 §5: every attribute is a
// Unicode string; encodeURIComponent and Buffer.from would otherwise throw
// or silently mangle it). Keys are made well-formed too.
type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };

/** `s` with every lone surrogate replaced by U+FFFD (the same string when there is none). */
export function wellFormed(s: string): string {
  const w = s as unknown as WellFormed;
  return w.isWellFormed() ? s : w.toWellFormed();
}

/**
 * A JSON value with every string (values and keys) well-formed. Walks
 * iteratively so a deeply nested payload cannot overflow the stack; returns
 * the input unchanged (same object) when nothing needed replacing.
 */
export function wellFormedDeep<T>(value: T): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  if (!value || typeof value !== 'object') return value;
  if (!needsFix(value)) return value;
  return fix(value) as T;
}

function needsFix(root: object): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (!(v as unknown as WellFormed).isWellFormed()) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (!(k as unknown as WellFormed).isWellFormed()) return true;
        stack.push(x);
      }
    }
  }
  return false;
}

/** Rebuild with JSON.stringify's replacer (iterative inside V8, no JS recursion of ours). */
function fix(root: object): unknown {
  const text = JSON.stringify(root, function (this: unknown, _k, v) {
    if (typeof v === 'string') return wellFormed(v);
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      let bad = false;
      for (const k of Object.keys(v)) if (!(k as unknown as WellFormed).isWellFormed()) bad = true;
      if (!bad) return v;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[wellFormed(k)] = x;
      return out;
    }
    return v;
  });
  return JSON.parse(text);
}

/** Nesting a payload may have (objects and arrays inside each other): real hook payloads stay far below it. */
export const MAX_PAYLOAD_DEPTH = 64;

/** Whether `value` nests deeper than `max` levels (walked iteratively: a deep value cannot overflow the stack here). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x && typeof x === 'object') stack.push([x, depth + 1]);
  }
  return false;
}
