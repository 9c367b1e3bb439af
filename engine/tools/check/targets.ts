// What `hookmap check` checks: a descriptor file and the fixture folder that
// goes with it. A vendor's fixtures live in fixtures/<agent>/; any other
// descriptor (a named invalid fixture, a draft) keeps them beside itself, in
// a folder named like the file: <dir>/<name>.yaml + <dir>/<name>/.
import { basename, dirname, join, relative, resolve } from 'node:path';
import { descriptorPath, FIXTURES_DIR, ROOT, VENDORS_DIR } from '../../core/descriptor/registry.ts';

export interface CheckTarget {
  /** The file name without extension: what the descriptor's `vendor` must say. */
  agent: string;
  path: string;
  /** How the descriptor is named in errors (repo-relative when inside the repo). */
  display: string;
  fixturesDir: string;
  fixturesLabel: string;
}

export function repoRelative(abs: string): string {
  const rel = relative(ROOT, abs);
  return rel && !rel.startsWith('..') ? rel.split('\\').join('/') : abs;
}

/** A vendor id (vendors/<id>.yaml) or a path to a descriptor file. */
export function checkTarget(nameOrPath: string): CheckTarget {
  const path = descriptorPath(nameOrPath);
  const agent = basename(path).replace(/\.ya?ml$/, '');
  const fixturesDir = resolve(dirname(path)) === resolve(VENDORS_DIR) ? join(FIXTURES_DIR, agent) : join(dirname(path), agent);
  return { agent, path, display: repoRelative(path), fixturesDir, fixturesLabel: repoRelative(fixturesDir) };
}
