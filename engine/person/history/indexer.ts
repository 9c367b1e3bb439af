// Brings the history database up to what the JSONL logs hold
// ($HOOKMAP_HOME/logs/<agent>/<session>.jsonl): each log is read from where
// the last pass stopped (its position is in the database, so a restart goes
// on incrementally and a deleted database is rebuilt from the start), whole
// lines only, a bounded number of bytes per step, each step one
// transaction. An event already indexed (a log read again) is not counted
// twice: events are keyed by their id. Events older than the retention
// cutoff are not indexed again.
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { indexedEvent, type IndexedEvent } from './rows.ts';
import { HistoryWriter, type Db } from './store.ts';

export interface StepResult {
  events: number;
  bytes: number;
  /** More is waiting (the step stopped at its byte budget). */
  more: boolean;
}

export const STEP_BYTES = 1024 * 1024;

export class Indexer {
  private readonly w: HistoryWriter;

  constructor(
    readonly db: Db,
    /** Folders holding one folder of logs per agent (`$HOOKMAP_HOME/logs`). */
    private readonly roots: readonly string[],
  ) {
    this.w = new HistoryWriter(db);
  }

  /** The agent log folders and their session logs, oldest change first. */
  private logs(): { agent: string; path: string; size: number }[] {
    const out: { agent: string; path: string; size: number; mtime: number }[] = [];
    for (const root of this.roots) {
      if (!existsSync(root)) continue;
      for (const agent of readdirSync(root)) {
        if (agent.startsWith('_') || agent.startsWith('.')) continue;
        const dir = join(root, agent);
        let names: string[];
        try {
          names = readdirSync(dir).filter((n) => n.endsWith('.jsonl') && !n.startsWith('_'));
        } catch {
          continue;
        }
        for (const n of names) {
          try {
            const st = statSync(join(dir, n));
            out.push({ agent, path: join(dir, n), size: st.size, mtime: st.mtimeMs });
          } catch {
            /* gone meanwhile */
          }
        }
      }
    }
    return out.sort((a, b) => a.mtime - b.mtime);
  }

  private cutoff(): string | undefined {
    const r = this.db.prepare("SELECT value FROM meta WHERE key = 'cutoff'").get() as { value: string } | undefined;
    return r?.value;
  }

  /** Index up to `maxBytes` of what the logs hold beyond what is indexed. */
  step(maxBytes = STEP_BYTES): StepResult {
    const cutoff = this.cutoff();
    const rows: IndexedEvent[] = [];
    const files: { path: string; pos: number; size: number }[] = [];
    let budget = maxBytes;
    let bytes = 0;
    let more = false;
    for (const f of this.logs()) {
      const at = this.w.fileAt(f.path);
      let pos = at && at.pos <= f.size ? at.pos : 0;
      if (pos >= f.size) continue;
      if (budget <= 0) {
        more = true;
        break;
      }
      const fd = openSync(f.path, 'r');
      try {
        const size = fstatSync(fd).size;
        const want = Math.min(size - pos, budget);
        const buf = Buffer.alloc(want);
        let got = 0;
        while (got < want) {
          const n = readSync(fd, buf, got, want - got, pos + got);
          if (n === 0) break;
          got += n;
        }
        let start = 0;
        for (;;) {
          const nl = buf.indexOf(10, start);
          if (nl < 0 || nl >= got) break;
          const row = indexedEvent(buf.toString('utf8', start, nl), f.agent);
          if (row && !(cutoff && row.time < cutoff)) rows.push(row);
          start = nl + 1;
        }
        // a line longer than the whole budget: taken alone in a step of its own size
        if (start === 0 && got === want && want < size - pos) {
          more = true;
          budget = 0;
          continue;
        }
        pos += start;
        bytes += start;
        budget -= start;
        if (pos < size && got === want) more = true;
        files.push({ path: f.path, pos, size });
      } finally {
        closeSync(fd);
      }
    }
    const events = rows.length || files.length ? (this.w.batch(rows, files) as number) : 0;
    return { events, bytes, more };
  }

  /** Step until nothing is left. */
  catchUp(maxBytes = STEP_BYTES): StepResult {
    const total: StepResult = { events: 0, bytes: 0, more: false };
    for (;;) {
      const r = this.step(maxBytes);
      total.events += r.events;
      total.bytes += r.bytes;
      if (!r.more) return total;
      // a step that read nothing while more waits: a line longer than the budget; take it with a budget its size
      if (r.bytes === 0) maxBytes *= 4;
    }
  }
}
