// The broken corpus: fixtures/_invalid/<name>.yaml (+ <name>/ fixtures,
// + <name>.expect.txt golden output), shared by the tests that walk it.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from '../../../engine/core/descriptor/registry.ts';

export const INVALID_DIR = join(FIXTURES_DIR, '_invalid');
export const invalidNames = () =>
  readdirSync(INVALID_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''))
    .sort();
