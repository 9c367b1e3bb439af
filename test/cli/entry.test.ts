// Issue 45, the clone as fast as the package: bin/hookmap.mjs runs the bundle
// (dist/engine/main.js) in an installed package, and in a clone only while
// no source the bundle was built from (dist/engine/build.json) changed since
// its build started; otherwise the sources through tsx, so an edit takes
// effect with no build. The real bin file in a folder laid out as a clone or
// as a package, whose two entries say which one ran.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'hookmap-entry-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const entry = (said: string) => `export async function main(argv) { process.stdout.write(${JSON.stringify(said)} + ' ' + argv.join(' ')); return 0; }\n`;

/** A folder with the real bin, a bundle that says "bundle" and (a clone) sources that say "sources". */
function layout(name: string, clone: boolean): string {
  const dir = join(tmp, name);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  mkdirSync(join(dir, 'dist', 'engine'), { recursive: true });
  copyFileSync(join(ROOT, 'bin', 'hookmap.mjs'), join(dir, 'bin', 'hookmap.mjs'));
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}');
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'dist', 'engine', 'main.js'), entry('bundle'));
  if (clone) {
    mkdirSync(join(dir, 'engine', 'cli'), { recursive: true });
    writeFileSync(join(dir, 'engine', 'cli', 'main.ts'), entry('sources'));
    writeFileSync(join(dir, 'engine', 'cli', 'other.ts'), '');
  }
  return dir;
}

const built = (dir: string, at: number, inputs = ['engine/cli/main.ts', 'engine/cli/other.ts']) =>
  writeFileSync(join(dir, 'dist', 'engine', 'build.json'), JSON.stringify({ built: at, stamp: '0.0.0+test', inputs }));

function ran(dir: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(process.execPath, [join(dir, 'bin', 'hookmap.mjs'), 'capabilities', '--json'], {
    encoding: 'utf8',
    env: { ...process.env, HOOKMAP_FROM_SOURCES: '', ...env },
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('which code a command runs', () => {
  it('a package (no sources): the bundle', () => {
    expect(ran(layout('package', false))).toBe('bundle capabilities --json');
  });

  it('a clone whose bundle is newer than every source it was built from: the bundle', () => {
    const dir = layout('fresh', true);
    built(dir, Date.now() + 60_000);
    expect(ran(dir)).toBe('bundle capabilities --json');
  });

  it('a source changed since the build started: the sources, with no build', () => {
    const dir = layout('edited', true);
    const t = Date.now();
    built(dir, t);
    const later = new Date(t + 5_000);
    utimesSync(join(dir, 'engine', 'cli', 'other.ts'), later, later);
    expect(ran(dir)).toBe('sources capabilities --json');
  });

  it('no record of the build, a broken record, an input gone, or HOOKMAP_FROM_SOURCES=1: the sources', () => {
    const none = layout('no-record', true);
    expect(ran(none)).toBe('sources capabilities --json');

    const broken = layout('broken-record', true);
    writeFileSync(join(broken, 'dist', 'engine', 'build.json'), '{"built": "yesterday", "inputs": []}');
    expect(ran(broken)).toBe('sources capabilities --json');

    const gone = layout('input-gone', true);
    built(gone, Date.now() + 60_000);
    unlinkSync(join(gone, 'engine', 'cli', 'other.ts'));
    expect(ran(gone)).toBe('sources capabilities --json');

    const forced = layout('forced', true);
    built(forced, Date.now() + 60_000);
    expect(ran(forced, { HOOKMAP_FROM_SOURCES: '1' })).toBe('sources capabilities --json');
  });
});
