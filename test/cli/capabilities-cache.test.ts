// Issue 45: `hookmap capabilities` in a clone runs the agent's fixtures once
// per hookmap, descriptor and fixture folder (engine/tools/check/capabilities-cache.ts),
// then reads the kept report back: the same JSON as running them.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { keepReport, keptReport, reportKey } from '../../engine/tools/check/capabilities-cache.ts';
import type { AgentJson } from '../../engine/tools/check/capabilities-json.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'hookmap-caps-cache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('kept capabilities reports', () => {
  it('are keyed by the hookmap, the descriptor and every fixture file; drafts and unknown names are never kept', () => {
    const fixtures = join(tmp, 'fixtures');
    cpSync(join(ROOT, 'fixtures', 'pi'), join(fixtures, 'pi'), { recursive: true });
    const k = reportKey('1+a', 'pi', fixtures);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(reportKey('1+a', 'pi', fixtures)).toBe(k);
    expect(reportKey('1+b', 'pi', fixtures)).not.toBe(k);
    expect(reportKey('1+a', 'codex', fixtures)).not.toBe(k);
    writeFileSync(join(fixtures, 'pi', 'new-case.yaml'), 'kind: events\n');
    const added = reportKey('1+a', 'pi', fixtures);
    expect(added).not.toBe(k);
    writeFileSync(join(fixtures, 'pi', 'new-case.yaml'), 'kind: events \n');
    expect(reportKey('1+a', 'pi', fixtures)).not.toBe(added);
    expect(reportKey('1+a', 'vendors/pi.yaml')).toBeUndefined();
    expect(reportKey('1+a', './draft.yaml')).toBeUndefined();
    expect(reportKey('1+a', 'no-such-agent')).toBeUndefined();
  });

  it('read back only as written: a damaged or foreign entry is not a report', () => {
    const folder = join(tmp, 'kept');
    const report = { agent: 'pi', ok: true } as AgentJson;
    keepReport(folder, 'k1', report);
    expect(keptReport(folder, 'k1')).toEqual(report);
    expect(keptReport(folder, 'k2')).toBeUndefined();
    writeFileSync(join(folder, 'k3.json'), JSON.stringify({ format: 'capabilities-report/1', key: 'k1', report }));
    expect(keptReport(folder, 'k3')).toBeUndefined();
    writeFileSync(join(folder, 'k4.json'), '{not json');
    expect(keptReport(folder, 'k4')).toBeUndefined();
  });

  it('`hookmap capabilities pi --json` prints the same report computed and read back, and keeps one entry', () => {
    const home = join(tmp, 'home');
    const run = () =>
      spawnSync(process.execPath, [join(ROOT, 'bin', 'hookmap.mjs'), 'capabilities', 'pi', '--json'], {
        encoding: 'utf8',
        env: { ...process.env, HOOKMAP_HOME: home },
        timeout: 120_000,
      });
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    expect(readdirSync(join(home, 'cache', 'capabilities')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    const second = run();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(JSON.parse(second.stdout).agents[0].agent).toBe('pi');
  });
});
