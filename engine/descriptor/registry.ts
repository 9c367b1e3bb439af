// Finds descriptors: `vendors/<agent>.yaml` by agent id, or any path to a
// descriptor file. Loaded descriptors are cached per process.
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { loadDescriptorFile } from './compile.ts';
import { DescriptorLoadError } from './errors.ts';
import type { Descriptor } from './types.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const VENDORS_DIR = join(ROOT, 'vendors');
export const FIXTURES_DIR = join(ROOT, 'fixtures');

export function listVendors(): string[] {
  return readdirSync(VENDORS_DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => f.replace(/\.ya?ml$/, ''))
    .sort();
}

export function descriptorPath(nameOrPath: string): string {
  if (/\.ya?ml$/.test(nameOrPath) || nameOrPath.includes('/')) return resolve(nameOrPath);
  for (const ext of ['yaml', 'yml']) {
    const p = join(VENDORS_DIR, `${nameOrPath}.${ext}`);
    if (existsSync(p)) return p;
  }
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
