// The relay's in-memory store (engine/runtime/relay/store.ts describes it):
// per-session off-heap buffers (session-buffer.ts) bounded in events and
// bytes per session and in bytes in total, least recently written sessions
// evicted first and remembered (tombstones) so a resume below them learns
// of the gap (AEP-0003 §5). Moved out of store.ts.
import { LARGEST_CHUNK, SessionBuffer } from './session-buffer.ts';
import { comparePos, positionOf, type Position } from './position.ts';
import type { Held, RelayStore, ReplayResult, StoreBounds, StoreStats } from './store.ts';

export class MemoryStore implements RelayStore {
  protected buffers = new Map<string, SessionBuffer>(); // Map order = write recency (oldest first)
  protected tombstones = new Map<string, Position>(); // wholly evicted sessions, so their resumers still learn of the gap
  private listeners = new Set<(held: Held) => void>();
  private totalBytes = 0;
  private evictedSessions = 0;
  private evictedEvents = 0;
  private readonly b: StoreBounds;

  /** Chunks grow to at most an eighth of a session's budget, so one chunk never is the budget. */
  private readonly maxChunk: number;

  constructor(bounds: StoreBounds) {
    this.b = { ...bounds };
    this.maxChunk = Math.max(1024, Math.min(LARGEST_CHUNK, Math.floor(bounds.sessionBytes / 8)));
  }

  admit(held: Held): boolean {
    const ev = held.ev;
    const session = ev.session!;
    let buf = this.buffers.get(session);
    const fresh = !buf;
    if (!buf) buf = new SessionBuffer(this.tombstones.get(session) ?? null, this.maxChunk);
    const pos = positionOf(ev);
    if (buf.evictedHigh && comparePos(pos, buf.evictedHigh) <= 0) return false;
    if (buf.holds(pos, ev.source, ev.id)) return false;
    if (fresh) {
      this.tombstones.delete(session);
      this.totalBytes += buf.bytes; // its empty index
    }
    const before = buf.bytes;
    buf.store(held.raw, pos);
    this.totalBytes += buf.bytes - before;
    while (buf.size > this.b.perSession || (buf.bytes > this.b.sessionBytes && buf.size > 0)) this.evictEvent(buf);
    // Refresh write recency, then evict the least recently written past the caps.
    this.buffers.delete(session);
    this.buffers.set(session, buf);
    while (this.buffers.size > this.b.maxSessions) this.evictSession();
    while (this.totalBytes > this.b.totalBytes) {
      const [victim] = this.buffers.keys();
      if (victim !== session) this.evictSession();
      else if (buf.size > 0) this.evictEvent(buf);
      else break;
    }
    if (buf.size === 0 && buf.evictedHigh && this.buffers.get(session) === buf) {
      // everything this session had is already gone (one event over the budget)
      this.buffers.delete(session);
      this.totalBytes -= buf.bytes;
      this.tombstone(session, buf.evictedHigh);
    }
    return true;
  }

  restore(session: string, events: Held[], truncated: boolean): void {
    if (truncated && events.length) {
      const first = positionOf(events[0].ev);
      const buf = this.buffers.get(session) ?? new SessionBuffer(null, this.maxChunk);
      const before = { epoch: first.epoch, seq: first.seq - 1 };
      if (!buf.evictedHigh || comparePos(before, buf.evictedHigh) > 0) buf.evictedHigh = before;
      if (!this.buffers.has(session)) {
        this.buffers.set(session, buf);
        this.totalBytes += buf.bytes;
      }
    }
    for (const h of events) this.admit(h);
  }

  private evictEvent(buf: SessionBuffer): void {
    this.totalBytes -= buf.evictOldest();
    this.evictedEvents++;
  }

  private evictSession(): void {
    const [victim, vbuf] = this.buffers.entries().next().value as [string, SessionBuffer];
    this.buffers.delete(victim);
    this.totalBytes -= vbuf.bytes;
    this.evictedSessions++;
    this.evictedEvents += vbuf.size;
    const last = vbuf.last() ?? vbuf.evictedHigh;
    if (last) this.tombstone(victim, { epoch: last.epoch, seq: last.seq });
  }

  protected tombstone(session: string, pos: Position): void {
    this.tombstones.delete(session);
    this.tombstones.set(session, pos);
    while (this.tombstones.size > this.b.maxSessions) this.tombstones.delete(this.tombstones.keys().next().value as string);
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
    const out: ReplayResult = { events: buf.after(after) };
    if (after && buf.evictedHigh && comparePos(after, buf.evictedHigh) < 0) {
      const first = buf.first();
      out.exhausted = first ? { epoch: first.epoch, seq: first.seq } : { epoch: buf.evictedHigh.epoch, seq: buf.evictedHigh.seq + 1 };
    }
    return out;
  }

  sessions(): string[] {
    return [...this.buffers.keys()];
  }

  stats(): StoreStats {
    let events = 0;
    for (const b of this.buffers.values()) events += b.size;
    return { sessions: this.buffers.size, events, bytes: this.totalBytes, evictedSessions: this.evictedSessions, evictedEvents: this.evictedEvents };
  }
}
