// The relay's replay buffer refilled from the daemons' session logs at
// start-up (engine/runtime/daemon/relay-restore.ts): the tail of each log within
// the buffer's bounds, newest sessions first, torn and invalid lines
// skipped, multi-byte text across read chunks intact, a gap marked.
import { appendFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { restoreFromLogs } from '../../../engine/runtime/daemon/relay-restore.ts';
import { sessionFileName } from '../../../engine/core/io/paths.ts';
import { RelayCore } from '../../../engine/runtime/relay/core.ts';
import { DEFAULT_LIMITS, type RelayLimits } from '../../../engine/runtime/relay/options.ts';
import { ev } from '../relay/helpers.ts';
import { tempDir } from './helpers.ts';

const dirs: { done: () => void }[] = [];
afterEach(() => dirs.splice(0).forEach((d) => d.done()));

function logDir(): string {
  const t = tempDir('hookmap-restore-');
  dirs.push(t);
  return t.dir;
}

function core(limits: Partial<RelayLimits> = {}) {
  return new RelayCore({ ...DEFAULT_LIMITS, ...limits }, false);
}

describe('restoreFromLogs', () => {
  it('refills each session from its log, text byte-identical across read chunks', () => {
    const dir = logDir();
    const lines: string[] = [];
    for (let q = 0; q < 900; q++) lines.push(JSON.stringify(ev('multi', q, { data: { note: 'é漢字😀'.repeat(60) } })));
    writeFileSync(join(dir, sessionFileName('multi')), `${lines.join('\n')}\n`);
    writeFileSync(
      join(dir, '_agent.jsonl'),
      `${JSON.stringify({ aep: '0.1', id: 'a1', type: 'agent.heartbeat', time: '2026-01-01T00:00:00Z', source: 'aep://h/agent/test', agent: 'test' })}\n`,
    );
    const c = core();
    const r = restoreFromLogs(c.store, (l) => c.prepare(l), [dir, join(dir, 'absent')], c.limits);
    expect(r).toMatchObject({ sessions: 1, events: 900, skipped: 0 });
    const back = c.store.replay('multi', null).events.map((e) => e.text());
    expect(back).toEqual(lines);
  });

  it('skips a torn last line and invalid lines; keeps only the tail within the bounds and marks the gap', () => {
    const dir = logDir();
    const file = join(dir, sessionFileName('t'));
    const good = Array.from({ length: 30 }, (_, q) => JSON.stringify(ev('t', q)));
    writeFileSync(file, `${good.slice(0, 10).join('\n')}\nnot json\n${good.slice(10).join('\n')}\n{"aep":"0.1","id":"torn`);
    const c = core({ buffer: 12 });
    const r = restoreFromLogs(c.store, (l) => c.prepare(l), [dir], c.limits);
    expect(r.events).toBe(12);
    expect(c.store.replay('t', null).events.map((e) => e.seq)).toEqual(Array.from({ length: 12 }, (_, i) => 18 + i));
    expect(c.store.replay('t', { epoch: 0, seq: 5 }).exhausted).toEqual({ epoch: 0, seq: 18 });
    expect(c.store.replay('t', { epoch: 0, seq: 17 }).exhausted).toBeUndefined();
    // the whole file with no bound hit: the invalid line is skipped, counted
    const all = core();
    expect(restoreFromLogs(all.store, (l) => all.prepare(l), [dir], all.limits)).toMatchObject({ events: 30, skipped: 1 });
  });

  it('stops at the total budget, keeping the most recently written sessions', () => {
    const dir = logDir();
    const pad = 'p'.repeat(4000);
    for (const [i, s] of ['old', 'mid', 'new'].entries()) {
      const f = join(dir, sessionFileName(s));
      for (let q = 0; q < 20; q++) appendFileSync(f, `${JSON.stringify(ev(s, q, { data: { pad } }))}\n`);
      const t = new Date(Date.now() - (3 - i) * 60_000);
      utimesSync(f, t, t);
    }
    const c = core({ bufferBytes: 200 * 1024, sessionBufferBytes: 100 * 1024 });
    restoreFromLogs(c.store, (l) => c.prepare(l), [dir], c.limits);
    expect(c.store.sessions()).toEqual(['mid', 'new']);
    expect(c.store.stats().bytes).toBeLessThanOrEqual(200 * 1024);
  });
});
