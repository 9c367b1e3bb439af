// What a cache entry (a validated descriptor, the AEP validators' code, a
// capabilities report) is valid for: the hookmap that made it.
// - The bundle (dist/engine/: an installed package, or a clone's build that
//   is still fresh): the stamp codegen/bundle.mjs wrote beside it (the
//   version and a digest of the sources it was built from). In a clone, the
//   data it reads at run time (schemas/) can still change after the build:
//   once it has, the change time is part of the stamp too.
// - The sources (a clone through tsx, the version unchanged while they are
//   edited): the version and the latest change time of everything that
//   decides whether a descriptor is valid, so an edited check or schema is
//   never skipped.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DECIDING = [
  'engine/core/descriptor',
  'engine/core/expr',
  'engine/core/aep',
  'engine/core/capabilities',
  'engine/core/generated',
  'engine/core/kernel/generated',
  'schemas',
  'schemas/aep',
  'schemas/aep/types',
  'schemas/aep/registry',
];

function version(): string {
  try {
    return String(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  } catch {
    return '?'; // no package.json beside the engine: the version is unknown, the sources' times still count
  }
}

/** The latest change time of the files under DECIDING (0 where none is there). */
function latestChange(): number {
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
  return latest;
}

/** dist/engine/build.json, beside the module that runs, where this is the bundle. */
function buildRecord(): { stamp: string; built: number } | undefined {
  try {
    const b = JSON.parse(readFileSync(new URL('./build.json', import.meta.url), 'utf8'));
    if (typeof b.stamp === 'string' && b.stamp && Number.isFinite(b.built)) return { stamp: b.stamp, built: b.built };
  } catch {
    // not the bundle
  }
  return undefined;
}

/** The stamp of the hookmap that runs: `inClone` where its sources are beside it (the data can change after a build). */
export function hookmapStamp(inClone: boolean): string {
  const b = buildRecord();
  if (!inClone) return b?.stamp ?? version();
  const latest = latestChange();
  if (b && latest <= b.built) return b.stamp;
  return `${b?.stamp ?? version()}+${latest}`;
}

let current = '';
/** The stamp this run's caches are keyed by (set once by the CLI's main). */
export const runStamp = (): string => current;
export function setRunStamp(stamp: string): void {
  current = stamp;
}
