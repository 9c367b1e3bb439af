// Parsed YAML kept by content hash: a descriptor's parse (with the source
// positions every error points at) is most of its compile time, and `up`
// compiles every descriptor at each start. The CLI names the folder once
// (cacheYamlIn: $HOOKMAP_HOME/cache/yaml); without one nothing is kept. A
// file is the parse of exactly the bytes its name hashes, so it is never
// stale; one that does not read back is parsed again and rewritten.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Bumped when YamlData's shape or the parse options change. */
const FORMAT = 'yaml-data/1';

let dir: string | undefined;

export function cacheYamlIn(folder: string | undefined): void {
  dir = folder;
}

/** Plain JSON all the way down (a YAML .inf, a non-plain object would not survive the file). */
export function jsonSafe(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(jsonSafe);
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.values(v as object).every(jsonSafe);
  return false;
}

export function cachedYamlData<T extends { value: unknown }>(text: string, parse: (text: string) => T): T {
  if (!dir) return parse(text);
  const file = join(dir, `${createHash('sha256').update(FORMAT).update('\0').update(text).digest('hex')}.json`);
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as T;
    if (data && typeof data === 'object' && 'value' in data) return data;
  } catch {
    // not kept yet (or unreadable): parse it
  }
  const data = parse(text);
  if (data.value === undefined || !jsonSafe(data.value)) return data;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(data), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // a cache is best effort
  }
  return data;
}
