// Pure helper functions every descriptor expression can call. Kept small and
// generic: anything vendor-shaped belongs in the descriptor, not here.
import { aepDigest } from '../capture/canonical.ts';

export function snake(s: unknown): string | undefined {
  if (typeof s !== 'string') return undefined;
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** A token safe inside an AEP type segment: [a-z0-9_]. */
export function token(s: unknown): string | undefined {
  if (typeof s !== 'string') return undefined;
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .replace(/^_+|_+$/g, '') || undefined
  );
}

export const EXPR_FUNCTIONS: Record<string, (...args: any[]) => unknown> = {
  snake,
  token,
  digest: (v: unknown) => (v === undefined ? undefined : aepDigest(v)),
  /** `$nonempty(x)`: x unless it is undefined, null, '' or an empty object/array */
  nonempty: (v: unknown) => {
    if (v === undefined || v === null || v === '') return undefined;
    if (Array.isArray(v) && v.length === 0) return undefined;
    if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0) return undefined;
    return v;
  },
  /** `$obj(k, v)`: a one-key object; drops the key when v is undefined */
  isarray: (v: unknown) => Array.isArray(v),
  isobject: (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v),
  isstring: (v: unknown) => typeof v === 'string',
  /** `$parsejson(s)`: the JSON value a string holds, or undefined when it holds none (never throws) */
  parsejson: (s: unknown) => {
    if (typeof s !== 'string') return undefined;
    try {
      return JSON.parse(s);
    } catch {
      return undefined;
    }
  },
};
