// Issue 25: the systemd user unit `hookmap service install --dry-run` prints
// passes systemd's own verifier (systemd-analyze verify) with no warning.
// Needs Debian's systemd package (.ci/run installs it; without it this group
// skips, and CI's HOOKMAP_REQUIRE_SYSTEMD makes that a failure).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { printed, serviceScratch } from './helpers.ts';
import { BIN, runCli } from '../../helpers/cli.ts';
import { skipReason, SYSTEMD_TOOL } from '../../helpers/optional-tools.ts';

const { tmp, envFor } = serviceScratch('hookmap-systemd-');

describe.skipIf(skipReason(SYSTEMD_TOOL))('hookmap service install --dry-run, verified by systemd', () => {
  it('Linux: a systemd unit systemd-analyze verify accepts without a warning', async () => {
    const { env } = envFor('linux', { HOOKMAP_SECRET_NAMES: 'DB_PASSWORD', HOOKMAP_TOKEN: 'never-written' });
    const r = await runCli(['service', 'install', '--dry-run', '--platform', 'linux'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`would write ${join(env.HOME!, '.config/systemd/user/hookmap.service')}:`);
    const unit = printed(r.stdout);
    expect(unit).toContain(`ExecStart=${process.execPath} ${BIN} up --host 127.0.0.1 --port 18787`);
    expect(unit).toContain(`Environment=HOOKMAP_HOME=${env.HOOKMAP_HOME}`);
    expect(unit).toContain('Environment=HOOKMAP_SECRET_NAMES=DB_PASSWORD');
    expect(unit).not.toContain('never-written');
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^WantedBy=default\.target$/m);
    const dir = mkdtempSync(join(tmp, 'verify-'));
    writeFileSync(join(dir, 'hookmap.service'), unit);
    const v = spawnSync('systemd-analyze', ['verify', join(dir, 'hookmap.service')], { encoding: 'utf8' });
    expect([v.status, v.stderr.trim()]).toEqual([0, '']);
    // the verifier is no rubber stamp: a unit whose program is not there fails it
    writeFileSync(join(dir, 'hookmap.service'), unit.replace(`ExecStart=${process.execPath}`, 'ExecStart=/nonexistent/node'));
    expect(spawnSync('systemd-analyze', ['verify', join(dir, 'hookmap.service')], { encoding: 'utf8' }).status).not.toBe(0);
  });
});
