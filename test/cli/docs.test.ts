// The drift gates pass on the committed tree: generated docs and generated
// code match what the descriptors, schemas and fixtures say. Spawns the real
// CLI, as CI would.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

const hookmap = (...args: string[]) => spawnSync(process.execPath, ['bin/hookmap.mjs', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

describe('drift gates', () => {
  it('hookmap docs --check', () => {
    const r = hookmap('docs', '--check');
    expect(r.stdout + r.stderr).toMatch(/up to date/);
    expect(r.status).toBe(0);
  }, 120_000);

  it('hookmap codegen --check', () => {
    const r = hookmap('codegen', '--check');
    expect(r.stdout + r.stderr).toMatch(/up to date/);
    expect(r.status).toBe(0);
  }, 120_000);

  it('usage errors exit 2', () => {
    expect(hookmap('docs', '--bogus').status).toBe(2);
    expect(hookmap('codegen', 'extra').status).toBe(2);
    expect(hookmap('check', 'no-such-agent').status).toBe(2);
  }, 120_000);
});
