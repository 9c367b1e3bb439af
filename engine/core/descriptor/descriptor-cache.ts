// Descriptors validated before, kept by content hash: `up` loads every
// descriptor at each start, and checking one (the descriptor schema's ajv
// pass, every expression compiled and its names and fields checked) is most
// of that start. An entry says "these exact bytes passed every check of this
// hookmap" and holds their parsed value, so a later load builds the
// descriptor from it without the checks, each expression compiled on first
// use (expr/compile.ts lazyCompiled). The key hashes the entry format, the
// hookmap stamp the CLI names (its version; in a clone also the sources'
// change times, so an edited check is never skipped) and the descriptor's
// bytes: a changed descriptor, or another hookmap, never finds an entry. An
// entry that does not read back as one is ignored (the full compile runs and
// rewrites it). Without a folder (cacheDescriptorsIn) nothing is kept. The
// package ships the entries of its own vendors (npm run build:
// codegen/bundle.mjs), so a first start in a new home skips their checks too.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonSafe } from './yaml-cache.ts';

/** Bumped when the entry's shape or what "validated" covers changes. */
const FORMAT = 'descriptor-validated/1';

let dir: string | undefined;
let shipped: string | undefined;
let stamp = '';

/** `shippedFolder`: entries the package was built with (its own vendors, npm run build), read when `folder` has none; never written. */
export function cacheDescriptorsIn(folder: string | undefined, hookmapStamp: string, shippedFolder?: string): void {
  dir = folder;
  shipped = shippedFolder;
  stamp = hookmapStamp;
}

const entryName = (text: string) => `${createHash('sha256').update(FORMAT).update('\0').update(stamp).update('\0').update(text).digest('hex')}.json`;

function entryFile(text: string): string | undefined {
  return dir ? join(dir, entryName(text)) : undefined;
}

/** The parsed value of bytes validated before, or undefined (not kept, unreadable, not an entry). */
export function validatedValue(text: string): Record<string, unknown> | undefined {
  if (!dir) return undefined;
  for (const folder of shipped ? [dir, shipped] : [dir]) {
    try {
      const e = JSON.parse(readFileSync(join(folder, entryName(text)), 'utf8')) as { format?: unknown; digest?: unknown; value?: unknown };
      const v = e?.value as Record<string, unknown> | undefined;
      // the digest: an entry damaged after it was written (or not written by this code) is not an entry
      if (e.format === FORMAT && v && typeof v === 'object' && !Array.isArray(v) && typeof v.vendor === 'string' && e.digest === digestOf(v)) return v;
    } catch {
      // not kept yet, or not an entry
    }
  }
  return undefined;
}

const digestOf = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');

/** Remember that these bytes passed every check (best effort). */
export function markValidated(text: string, value: unknown): void {
  const file = entryFile(text);
  // only what survives the file unchanged (a YAML .inf would come back as null)
  if (!file || !jsonSafe(value)) return;
  try {
    mkdirSync(dir!, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ format: FORMAT, digest: digestOf(value), value }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // a cache is best effort
  }
}
