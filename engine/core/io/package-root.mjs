// The package's (or the clone's) root folder, found by walking up from the
// module asking: the first folder holding both package.json and vendors/. A
// module names a shipped file through it (schemas/, vendors/, bin/), so the
// path holds wherever the module sits: in the sources (engine/<layer>/<unit>/),
// in the package's bundle (dist/engine/) and in a standalone program
// (engine/runtime/shim/*.mjs).
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The root above the module at `url` (a file: URL), ending in a separator. */
export function packageRootFrom(url) {
  let d = dirname(fileURLToPath(url));
  for (;;) {
    if (existsSync(join(d, 'package.json')) && existsSync(join(d, 'vendors'))) return d.endsWith(sep) ? d : d + sep;
    const up = dirname(d);
    if (up === d) throw new Error(`hookmap: no package root above ${fileURLToPath(url)}`);
    d = up;
  }
}

export const PACKAGE_ROOT = packageRootFrom(import.meta.url);
