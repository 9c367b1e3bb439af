// The hot-path validators (schemas.ts) kept as code by content hash:
// compiling the envelope's validator (with loading ajv itself) is hundreds of
// milliseconds of a daemon's first event, or of the warm-up `up` runs the
// moment it is ready; reading its generated code back is a few. An entry is
// ajv's standalone code for exactly this schema, compiled by this ajv for
// this hookmap (the key hashes the entry format, the hookmap stamp the CLI
// names, ajv's version and the schema), with a digest of the code: an entry
// damaged after it was written (or not written here) is not one, and is
// compiled again and rewritten. The folder is the user's own
// ($HOOKMAP_HOME/cache/validators, 0700, beside the token): nothing there is
// anyone else's code, but for the entries the package itself ships (npm run
// build: codegen/bundle.mjs), beside its own modules. Without a folder
// (cacheValidatorsIn) nothing is kept.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';

/** Bumped when the entry's shape, or the options the code is compiled with, change. */
const FORMAT = 'validator-code/1';

// what the generated code requires (ajv's runtime helpers, ajv-formats' formats) resolves from here
const load = createRequire(import.meta.url);
let dir: string | undefined;
let shipped: string | undefined;
let stamp = '';
let ajvVersion: string | undefined;

/** `shippedFolder`: the entries the package was built with (npm run build), read when `folder` has none; never written. */
export function cacheValidatorsIn(folder: string | undefined, hookmapStamp: string, shippedFolder?: string): void {
  dir = folder;
  shipped = shippedFolder;
  stamp = hookmapStamp;
}

function entryName(schema: unknown): string | undefined {
  if (!dir) return undefined;
  ajvVersion ??= String((load('ajv/package.json') as { version: string }).version);
  const key = createHash('sha256').update(FORMAT).update('\0').update(stamp).update('\0').update(ajvVersion).update('\0').update(JSON.stringify(schema));
  return `${key.digest('hex')}.json`;
}

const digestOf = (code: string): string => createHash('sha256').update(code).digest('hex');

/** The validator of `schema`: its kept code when there is an entry, else `compile()`, kept through `code` (best effort). */
export function cachedValidator(schema: unknown, compile: () => ValidateFunction, code: (v: ValidateFunction) => string): ValidateFunction {
  const name = entryName(schema);
  const file = name && join(dir!, name);
  for (const folder of name ? (shipped ? [dir!, shipped] : [dir!]) : []) {
    try {
      const e = JSON.parse(readFileSync(join(folder, name!), 'utf8')) as { format?: unknown; digest?: unknown; code?: unknown };
      if (e.format === FORMAT && typeof e.code === 'string' && e.digest === digestOf(e.code)) {
        const mod: { exports: unknown } = { exports: {} };
        new Function('module', 'exports', 'require', e.code)(mod, mod.exports, load);
        if (typeof mod.exports === 'function') return mod.exports as ValidateFunction;
      }
    } catch {
      // not kept yet, or not an entry
    }
  }
  const v = compile();
  if (file) {
    try {
      const text = code(v);
      mkdirSync(dir!, { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ format: FORMAT, digest: digestOf(text), code: text }), { mode: 0o600 });
      renameSync(tmp, file);
    } catch {
      // a cache is best effort
    }
  }
  return v;
}
