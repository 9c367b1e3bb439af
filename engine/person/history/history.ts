// The history as a running part of `hookmap up` (and what each CLI query
// opens first): the database in the home, brought up to the logs at start
// (incrementally; rebuilt when missing), then kept up on a timer in small
// steps, each one transaction, in a process of its own (niced) with its own connection
// (worker-host.ts), so a hook reply never waits behind a step of indexing;
// questions are read on a connection of their own (WAL: a read never waits
// for the writer).
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Indexer, type StepResult } from './indexer.ts';
import type { Retention } from './retention.ts';
import { HISTORY_FILE, IMPORTED_DIR, openHistory, tuneForReads, type Db } from './store.ts';
import { IndexerHost, type IndexerStatus } from './worker-host.ts';

/** Bytes one background step indexes at most (a short pause between steps). */
export const BACKGROUND_STEP_BYTES = 256 * 1024;
/**
 * While agents are at work (the stream's lines reached the indexer within windowMs), it yields: steps of a quarter,
 * each followed by a pause, so that indexing takes a tenth of a core (821-978 events/s in bench/history, far above
 * what agents write) and a backlog is indexed at full speed once they are quiet. The indexer's lowest priority alone left a hook's
 * p99 1.2-1.3x higher while it indexed (bench/history).
 */
export const ACTIVE = { windowMs: 1000, stepBytes: BACKGROUND_STEP_BYTES / 4, duty: 0.1 };

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
  tuneForReads(db);
  return { db, indexed };
}

/** Delete the database and index every log again. */
export function reindex(home: string, logRoots: readonly string[] = historyRoots(home)): { db: Db; indexed: StepResult } {
  const file = historyFile(home);
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) rmSync(f);
  return openCaughtUp(home, logRoots);
}

/** A connection for questions only (the worker writes): pages mapped and cached, so a search reads memory, not the file. */
export function readConnection(file: string): Db {
  const db = openHistory(file); // creates or upgrades the schema before the worker opens its own
  db.pragma('query_only = 1');
  tuneForReads(db);
  return db;
}

export class HistoryService {
  /** The read connection (on the thread that asks; the worker has its own to write). */
  readonly db: Db;
  private readonly indexer: IndexerHost;

  constructor(file: string, logRoots: readonly string[], o: { everyMs?: number; retention?: Retention; say?: (l: string) => void } = {}) {
    this.db = readConnection(file);
    const input = { file, roots: [...logRoots], stepBytes: BACKGROUND_STEP_BYTES, everyMs: o.everyMs ?? 1000, retention: o.retention, active: ACTIVE };
    this.indexer = new IndexerHost(input, o.say);
  }

  /**
   * Index in the background: in a child process at the lowest priority (worker-host.ts), a step now and then, back to
   * back while more waits (paced while agents work: ACTIVE).
   */
  start(): this {
    this.indexer.start();
    return this;
  }

  /**
   * Index events the stream brought (the other machines of a fleet, whose logs are theirs), in the worker: one
   * transaction; an event already indexed from a log (the same id) is skipped, so a local event seen both ways counts once.
   */
  indexLines(lines: { line: string; agent: string }[]): void {
    this.indexer.indexLines(lines);
  }

  /** Resolves once the worker indexed everything the logs hold now (tests, the CLI's questions through up). */
  caughtUp(): Promise<void> {
    return this.indexer.caughtUp();
  }

  /** The indexer's state (GET /history/status, /healthz). */
  status(): IndexerStatus {
    return this.indexer.status();
  }

  /** The worker itself (tests kill it). */
  get worker(): IndexerHost {
    return this.indexer;
  }

  async close(): Promise<void> {
    await this.indexer.close();
    this.db.close();
  }
}
