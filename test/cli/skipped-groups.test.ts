// `npm test` on a machine without Debian's chromium or nats-server skips the
// browser and fleet groups (CI requires them instead): the run must end with
// one line naming what was skipped and the command that installs what it
// needs (issue 31, item 13; test/helpers/skip-reporter.ts). Runs the real
// vitest on two small files with both programs pointed at paths that do not exist.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

function vitest(files: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...files], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    p.stdout.on('data', (c) => (stdout += c));
    p.stderr.resume();
    p.on('close', (code) => resolve({ code, stdout }));
  });
}

/** This environment without what CI sets to require the programs, and without the outer vitest's own variables. */
function freshMachine(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VITEST|HOOKMAP_REQUIRE_)/.test(k) && k !== 'NODE_ENV' && k !== 'TEST') env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

describe('npm test on a machine without chromium and nats-server', () => {
  it('ends with one line: what was skipped, why, and the apt-get command that installs it', async () => {
    const r = await vitest(
      ['test/browser/a11y.test.ts', 'test/fleet/control.test.ts'],
      freshMachine({ HOOKMAP_CHROMIUM: '/nonexistent/chromium', NATS_SERVER: '/nonexistent/nats-server' }),
    );
    expect(r.code).toBe(0);
    const last = r.stdout.trimEnd().split('\n').pop()!;
    expect(last).toMatch(/^SKIPPED \d+ tests, a program missing: /);
    expect(last).toContain('test/browser/');
    expect(last).toContain('no chromium at /nonexistent/chromium');
    expect(last).toContain('test/fleet/');
    expect(last).toContain('no nats-server at /nonexistent/nats-server');
    expect(last).toMatch(/; to run them: sudo apt-get install chromium nats-server$/);
  }, 120_000);

  it('says nothing when nothing was skipped for a missing program', async () => {
    const r = await vitest(['test/deps/engines.test.ts'], freshMachine({ HOOKMAP_CHROMIUM: '/nonexistent/chromium', NATS_SERVER: '/nonexistent/nats-server' }));
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/SKIPPED/);
  }, 120_000);
});
