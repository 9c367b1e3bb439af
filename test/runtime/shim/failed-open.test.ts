// Issue 31 item 14: a hook that got no answer from hookmap (daemon down,
// hung, broken) leaves a trace in $HOOKMAP_HOME/failed-open.log, from the sh
// shim and the Node shim alike; an answered hook leaves none; the readers
// summarise it per agent, and `up`'s take moves it aside once reported.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { describeFailedOpen, failedOpenPaths, readFailedOpen, readSeenFailedOpen, takeFailedOpen } from '../../../engine/core/io/failed-open.ts';
import { writeShims } from '../../../engine/runtime/shim/generate.ts';
import { BIN, fakeDaemon, runProcess } from './helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-failed-open-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function home(name: string): string {
  const h = join(tmp, name);
  mkdirSync(h, { recursive: true });
  return h;
}

function lines(h: string): string[][] {
  const f = join(h, 'failed-open.log');
  return existsSync(f)
    ? readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('\t'))
    : [];
}

const PAYLOAD = '{"hook_event_name":"PreToolUse","session_id":"s1"}';

describe.each(['sh', 'node'] as const)('%s shim', (kind) => {
  const run = (h: string, url: string, extra: Record<string, string> = {}) => {
    const env = { PATH: process.env.PATH, HOME: h, HOOKMAP_HOME: h, HOOKMAP_URL: url, ...extra };
    if (kind === 'sh') {
      const { sh } = writeShims(loadVendor('claude-code'), resolveTarget(env));
      return runProcess('sh', [sh, 'PreToolUse'], PAYLOAD, env); // setup passes the hook as argv
    }
    return runProcess(process.execPath, [BIN, 'hook', 'claude-code'], PAYLOAD, env);
  };

  it('records a refused daemon as down, with agent, hook and a UTC time; the agent still gets its neutral reply', async () => {
    const h = home(`${kind}-down`);
    const d = await fakeDaemon('down');
    const r = await run(h, d.url);
    expect(r.code).toBe(0);
    const got = lines(h);
    expect(got).toHaveLength(1);
    expect(got[0][0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(got[0].slice(1)).toEqual(['claude-code', 'PreToolUse', 'down']);
  });

  it('records a hung daemon as timeout and a 500 as error', async () => {
    const h = home(`${kind}-hung`);
    const hung = await fakeDaemon('hung');
    await run(h, hung.url, { HOOKMAP_SHIM_TIMEOUT_MS: '300' });
    await hung.close();
    const broken = await fakeDaemon('error');
    await run(h, broken.url);
    await broken.close();
    expect(lines(h).map((l) => l[3])).toEqual(['timeout', 'error']);
  });

  it('leaves no trace when the daemon answers', async () => {
    const h = home(`${kind}-up`);
    const d = await fakeDaemon('up', { body: '{}', exit: 0 });
    const r = await run(h, d.url);
    await d.close();
    expect(r.stdout.toString()).toBe('{}');
    expect(lines(h)).toEqual([]);
  });
});

describe('failed-open readers', () => {
  it('summarises per agent, skips junk lines, and up takes it once', () => {
    const h = home('readers');
    const { log } = failedOpenPaths(h);
    writeFileSync(
      log,
      [
        '2026-12-01T09:02:00Z\tclaude-code\tPreToolUse\tdown',
        'garbage line',
        '2026-12-01T09:40:00Z\tclaude-code\tStop\tdown',
        '2026-12-01T09:10:00Z\tcodex\tPreToolUse\ttimeout',
        '2026-12-01T09:11:00Z\t../evil\tx\tdown',
        '',
      ].join('\n'),
    );
    const s = readFailedOpen(h);
    expect(s.count).toBe(3);
    expect(s.first).toBe('2026-12-01T09:02:00Z');
    expect(s.last).toBe('2026-12-01T09:40:00Z');
    expect(s.agents.map((a) => [a.agent, a.count, a.why])).toEqual([
      ['claude-code', 2, { down: 2 }],
      ['codex', 1, { timeout: 1 }],
    ]);
    expect(describeFailedOpen(s)).toBe(
      '3 hooks (claude-code 2, codex 1) between 2026-12-01T09:02:00Z and 2026-12-01T09:40:00Z: nothing listening 2, no answer in time 1',
    );
    expect(takeFailedOpen(h).count).toBe(3);
    expect(readFailedOpen(h).count).toBe(0); // reported once
    expect(readSeenFailedOpen(h).count).toBe(3); // doctor can still say what the last start reported
    expect(takeFailedOpen(h).count).toBe(0);
  });

  it('a shim never creates a missing home', async () => {
    const h = join(tmp, 'no-such-home');
    const d = await fakeDaemon('down');
    const r = await runProcess(process.execPath, [BIN, 'hook', 'claude-code'], PAYLOAD, { PATH: process.env.PATH, HOOKMAP_HOME: h, HOOKMAP_URL: d.url });
    expect(r.code).toBe(0);
    expect(existsSync(h)).toBe(false);
  });
});
