// Reading and writing an agent's JSON config without disturbing its style:
// the indent and the trailing newline of the original are kept, key order
// is kept (JSON.parse preserves it), a missing or empty file is `{}`.
import { existsSync, readFileSync } from 'node:fs';
import type { Json } from './formats/types.ts';

export interface JsonFile {
  path: string;
  exists: boolean;
  text: string;
  doc: Json;
  indent: string | number;
  newline: boolean;
}

export class ConfigParseError extends Error {}

export function readJsonFile(path: string): JsonFile {
  const exists = existsSync(path);
  const text = exists ? readFileSync(path, 'utf8') : '';
  let doc: unknown = {};
  if (text.trim() !== '') {
    try {
      doc = JSON.parse(text);
    } catch (err) {
      // Comments or trailing commas: we never rewrite what we cannot parse exactly.
      throw new ConfigParseError(`${path}: not plain JSON (${(err as Error).message}); edit it by hand or fix it first`);
    }
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new ConfigParseError(`${path}: the top level is not a JSON object`);
  const m = /^[{[][^\n]*\n([ \t]+)\S/.exec(text);
  return { path, exists, text, doc: doc as Json, indent: m ? (m[1].includes('\t') ? '\t' : m[1].length) : 2, newline: text === '' || text.endsWith('\n') };
}

export function serialize(doc: Json, like: Pick<JsonFile, 'indent' | 'newline'>): string {
  return JSON.stringify(doc, null, like.indent) + (like.newline ? '\n' : '');
}

/** Structural equality (key order ignored), for "did anything change". */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** Equality that ignores empty arrays and objects (`"Stop": []` vs no `Stop`): "did the user change anything that matters". */
export function sameJsonIgnoringEmpty(a: unknown, b: unknown): boolean {
  return canonical(prune(a)) === canonical(prune(b));
}

function prune(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(prune).filter((x) => !isEmpty(x));
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .map(([k, x]) => [k, prune(x)] as const)
        .filter(([, x]) => !isEmpty(x)),
    );
  return v;
}

const isEmpty = (v: unknown) => (Array.isArray(v) ? v.length === 0 : !!v && typeof v === 'object' && Object.keys(v).length === 0);

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Json)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
