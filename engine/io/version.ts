// hookmap's own version: package.json's, read once (`--version`, the launcher and shim stamps).
import { readFileSync } from 'node:fs';

let version: string | undefined;

export function hookmapVersion(): string {
  version ??= String(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
  return version;
}
