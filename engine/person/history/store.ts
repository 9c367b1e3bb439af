// The history database (docs/history.md): one SQLite file in $HOOKMAP_HOME
// (better-sqlite3, WAL), an index of what the daemons logged: sessions,
// events, token usage, and an FTS5 index over the text of each event as it
// was logged (only what the capture ceiling let into the log is there to
// find). The JSONL logs stay the durable record: this file can be deleted
// and is rebuilt from them (indexer.ts).
import { TYPE, isSessionTerminal } from '../../core/kernel/lifecycle.ts';
import Database from 'better-sqlite3';
import { ensureParent } from '../../core/io/paths.ts';
import type { IndexedEvent } from './rows.ts';

export const HISTORY_FILE = 'history.db';
/** The folder of imported sessions' logs in the home (`hookmap history import`; one folder per agent, as `logs/`). */
export const IMPORTED_DIR = 'imported';
const SCHEMA_VERSION = 2; // 2: usage.part (a sub-agent's share of its session)

export type Db = Database.Database;

export function openHistory(file: string, o: { readonly?: boolean } = {}): Db {
  const db = new Database(o.readonly ? file : ensureParent(file), { readonly: Boolean(o.readonly), fileMustExist: Boolean(o.readonly) });
  db.pragma('busy_timeout = 5000');
  if (o.readonly) return db;
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const v = db.pragma('user_version', { simple: true }) as number;
  if (v !== 0 && v !== SCHEMA_VERSION) {
    // an index of another shape: rebuilt from the logs
    for (const t of ['fts', 'usage', 'events', 'sessions', 'files', 'meta']) db.exec(`DROP TABLE IF EXISTS ${t}`);
  }
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, pos INTEGER NOT NULL, size INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS sessions (
      agent TEXT NOT NULL, session TEXT NOT NULL, project TEXT, started TEXT, last TEXT, ended TEXT, state TEXT NOT NULL DEFAULT 'active',
      runs INTEGER NOT NULL DEFAULT 0, events INTEGER NOT NULL DEFAULT 0, attention INTEGER NOT NULL DEFAULT 0, tools INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (agent, session));
    CREATE INDEX IF NOT EXISTS sessions_last ON sessions(last);
    CREATE TABLE IF NOT EXISTS events (
      rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, agent TEXT NOT NULL, session TEXT, run TEXT, type TEXT NOT NULL,
      time TEXT NOT NULL, subject TEXT, line TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS events_session ON events(agent, session, time);
    CREATE INDEX IF NOT EXISTS events_time ON events(time);
    CREATE TABLE IF NOT EXISTS usage (
      event TEXT PRIMARY KEY, agent TEXT NOT NULL, session TEXT NOT NULL, run TEXT, time TEXT NOT NULL, model TEXT,
      input INTEGER NOT NULL, output INTEGER NOT NULL, cache_read INTEGER NOT NULL, cache_write INTEGER NOT NULL, reasoning INTEGER NOT NULL, cost REAL,
      part TEXT);
    CREATE INDEX IF NOT EXISTS usage_session ON usage(agent, session);
    CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, content='', contentless_delete=1, tokenize='unicode61');
  `);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
  return db;
}

/** Reading settings of a connection that answers questions: the file's pages mapped (no copy into the cache per read). */
export function tuneForReads(db: Db): void {
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  db.pragma(`cache_size = -${CACHE_KIB}`);
}
const MMAP_BYTES = 1024 ** 3;
const CACHE_KIB = 64 * 1024;

/** Writes a batch of parsed events in one transaction (the indexer's only way in). */
export class HistoryWriter {
  private readonly insEvent;
  private readonly insFts;
  private readonly upSession;
  private readonly insUsage;
  private readonly setFile;
  readonly batch;

  constructor(readonly db: Db) {
    this.insEvent = db.prepare('INSERT OR IGNORE INTO events (id, agent, session, run, type, time, subject, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.insFts = db.prepare('INSERT INTO fts (rowid, text) VALUES (?, ?)');
    this.upSession = db.prepare(`INSERT INTO sessions (agent, session, project, started, last, ended, state, runs, events, attention, tools)
      VALUES (@agent, @session, @project, @started, @time, @ended, @state, @runs, 1, @attention, @tools)
      ON CONFLICT (agent, session) DO UPDATE SET
        project = COALESCE(excluded.project, project), started = COALESCE(started, excluded.started),
        last = MAX(last, excluded.last), ended = COALESCE(excluded.ended, ended),
        state = CASE WHEN excluded.ended IS NOT NULL THEN 'ended' WHEN ended IS NOT NULL THEN state
          WHEN state = 'paused' AND excluded.runs = 0 THEN state ELSE excluded.state END,
        runs = runs + excluded.runs, events = events + 1, attention = attention + excluded.attention, tools = tools + excluded.tools`);
    this.insUsage = db.prepare(
      `INSERT OR IGNORE INTO usage (event, agent, session, run, time, model, input, output, cache_read, cache_write, reasoning, cost, part)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.setFile = db.prepare('INSERT INTO files (path, pos, size) VALUES (?, ?, ?) ON CONFLICT (path) DO UPDATE SET pos = excluded.pos, size = excluded.size');
    this.batch = db.transaction((events: IndexedEvent[], files: { path: string; pos: number; size: number }[]) => {
      let n = 0;
      for (const e of events) n += this.one(e);
      for (const f of files) this.setFile.run(f.path, f.pos, f.size);
      return n;
    });
  }

  private one(e: IndexedEvent): number {
    const r = this.insEvent.run(e.id, e.agent, e.session ?? null, e.run ?? null, e.type, e.time, e.subject ?? null, e.line);
    if (r.changes === 0) return 0; // already indexed (a log read again)
    if (e.text) this.insFts.run(r.lastInsertRowid, e.text);
    if (e.session !== undefined)
      this.upSession.run({
        agent: e.agent,
        session: e.session,
        project: e.project ?? null,
        started: e.type === TYPE.sessionStarted ? e.time : null,
        time: e.time,
        ended: isSessionTerminal(e.type) ? e.time : null,
        state: e.state,
        runs: e.type === TYPE.runStarted ? 1 : 0,
        attention: e.type === TYPE.attentionRequested ? 1 : 0,
        tools: e.type === TYPE.toolRequested ? 1 : 0,
      });
    const u = e.usage;
    if (u && e.session !== undefined)
      this.insUsage.run(
        e.id,
        e.agent,
        e.session,
        e.run ?? null,
        e.time,
        u.model ?? null,
        u.input,
        u.output,
        u.cache_read,
        u.cache_write,
        u.reasoning,
        u.cost ?? null,
        u.part ?? null,
      );
    return 1;
  }

  fileAt(path: string): { pos: number; size: number } | undefined {
    return this.db.prepare('SELECT pos, size FROM files WHERE path = ?').get(path) as { pos: number; size: number } | undefined;
  }
}
