// What a validated-descriptor cache entry is valid for (engine/descriptor/
// descriptor-cache.ts): this hookmap's version; in a clone (sources run
// through tsx, the version unchanged while they are edited) also the latest
// change time of everything that decides whether a descriptor is valid, so an
// edited check or schema is never skipped.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DECIDING = [
  'engine/descriptor',
  'engine/expr',
  'engine/aep',
  'engine/capabilities',
  'engine/generated',
  'schemas',
  'schemas/aep',
  'schemas/aep/types',
  'schemas/aep/registry',
];

export function hookmapStamp(clone: boolean): string {
  let version = '?';
  try {
    version = String(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  } catch {
    // no package.json beside the engine: the version is unknown, the sources' times still count
  }
  if (!clone) return version;
  let latest = 0;
  for (const d of DECIDING) {
    let names: string[];
    try {
      names = readdirSync(join(ROOT, d));
    } catch {
      continue;
    }
    for (const n of names) {
      try {
        latest = Math.max(latest, statSync(join(ROOT, d, n)).mtimeMs);
      } catch {
        // gone meanwhile
      }
    }
  }
  return `${version}+${latest}`;
}
