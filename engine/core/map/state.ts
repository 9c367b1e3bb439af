// The state a descriptor switches on but never holds itself: per-session
// sequence counters, synthesized runs, pairing/join tables, snapshot memory,
// suppression windows, first sight, the attention requests still open, and
// which AEP session a payload's session id maps to. Bounded: least-recently-
// used sessions are forgotten past `maxSessions`, table entries past
// `maxEntries`.
//
// Sessions resumed after their end (AEP-0002 §2.5: `session.ended` is
// unrepeatable for a session, all epochs): a payload session id whose AEP
// session ended, seen again on a hook that opens a session or a run, maps
// to a successor AEP session `<id>~2` (then `~3`, ...), whose
// session.started says `resumed_from`. Later completions of the ended one
// stay on it. The daemon makes this durable by answering `history` from its
// logs; `hookmap map` keeps it in memory.
import type { Position } from '../kernel/position.ts';

export interface SeqAllocator {
  /** The next (epoch, seq) position of a session. */
  next(session: string): Position;
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
  /** attention.requested ids of this session with no terminal yet (closed as dismissed at session end). */
  attention: Map<string, { run?: string; at: number }>;
  /** The run open now (the agent's own id or the synthesized one): what a control.cancel addresses. */
  openRun?: string;
  /** Runs that ended recently (bounded): one terminal per run. */
  closedRuns?: Set<string>;
}

/** Where a payload's session id maps: its current AEP session, that session's generation, and whether it ended. */
export interface SessionRoute {
  aep: string;
  gen: number;
  ended: boolean;
}

/** A durable record's answer for one AEP session: never seen, open, or ended. */
export type SessionHistory = (aepSession: string) => 'none' | 'open' | 'ended';

/** The AEP session of generation `gen` of a payload session id (1: the id itself). */
export function successorId(id: string, gen: number): string {
  return gen <= 1 ? id : `${id}~${gen}`;
}

/** A session's state before anything was recorded in it. */
export function newSessionState(): SessionState {
  return { runCount: 0, tables: new Map(), snapshots: new Map(), suppress: new Map(), attention: new Map() };
}

export interface EngineStateOptions {
  maxSessions?: number;
  maxEntries?: number;
  history?: SessionHistory;
}

export class EngineState {
  private readonly sessions = new Map<string, SessionState>();
  private readonly routes = new Map<string, SessionRoute>(); // by payload session id, LRU
  readonly maxSessions: number;
  readonly maxEntries: number;
  private readonly history?: SessionHistory;

  constructor(
    readonly seq: SeqAllocator = new MemorySeq(),
    opts: EngineStateOptions = {},
  ) {
    this.maxSessions = opts.maxSessions ?? 10_000;
    this.maxEntries = opts.maxEntries ?? 4_096;
    this.history = opts.history;
  }

  /** The AEP session a payload session id maps to now (read from the durable history on first sight). */
  route(id: string): SessionRoute {
    const r = this.peekRoute(id);
    this.setRoute(id, r);
    return r;
  }

  /** Where `id` maps, as `route` would say, changing nothing (a firing's draft reads it; its commit sets it). */
  peekRoute(id: string): SessionRoute {
    const known = this.routes.get(id);
    if (known) return known;
    let r: SessionRoute = { aep: id, gen: 1, ended: false };
    if (this.history && !this.sessions.has(id) && this.history(id) === 'ended') {
      r.ended = true;
      for (let gen = 2; ; gen++) {
        const h = this.history(successorId(id, gen));
        if (h === 'none') break;
        r = { aep: successorId(id, gen), gen, ended: h === 'ended' };
        if (h === 'open') break;
      }
    }
    return r;
  }

  /** Record where `id` maps (most recently used). */
  setRoute(id: string, r: SessionRoute): void {
    this.routes.delete(id);
    this.routes.set(id, r);
    while (this.routes.size > this.maxSessions) this.routes.delete(this.routes.keys().next().value as string);
  }

  /** The route of the session that resumes the ended one `r` of `id` (not recorded: see setRoute). */
  successor(id: string, r: SessionRoute): SessionRoute {
    return { aep: successorId(id, r.gen + 1), gen: r.gen + 1, ended: false };
  }

  /** The AEP session `id` maps to, without touching any state. */
  aepOf(id: string): string {
    return this.routes.get(id)?.aep ?? id;
  }

  /** The AEP session `id` maps to has ended. */
  markEnded(id: string): void {
    this.route(id).ended = true;
  }

  /** Keep the open-attention set true for events built outside a mapped firing (the daemon's own). */
  noteEvent(ev: { type: string; id: string; session?: string; subject?: string; run?: string }, now: number): void {
    const st = ev.session === undefined ? undefined : this.sessions.get(ev.session);
    if (!st) return;
    if (ev.type === 'attention.requested') {
      st.attention.set(ev.id, { run: ev.run, at: now });
      while (st.attention.size > this.maxEntries) st.attention.delete(st.attention.keys().next().value as string);
    } else if ((ev.type === 'attention.resolved' || ev.type === 'attention.timeout') && ev.subject) st.attention.delete(ev.subject);
  }

  has(session: string): boolean {
    return this.sessions.has(session);
  }

  /** The session's state, created on first sight; refreshed as most recently used. */
  session(session: string): SessionState {
    const s = this.sessions.get(session) ?? newSessionState();
    this.adopt(session, s);
    return s;
  }

  /** The session's state if this engine holds one, changing nothing (not even its recency). */
  peek(session: string): SessionState | undefined {
    return this.sessions.get(session);
  }

  /** Hold `s` as the session's state, most recently used (a committed firing's draft of a new session). */
  adopt(session: string, s: SessionState): void {
    this.sessions.delete(session);
    this.sessions.set(session, s);
    while (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string);
  }

  forget(session: string): void {
    this.sessions.delete(session);
  }

  /** A table entry still alive at `now`, changing nothing (an expired entry is overwritten by a store or evicted past maxEntries). */
  tableGet(s: SessionState, table: string, key: string, now: number): unknown {
    const e = s.tables.get(table)?.get(key);
    return !e || (e.expires !== undefined && e.expires < now) ? undefined : e.value;
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
