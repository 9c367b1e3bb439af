// The state a descriptor switches on but never holds itself: per-session
// sequence counters, synthesized runs, pairing/join tables, snapshot memory,
// suppression windows and first sight. Bounded: least-recently-used sessions
// are forgotten past `maxSessions`, table entries past `maxEntries`.

export interface SeqAllocator {
  /** The next (epoch, seq) position of a session. */
  next(session: string): { epoch: number; seq: number };
}

/** In-memory counters (epoch fixed): `hookmap map` and tests. The daemon plugs in a durable one. */
export class MemorySeq implements SeqAllocator {
  private readonly seqs = new Map<string, number>();
  constructor(private readonly epoch = 0) {}
  next(session: string) {
    const seq = this.seqs.get(session) ?? 0;
    this.seqs.set(session, seq + 1);
    return { epoch: this.epoch, seq };
  }
}

export interface SessionState {
  runId?: string;
  runStartId?: string;
  runCount: number;
  tables: Map<string, Map<string, { value: unknown; expires?: number }>>;
  snapshots: Map<string, unknown[]>;
  suppress: Map<string, number>;
  ended?: boolean;
}

export interface EngineStateOptions { maxSessions?: number; maxEntries?: number }

export class EngineState {
  private readonly sessions = new Map<string, SessionState>();
  readonly maxSessions: number;
  readonly maxEntries: number;

  constructor(readonly seq: SeqAllocator = new MemorySeq(), opts: EngineStateOptions = {}) {
    this.maxSessions = opts.maxSessions ?? 10_000;
    this.maxEntries = opts.maxEntries ?? 4_096;
  }

  has(session: string): boolean {
    return this.sessions.has(session);
  }

  /** The session's state, created on first sight; refreshed as most recently used. */
  session(session: string): SessionState {
    let s = this.sessions.get(session);
    if (s) {
      this.sessions.delete(session);
      this.sessions.set(session, s);
      return s;
    }
    s = { runCount: 0, tables: new Map(), snapshots: new Map(), suppress: new Map() };
    this.sessions.set(session, s);
    while (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string);
    return s;
  }

  forget(session: string): void {
    this.sessions.delete(session);
  }

  tableGet(s: SessionState, table: string, key: string, now: number): unknown {
    const t = s.tables.get(table);
    const e = t?.get(key);
    if (!e) return undefined;
    if (e.expires !== undefined && e.expires < now) { t!.delete(key); return undefined; }
    return e.value;
  }

  tableSet(s: SessionState, table: string, key: string, value: unknown, expires?: number): void {
    let t = s.tables.get(table);
    if (!t) s.tables.set(table, (t = new Map()));
    t.delete(key);
    t.set(key, { value, expires });
    while (t.size > this.maxEntries) t.delete(t.keys().next().value as string);
  }

  tableDelete(s: SessionState, table: string, key: string): void {
    s.tables.get(table)?.delete(key);
  }
}
