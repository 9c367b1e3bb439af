// The `yaml` package, loaded at its first use rather than with the module
// naming it: `hookmap up` reads no YAML at all when its descriptors come
// from the validated cache and it has no config file (node type checks such
// as isMap use global symbols, so this copy and an ESM import agree).
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);
let mod: typeof import('yaml') | undefined;

export function yaml(): typeof import('yaml') {
  return (mod ??= load('yaml') as typeof import('yaml'));
}
