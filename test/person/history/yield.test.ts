// The history's indexer yields to agents at work (history.ts ACTIVE): while up
// sends it the stream's lines it indexes in small steps with a pause after
// each, and still gets through a backlog (it never starves); once the lines
// stop, its steps are full again. A real indexer process over a real daemon's logs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { historyFile, historyRoots } from '../../../engine/person/history/history.ts';
import { IndexerHost } from '../../../engine/person/history/worker-host.ts';
import { tempDir, until } from '../../runtime/daemon/helpers.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Turns of a real claude-code daemon written to the home's logs; the number of events its logs hold after. */
async function backlog(home: string, turns: number, from = 0): Promise<number> {
  const logDir = join(home, 'logs', 'claude-code');
  const d = Daemon.open({ descriptor: loadVendor('claude-code'), logDir });
  for (let i = from; i < from + turns; i++) {
    const base = { session_id: `s${i % 7}`, cwd: '/work/shop' };
    await d.handle({ hook: 'UserPromptSubmit', payload: { ...base, hook_event_name: 'UserPromptSubmit', prompt: `turn ${i}` } });
    const call = { ...base, tool_name: 'Bash', tool_use_id: `c${i}`, tool_input: { command: `grep -rn w${i} src/` } };
    await d.handle({ hook: 'PreToolUse', payload: { ...call, hook_event_name: 'PreToolUse' } });
    await d.handle({ hook: 'PostToolUse', payload: { ...call, hook_event_name: 'PostToolUse', tool_response: 'ok' } });
    await d.handle({ hook: 'Stop', payload: { ...base, hook_event_name: 'Stop' } });
  }
  await d.close();
  return readdirSync(logDir)
    .filter((f) => f.endsWith('.jsonl'))
    .reduce((n, f) => n + readFileSync(join(logDir, f), 'utf8').split('\n').filter(Boolean).length, 0);
}

describe('the indexer yields to agents at work', () => {
  it("yields while the stream's lines come, still indexes the whole backlog, and takes full steps once they stop", async () => {
    const t = tempDir('hookmap-history-yield-');
    cleanups.push(t.done);
    const first = await backlog(t.dir, 150);
    const input = { file: historyFile(t.dir), roots: historyRoots(t.dir), stepBytes: 8192, everyMs: 50, active: { windowMs: 400, stepBytes: 1024, duty: 0.5 } };
    const host = new IndexerHost(input).start();
    cleanups.push(() => host.close());
    // agents at work: up sends the stream's lines (none to index here: the stream's events are the logs' own)
    const flow = setInterval(() => host.indexLines([]), 100);
    cleanups.push(() => clearInterval(flow));
    host.indexLines([]);
    let sawYield = false;
    await until(
      'the backlog indexed while lines flow',
      () => {
        const s = host.status();
        sawYield ||= s.yielding && s.indexed < first;
        return s.indexed >= first;
      },
      60_000,
    );
    expect(sawYield).toBe(true);
    expect(host.status().yielding).toBe(true);

    // quiet: past the window the status says so with nothing new to index, and a new backlog is indexed in full steps
    clearInterval(flow);
    await until('not yielding once the lines stopped', () => !host.status().yielding, 10_000);
    expect(host.status().indexed).toBe(first);
    const second = await backlog(t.dir, 40, 150);
    await until('the new events indexed', () => host.status().indexed >= second, 60_000);
    expect(host.status()).toMatchObject({ state: 'running', yielding: false, indexed: second });
  }, 120_000);
});
