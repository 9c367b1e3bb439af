// Where the shipped descriptors and their fixtures are, and which vendors
// there are: plain file lookups, importable without the descriptor compiler
// (registry.ts re-exports them beside the loader).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../io/package-root.mjs';

export const ROOT = PACKAGE_ROOT;
export const VENDORS_DIR = join(ROOT, 'vendors');
export const FIXTURES_DIR = join(ROOT, 'fixtures');

export function listVendors(): string[] {
  return readdirSync(VENDORS_DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => f.replace(/\.ya?ml$/, ''))
    .sort();
}

/** A vendor's descriptor file, or undefined. */
export function vendorFile(agent: string): string | undefined {
  return ['yaml', 'yml'].map((x) => join(VENDORS_DIR, `${agent}.${x}`)).find((p) => existsSync(p));
}
