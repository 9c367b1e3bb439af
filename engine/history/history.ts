// The history as a running part of `hookmap up` (and what each CLI query
// opens first): the database in the home, brought up to the logs at start
// (incrementally; rebuilt when missing), then kept up on a timer in small
// steps, each one transaction, so a hook reply is never behind more than
// one bounded step, and never waits on the database itself.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Indexer, type StepResult } from './indexer.ts';
import { prune, type Retention } from './retention.ts';
import { HISTORY_FILE, HistoryWriter, IMPORTED_DIR, openHistory, type Db } from './store.ts';
import { indexedEvent, type IndexedEvent } from './rows.ts';

/** Bytes one background step indexes at most (a short pause between steps). */
export const BACKGROUND_STEP_BYTES = 256 * 1024;

export function historyFile(home: string): string {
  return join(home, HISTORY_FILE);
}

/** The folders the history indexes: the daemons' logs and the imported sessions' (`hookmap history import`). */
export function historyRoots(home: string, logRoot = join(home, 'logs')): string[] {
  return [logRoot, join(home, IMPORTED_DIR)];
}

/** Open the home's history and bring it up to its logs (the CLI's way in). */
export function openCaughtUp(home: string, logRoots: readonly string[] = historyRoots(home)): { db: Db; indexed: StepResult } {
  const db = openHistory(historyFile(home));
  const indexed = new Indexer(db, logRoots).catchUp();
  return { db, indexed };
}

/** Delete the database and index every log again. */
export function reindex(home: string, logRoots: readonly string[] = historyRoots(home)): { db: Db; indexed: StepResult } {
  const file = historyFile(home);
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) rmSync(f);
  return openCaughtUp(home, logRoots);
}

export class HistoryService {
  readonly db: Db;
  private readonly indexer: Indexer;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private lastPrune = 0;

  constructor(
    file: string,
    logRoots: readonly string[],
    private readonly o: { everyMs?: number; retention?: Retention; say?: (l: string) => void } = {},
  ) {
    this.db = openHistory(file);
    this.indexer = new Indexer(this.db, logRoots);
  }

  /** Index in the background: a step now and then, more steps back to back (yielding between) while more waits. */
  start(): void {
    const tick = () => {
      if (this.stopped) return;
      let r: StepResult;
      try {
        r = this.indexer.step(BACKGROUND_STEP_BYTES);
        if (Date.now() - this.lastPrune > 3_600_000) {
          this.lastPrune = Date.now();
          const n = prune(this.db, this.o.retention);
          if (n) this.o.say?.(`history: ${n} session(s) past the retention pruned`);
        }
      } catch (e) {
        this.o.say?.(`history: indexing failed: ${(e as Error).message}`);
        r = { events: 0, bytes: 0, more: false };
      }
      this.timer = r.more ? (setImmediate(tick) as unknown as NodeJS.Timeout) : setTimeout(tick, this.o.everyMs ?? 1000);
      if (!r.more) this.timer.unref();
    };
    this.timer = setTimeout(tick, 0);
    this.timer.unref();
  }

  /**
   * Index events the stream brought (the other machines of a fleet, whose logs are theirs): one transaction; an event
   * already indexed from a log (the same id) is skipped, so a local event seen both ways counts once.
   */
  indexLines(lines: readonly { line: string; agent: string }[]): number {
    const rows = lines.map((l) => indexedEvent(l.line, l.agent)).filter((r): r is IndexedEvent => r !== undefined);
    return rows.length ? ((this.writer ??= new HistoryWriter(this.db)).batch(rows, []) as number) : 0;
  }
  private writer?: HistoryWriter;

  /** Index everything now (tests, shutdown). */
  catchUp(): StepResult {
    return this.indexer.catchUp();
  }

  close(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.db.close();
  }
}
