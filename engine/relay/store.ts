// The relay's buffer, admission dedupe and fan-out, behind one interface
// (DESIGN.md "Growing past one machine"): a JetStream-backed store can take
// MemoryStore's place so several relay nodes share one stream. Everything
// above this file (HTTP, SSE, WS, routing) only talks to RelayStore.
//
// The interface is synchronous on purpose: the relay hands replay over to
// live delivery inside one tick (replay, then register), which is what
// makes "no gaps, no duplicates" hold without a reconciliation step. A
// networked store would keep a local mirror to answer synchronously, or
// the relay would subscribe first and reconcile by (epoch, seq).
import type { CaptureLevel } from '../aep/schemas.ts';

export interface Position { epoch: number; seq: number }

export type AepEvent = Record<string, unknown> & {
  aep: string; id: string; type: string; time: string; source: string; agent: string;
  session?: string; seq?: number; epoch?: number; severity?: string; capture?: string; cause?: string; subject?: string; run?: string;
  data?: Record<string, unknown>;
};

/** One event as the relay holds it: the parsed envelope plus its wire text (forwarded as received). */
export interface Held {
  ev: AepEvent;
  raw: string;
  /** Down-leveled serializations, computed once per ceiling and shared by every subscriber. */
  levels?: Partial<Record<CaptureLevel, string>>;
  /** Fan-out skips subscriptions on this connection (the target a command was routed to already has it). */
  skip?: object;
}

export interface ReplayResult {
  events: Held[];
  /** Set when the asked position predates what is held: the earliest held position (AEP-0003 §5). */
  exhausted?: Position;
}

export interface StoreStats { sessions: number; events: number; evictedSessions: number }

export interface RelayStore {
  /** Buffer admission for a sequenced session event: false for a (source, id) duplicate or a position already evicted. */
  admit(held: Held): boolean;
  /** Live fan-out, as received (duplicates included: the relay is not the terminal consumer, AEP-0003 §5). */
  publish(held: Held): void;
  /** Receive every published event; returns the unsubscribe function. */
  onPublish(listener: (held: Held) => void): () => void;
  /** Held events of `session` strictly after `after` (everything held when null), ordered by (epoch, seq). */
  replay(session: string, after: Position | null): ReplayResult;
  /** Sessions currently held, least recently written first. */
  sessions(): string[];
  stats(): StoreStats;
}

export function comparePos(a: Position, b: Position): number {
  return a.epoch - b.epoch || a.seq - b.seq;
}

export function positionOf(ev: AepEvent): Position {
  return { epoch: ev.epoch ?? 0, seq: ev.seq ?? 0 };
}

interface SessionBuffer {
  events: Held[];
  ids: Set<string>;
  /** Highest position trimmed away; resuming below it means a gap (replay-exhausted). */
  evictedHigh: Position | null;
}

const idKey = (ev: AepEvent) => `${ev.source}\u0000${ev.id}`;

export class MemoryStore implements RelayStore {
  private buffers = new Map<string, SessionBuffer>(); // Map order = write recency (oldest first)
  private tombstones = new Map<string, Position>(); // wholly evicted sessions, so their resumers still learn of the gap
  private listeners = new Set<(held: Held) => void>();
  private evictedSessions = 0;

  constructor(private readonly perSession: number, private readonly maxSessions: number) {}

  admit(held: Held): boolean {
    const session = held.ev.session!;
    let buf = this.buffers.get(session);
    if (!buf) {
      buf = { events: [], ids: new Set(), evictedHigh: this.tombstones.get(session) ?? null };
      this.tombstones.delete(session);
    }
    const key = idKey(held.ev);
    const pos = positionOf(held.ev);
    if (buf.ids.has(key) || (buf.evictedHigh && comparePos(pos, buf.evictedHigh) <= 0)) {
      if (buf.events.length === 0 && !this.buffers.has(session) && buf.evictedHigh) this.tombstones.set(session, buf.evictedHigh);
      return false;
    }
    insertSorted(buf.events, held, pos);
    buf.ids.add(key);
    while (buf.events.length > this.perSession) {
      const old = buf.events.shift()!;
      buf.ids.delete(idKey(old.ev));
      buf.evictedHigh = maxPos(buf.evictedHigh, positionOf(old.ev));
    }
    // Refresh write recency, then evict the least recently written past the cap.
    this.buffers.delete(session);
    this.buffers.set(session, buf);
    while (this.buffers.size > this.maxSessions) {
      const [victim, vbuf] = this.buffers.entries().next().value as [string, SessionBuffer];
      this.buffers.delete(victim);
      this.evictedSessions++;
      const last = vbuf.events.length ? positionOf(vbuf.events[vbuf.events.length - 1].ev) : vbuf.evictedHigh;
      if (last) this.tombstones.set(victim, last);
      while (this.tombstones.size > this.maxSessions) this.tombstones.delete(this.tombstones.keys().next().value as string);
    }
    return true;
  }

  publish(held: Held): void {
    for (const l of this.listeners) l(held);
  }

  onPublish(listener: (held: Held) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  replay(session: string, after: Position | null): ReplayResult {
    const buf = this.buffers.get(session);
    if (!buf) {
      const gone = this.tombstones.get(session);
      // Wholly evicted: nothing held; the earliest position that could follow is after the last one we had.
      if (after && gone && comparePos(after, gone) < 0) return { events: [], exhausted: { epoch: gone.epoch, seq: gone.seq + 1 } };
      return { events: [] };
    }
    if (!after) return { events: buf.events.slice() };
    const start = firstAfter(buf.events, after);
    const out: ReplayResult = { events: buf.events.slice(start) };
    if (buf.evictedHigh && comparePos(after, buf.evictedHigh) < 0) {
      out.exhausted = buf.events.length ? positionOf(buf.events[0].ev) : { epoch: buf.evictedHigh.epoch, seq: buf.evictedHigh.seq + 1 };
    }
    return out;
  }

  sessions(): string[] {
    return [...this.buffers.keys()];
  }

  stats(): StoreStats {
    let events = 0;
    for (const b of this.buffers.values()) events += b.events.length;
    return { sessions: this.buffers.size, events, evictedSessions: this.evictedSessions };
  }
}

function maxPos(a: Position | null, b: Position): Position {
  return a && comparePos(a, b) >= 0 ? a : b;
}

/** Index of the first held event strictly after `pos` (binary search; buffers are sorted). */
function firstAfter(events: Held[], pos: Position): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePos(positionOf(events[mid].ev), pos) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Events nearly always arrive in order, so the common case is one comparison and a push. */
function insertSorted(events: Held[], held: Held, pos: Position): void {
  const n = events.length;
  if (n === 0 || comparePos(positionOf(events[n - 1].ev), pos) <= 0) {
    events.push(held);
    return;
  }
  events.splice(firstAfter(events, pos), 0, held);
}
