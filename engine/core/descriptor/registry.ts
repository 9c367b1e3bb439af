// Finds descriptors: `vendors/<agent>.yaml` by agent id, or any path to a
// descriptor file. Loaded descriptors are cached per process.
import { resolve } from 'node:path';
import { loadDescriptorFile } from './compile.ts';
import { DescriptorLoadError } from './errors.ts';
import type { Descriptor } from './types.ts';

import { listVendors, ROOT, vendorFile } from './vendor-files.ts';
export { FIXTURES_DIR, listVendors, ROOT, VENDORS_DIR, vendorFile } from './vendor-files.ts';

export function descriptorPath(nameOrPath: string): string {
  if (/\.ya?ml$/.test(nameOrPath) || nameOrPath.includes('/')) return resolve(nameOrPath);
  const p = vendorFile(nameOrPath);
  if (p) return p;
  throw new Error(`unknown agent '${nameOrPath}' (known: ${listVendors().join(', ')})`);
}

const cache = new Map<string, Descriptor>();
/** Load (or throw DescriptorLoadError with every located error). */
export function loadVendor(nameOrPath: string): Descriptor {
  const path = descriptorPath(nameOrPath);
  const hit = cache.get(path);
  if (hit) return hit;
  const res = loadDescriptorFile(path, { displayPath: path.startsWith(ROOT) ? path.slice(ROOT.length) : path });
  if (!res.descriptor) throw new DescriptorLoadError(res.errors);
  cache.set(path, res.descriptor);
  return res.descriptor;
}
