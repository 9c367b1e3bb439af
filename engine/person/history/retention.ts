// How long the history keeps sessions: older than an age, or the oldest
// ones while the database is over a size. What is pruned stays pruned (the
// cutoff is kept, so a reindex from the logs does not bring it back); the
// JSONL logs themselves are never touched here.
import type { Db } from './store.ts';

export interface Retention {
  /** Sessions whose last event is older than this many days go (default 90). */
  maxAgeDays?: number;
  /** While the database holds more than this many bytes, the oldest sessions go (default 1 GiB). */
  maxBytes?: number;
}

export const DEFAULT_RETENTION: Required<Retention> = { maxAgeDays: 90, maxBytes: 1024 ** 3 };

/** Bytes the database's pages hold (free pages left out). */
export function usedBytes(db: Db): number {
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  return (pages - free) * (db.pragma('page_size', { simple: true }) as number);
}

function dropBefore(db: Db, cutoff: string): number {
  return db.transaction(() => {
    const old = db.prepare('SELECT agent, session FROM sessions WHERE last < ?').all(cutoff) as { agent: string; session: string }[];
    const delFts = db.prepare('DELETE FROM fts WHERE rowid IN (SELECT rowid FROM events WHERE agent = ? AND session = ?)');
    const delEv = db.prepare('DELETE FROM events WHERE agent = ? AND session = ?');
    const delU = db.prepare('DELETE FROM usage WHERE agent = ? AND session = ?');
    const delS = db.prepare('DELETE FROM sessions WHERE agent = ? AND session = ?');
    for (const s of old) for (const st of [delFts, delEv, delU, delS]) st.run(s.agent, s.session);
    db.prepare("INSERT INTO meta (key, value) VALUES ('cutoff', ?) ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)").run(cutoff);
    return old.length;
  })();
}

/** Apply the retention now; returns the sessions pruned. */
export function prune(db: Db, r: Retention = {}, now = Date.now()): number {
  const { maxAgeDays, maxBytes } = { ...DEFAULT_RETENTION, ...r };
  let n = dropBefore(db, new Date(now - maxAgeDays * 86_400_000).toISOString());
  while (usedBytes(db) > maxBytes) {
    const total = (db.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number }).n;
    if (total === 0) break;
    // the oldest tenth (at least one) of what is left
    const edge = db.prepare('SELECT last FROM sessions ORDER BY last LIMIT 1 OFFSET ?').get(Math.max(0, Math.ceil(total / 10) - 1)) as { last: string };
    const cut = new Date(Date.parse(edge.last) + 1).toISOString();
    const dropped = dropBefore(db, cut);
    n += dropped;
    if (!dropped) break;
  }
  return n;
}
