// Retention by size: while the database holds more than the limit, the
// oldest sessions go (the newest stay), and they stay gone through a reindex
// of the logs.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { openCaughtUp } from '../../../engine/person/history/history.ts';
import { Indexer } from '../../../engine/person/history/indexer.ts';
import { sessions } from '../../../engine/person/history/query.ts';
import { prune, usedBytes } from '../../../engine/person/history/retention.ts';
import { tempDir } from '../../runtime/daemon/helpers.ts';

describe('retention by size', () => {
  it('drops the oldest sessions until the database is within the limit', async () => {
    const t = tempDir('hookmap-history-size-');
    try {
      let clock = Date.parse('2026-11-01T00:00:00Z');
      const d = Daemon.open({ descriptor: loadVendor('codex'), logDir: join(t.dir, 'logs', 'codex'), capture: 'full', now: () => clock });
      for (let s = 0; s < 40; s++) {
        clock += 3_600_000; // an hour between sessions: session 0 is the oldest
        const base = { session_id: `s${String(s).padStart(2, '0')}`, turn_id: 't', cwd: '/w' };
        for (let i = 0; i < 60; i++) {
          await d.handle({
            hook: 'PreToolUse',
            payload: {
              ...base,
              hook_event_name: 'PreToolUse',
              tool_name: 'Bash',
              tool_use_id: `c${i}`,
              tool_input: { command: `echo ${'x'.repeat(400)} ${s} ${i}` },
            },
          });
        }
      }
      await d.close();
      const { db } = openCaughtUp(t.dir);
      const before = usedBytes(db);
      const limit = Math.floor(before / 2);
      const n = prune(db, { maxAgeDays: 100_000, maxBytes: limit }, clock);
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThan(40);
      expect(usedBytes(db)).toBeLessThanOrEqual(limit);
      const kept = sessions(db, { limit: 100 }).map((r) => r.session);
      // the newest are kept, the oldest gone
      expect(kept).toContain('s39');
      expect(kept).not.toContain('s00');
      expect(kept.length).toBe(40 - n);
      db.exec('DELETE FROM files');
      expect(new Indexer(db, [join(t.dir, 'logs')]).catchUp().events).toBeGreaterThanOrEqual(0);
      expect(
        sessions(db, { limit: 100 })
          .map((r) => r.session)
          .sort(),
      ).toEqual([...kept].sort());
      db.close();
    } finally {
      t.done();
    }
  }, 120_000);
});
