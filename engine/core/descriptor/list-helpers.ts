// Small helpers of the descriptor build (engine/core/descriptor/build.ts): a schema-pruned list's items, a frozen result.

/** The items of a list with their original indices, items pruned for a schema error (null) left out. */
export function present<T>(list: readonly (T | null | undefined)[] | T | null | undefined): [T, number][] {
  return Array.isArray(list)
    ? (list as (T | null | undefined)[]).map((v, i) => [v, i] as [T | null | undefined, number]).filter((e): e is [T, number] => e[0] != null)
    : [];
}

export function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}
