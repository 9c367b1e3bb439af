// Issue 25, upgrades that do not break wired agents: the shims live in
// $HOOKMAP_HOME and reach hookmap through its launcher, which follows a moved
// checkout to the `hookmap` on PATH and is rewritten by the next `up`;
// doctor says when a shim was written by another hookmap and setup would
// change it, and is quiet once setup has.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAUNCHER, writeLauncher } from '../../../engine/runtime/shim/autostart.mjs';
import { hookmapVersion } from '../../../engine/core/io/version.ts';
import { BIN, runCli } from '../../helpers/cli.ts';
import { runProcess } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-upgrade-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('upgrades', () => {
  it('a launcher whose hookmap moved away runs the hookmap on PATH', async () => {
    const home = join(tmp, 'moved');
    writeLauncher(home, '0.0.1', process.execPath, join(tmp, 'gone', 'bin', 'hookmap.mjs'));
    const onPath = join(tmp, 'path-bin');
    mkdirSync(onPath);
    symlinkSync(BIN, join(onPath, 'hookmap'));
    const r = await runProcess(join(home, LAUNCHER), ['--version'], '', { PATH: `${onPath}:${join(process.execPath, '..')}:/usr/bin:/bin`, HOME: home });
    expect([r.code, r.stdout.toString()]).toEqual([0, `hookmap ${hookmapVersion()}\n`]);
  });

  it('doctor names a shim another hookmap wrote; setup rewrites it and doctor is quiet', async () => {
    const home = join(tmp, 'older');
    const env = { PATH: process.env.PATH, HOME: home, HOOKMAP_HOME: join(home, '.hookmap'), HOOKMAP_URL: 'http://127.0.0.1:9', HOOKMAP_AUTOSTART: '0' };
    expect((await runCli(['setup', 'claude-code'], env)).code).toBe(0);
    const sh = join(home, '.hookmap', 'shims', 'claude-code.sh');
    const now = readFileSync(sh, 'utf8');
    // what an older hookmap wrote: the same plan (stamp), without start on demand
    const older = now
      .replace(/^# written by hookmap .*$/m, '# written by hookmap 0.0.9')
      .replace(/^# Nothing listens:[\s\S]*?^}\n/m, '')
      .replace(/^ {2}\[ "\$\{1-\}" = down \] && autostart\n/m, '');
    expect(older).not.toBe(now);
    writeFileSync(sh, older);
    chmodSync(sh, 0o755);
    const doc = await runCli(['doctor', 'claude-code'], env);
    expect(doc.stdout).toContain(`was written by hookmap 0.0.9 (this is ${hookmapVersion()}) and setup would change it`);
    // ... and says what: the lines setup would add back (start on demand), as a diff
    expect(doc.stdout).toMatch(/^ {11}--- ~\/\.hookmap\/shims\/claude-code\.sh$/m);
    expect(doc.stdout).toMatch(/^ {11}\+# Nothing listens: start `hookmap up`/m);
    const json = JSON.parse((await runCli(['doctor', 'claude-code', '--json'], env)).stdout);
    const f = json.findings.find((x: { message: string }) => x.message.includes('setup would change it'));
    expect(f.detail.length).toBeLessThanOrEqual(14);
    expect(f.detail.at(-1)).toMatch(/more lines \(hookmap setup claude-code( --user)? --dry-run shows the whole change\)|^[ +-]/);
    // a version bump alone (nothing it does changed) is no reason to rewrite
    writeFileSync(sh, now.replace(/^# written by hookmap .*$/m, '# written by hookmap 0.0.9'));
    expect((await runCli(['doctor', 'claude-code'], env)).stdout).not.toContain('setup would change it');
    writeFileSync(sh, older);
    expect((await runCli(['setup', 'claude-code'], env)).stdout).toMatch(/regenerated shims|generated/);
    expect(readFileSync(sh, 'utf8')).toBe(now);
    expect((await runCli(['doctor', 'claude-code'], env)).stdout).not.toContain('setup would change it');
  });
});
