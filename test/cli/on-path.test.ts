// Issue 31 item 3: `npx hookmap` works only inside the clone; the README's
// quick start puts `hookmap` on the PATH with `npm link`, and every later
// example says `hookmap`, which then works from any folder. npm link is a
// global install of the clone as a symlink; this test makes the same link
// under a private prefix (never the machine's global folder) and runs the
// command from a folder that is not the clone.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'hookmap-on-path-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('hookmap on the PATH', () => {
  it('the README says how, and says `hookmap`, not `npx hookmap`, after it (nor does any docs page)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const quick = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Wire an agent'));
    expect(quick).toMatch(/^npm link\b/m);
    const after = readme.slice(readme.indexOf('npm link'));
    // shell lines (in code blocks) that run the command
    const npx = after.split('\n').filter((l) => /^\s*(\S+=\S+\s+)*npx hookmap\b/.test(l));
    expect(npx).toEqual([]);
    // the manual moved to docs/ (issue 45): its examples say `hookmap` too
    for (const f of readdirSync(join(ROOT, 'docs')).filter((x) => x.endsWith('.md'))) {
      const lines = readFileSync(join(ROOT, 'docs', f), 'utf8').split('\n');
      expect(lines.filter((l) => /^\s*(\S+=\S+\s+)*npx hookmap\b/.test(l)).map((l) => `docs/${f}: ${l}`)).toEqual([]);
    }
  });

  it('npm link makes a command that runs from any folder', () => {
    const prefix = join(tmp, 'prefix');
    // what `npm link` does, under a private prefix: a symlinked global install of the clone (no network)
    const link = spawnSync('npm', ['install', '-g', ROOT, '--prefix', prefix, '--no-audit', '--no-fund', '--offline'], { encoding: 'utf8', timeout: 120_000 });
    expect(link.status, link.stderr).toBe(0);
    const bin = join(prefix, 'bin', 'hookmap');
    expect(realpathSync(bin)).toBe(realpathSync(join(ROOT, 'bin', 'hookmap.mjs')));
    const elsewhere = mkdtempSync(join(tmp, 'project-'));
    const env = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, HOOKMAP_HOME: join(tmp, 'home') };
    const help = spawnSync('hookmap', ['--help'], { cwd: elsewhere, env, encoding: 'utf8', timeout: 60_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/hookmap/);
    const caps = spawnSync('hookmap', ['capabilities', 'claude-code', '--json'], { cwd: elsewhere, env, encoding: 'utf8', timeout: 60_000 });
    expect(caps.status).toBe(0);
    expect(JSON.parse(caps.stdout).agents[0].agent).toBe('claude-code');
  }, 180_000); // a link of the clone runs its prepare (the build) first
});
