// The stream-subscriber surface's descriptor data (engine/core/descriptor/types.ts
// CompiledStream): field paths are dotted JSON paths, not expressions, and
// strings carry {name} placeholders ({id}, {key}, {cursor}). Design: the AEP
// design record of the agent-server bridge in docs/components ("Attach shape").

/** The value at a field path in parsed JSON (undefined when any step is missing). */
export const getPath = (obj: unknown, path: string[] | undefined): unknown => {
  if (!path) return undefined;
  let v: any = obj;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[p];
  }
  return v;
};

/** {name} placeholders in every string leaf. */
export function fill<T>(v: T, vars: Record<string, string | undefined>): T {
  if (typeof v === 'string') return v.replace(/\{(\w+)\}/g, (m, k) => (vars[k] !== undefined ? vars[k]! : m)) as T;
  if (Array.isArray(v)) return v.map((x) => fill(x, vars)) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, vars)])) as T;
  return v;
}
