// Pure helper functions every descriptor expression can call. Kept small and
// generic: anything vendor-shaped belongs in the descriptor, not here.
import { createHash } from 'node:crypto';
import { aepDigest } from '../capture/canonical.ts';

/** Hex characters `$hash` keeps: 48 bits, short enough for an id, long enough that two folders of one machine never meet. */
export const HASH_HEX = 12;

/**
 * `$hash(v)`: the first 12 hex of the SHA-256 of `v` (a string's UTF-8 bytes; anything else its JSON, so
 * `$hash([agent_id, working_directory])` derives one id from several fields); undefined, null and '' stay undefined.
 */
export function shortHash(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text === undefined ? undefined : createHash('sha256').update(text, 'utf8').digest('hex').slice(0, HASH_HEX);
}

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
  hash: (v: unknown) => shortHash(v),
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
