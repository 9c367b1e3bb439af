// hookmap's own version: package.json's, read once (`--version`, the launcher and shim stamps).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.mjs';

let version: string | undefined;

export function hookmapVersion(): string {
  version ??= String(JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version);
  return version;
}
