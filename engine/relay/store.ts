// The relay's buffer, admission dedupe and fan-out, behind one interface
// (DESIGN.md "Growing past one machine"): a JetStream-backed store can take
// MemoryStore's place so several relay nodes share one stream. Everything
// above this file (HTTP, SSE, WS, routing) only talks to RelayStore.
//
// The interface is synchronous on purpose: the relay hands replay over to
// live delivery inside one tick (replay, then register), which is what
// makes "no gaps, no duplicates" hold without a reconciliation step. The
// networked store keeps a local mirror to answer synchronously.
//
// MemoryStore holds each event ONCE, as its wire bytes (UTF-8) in
// per-session chunks outside the JavaScript heap (the parsed envelope lives
// only while it is fanned out), indexed by position in typed arrays, and is
// bounded in bytes (AEP-0003 §5 advertised depth): per session (events and
// bytes) and in total (bytes; least recently written sessions go first).
// What is charged is what is allocated: every chunk's and index array's
// full size. Resuming below what is held yields the replay-exhausted
// position (§5), never silence.
import type { CaptureLevel } from '../aep/schemas.ts';
import type { NetworkedStore } from './backplane/types.ts';

export interface Position { epoch: number; seq: number }

export type AepEvent = Record<string, unknown> & {
  aep: string; id: string; type: string; time: string; source: string; agent: string;
  session?: string; seq?: number; epoch?: number; severity?: string; capture?: string; cause?: string; subject?: string; run?: string;
  data?: Record<string, unknown>;
};

/** One event in flight (ingest and fan-out): the parsed envelope plus its wire text (forwarded as received). */
export interface Held {
  ev: AepEvent;
  raw: string;
  /** Down-leveled serializations, computed once per ceiling and shared by every subscriber. */
  levels?: Partial<Record<CaptureLevel, string>>;
  /** The wire text as UTF-8 bytes, encoded once and shared by every WebSocket subscriber. */
  bytes?: Buffer;
  /** Fan-out skips subscriptions on this connection (the target a command was routed to already has it). */
  skip?: object;
}

/** One event as a store holds it: its position, and its wire text decoded on demand (nothing parsed). */
export interface StoredEvent {
  readonly epoch: number;
  readonly seq: number;
  text(): string;
}

export interface ReplayResult {
  events: StoredEvent[];
  /** Set when the asked position predates what is held: the earliest held position (AEP-0003 §5). */
  exhausted?: Position;
}

export interface StoreStats { sessions: number; events: number; bytes: number; evictedSessions: number; evictedEvents: number }

export interface StoreBounds {
  /** Events held per session. */
  perSession: number;
  /** Sessions held at once. */
  maxSessions: number;
  /** Bytes held per session. */
  sessionBytes: number;
  /** Bytes held in total. */
  totalBytes: number;
}

export interface RelayStore extends NetworkedStore {
  /** Buffer admission for a sequenced session event: false for a (source, id) duplicate or a position already evicted. */
  admit(held: Held): boolean;
  /** Live fan-out, as received (duplicates included: the relay is not the terminal consumer, AEP-0003 §5). */
  publish(held: Held): void;
  /** Receive every published event; returns the unsubscribe function. */
  onPublish(listener: (held: Held) => void): () => void;
  /** Held events of `session` strictly after `after` (everything held when null), ordered by (epoch, seq). */
  replay(session: string, after: Position | null): ReplayResult;
  /**
   * Refill a session from a durable record at start-up (nothing is published):
   * `events` in order; `truncated` when the record holds earlier events than
   * these, so a resume below the first one learns of the gap. A store that
   * is itself durable may ignore it.
   */
  restore(session: string, events: Held[], truncated: boolean): void;
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

/** Chunk sizes: a session's first chunk is small, each next one doubles up to the largest. */
const FIRST_CHUNK = 4 * 1024;
const LARGEST_CHUNK = 256 * 1024;
/** Index bytes per held event: epoch (Int32), seq (Float64), offset, length, chunk (Int32 each). */
const INDEX_BYTES = 4 + 8 + 4 + 4 + 4;
const FIRST_INDEX = 16;

/** What holding `raw` costs at most (restore planning): its UTF-8 bytes plus its index slot. */
export function chargeOf(raw: string): number {
  return Buffer.byteLength(raw) + INDEX_BYTES;
}

/** Off-heap bytes of one session, allocated in chunks; a chunk is freed once no held event is in it. */
interface Chunk {
  buf: Buffer;
  used: number;
  live: number;
}

/**
 * One session's held events. Nothing per event lives on the JavaScript
 * heap: the text is UTF-8 in chunks, the index is five typed arrays
 * ordered by (epoch, seq) (entries before `head` are evicted, compacted
 * lazily). Admission dedupe is by position: an emitter never gives two
 * events one position (AEP-0001 §7), so an event at a held position is a
 * redelivery unless its (source, id) differs, which is checked against the
 * held text (an emitter fault: both are kept).
 */
class SessionBuffer {
  private ep = new Int32Array(FIRST_INDEX);
  private sq = new Float64Array(FIRST_INDEX);
  private off = new Int32Array(FIRST_INDEX);
  private len = new Int32Array(FIRST_INDEX);
  private chk = new Int32Array(FIRST_INDEX);
  private head = 0;
  private end = 0;
  /** Chunks in allocation order; chunks[i] has serial chunkBase + i. */
  private chunks: Chunk[] = [];
  private chunkBase = 0;
  private nextChunk: number;
  /** Charged: every chunk's and index array's full allocation. */
  bytes = FIRST_INDEX * INDEX_BYTES;
  /** Highest position trimmed away; resuming below it means a gap (replay-exhausted). */
  evictedHigh: Position | null;

  constructor(evictedHigh: Position | null, private readonly maxChunk: number) {
    this.evictedHigh = evictedHigh;
    this.nextChunk = Math.min(FIRST_CHUNK, maxChunk);
  }

  get size(): number {
    return this.end - this.head;
  }

  private pos(i: number): Position {
    return { epoch: this.ep[i], seq: this.sq[i] };
  }

  first(): Position | undefined {
    return this.size ? this.pos(this.head) : undefined;
  }

  last(): Position | undefined {
    return this.size ? this.pos(this.end - 1) : undefined;
  }

  text(i: number): string {
    const c = this.chunks[this.chk[i] - this.chunkBase];
    return c.buf.toString('utf8', this.off[i], this.off[i] + this.len[i]);
  }

  /** Index of the first held entry strictly after `p` (binary search). */
  private firstAfter(p: Position): number {
    let lo = this.head;
    let hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ep[mid] < p.epoch || (this.ep[mid] === p.epoch && this.sq[mid] <= p.seq)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Is (source, id) already held at position `p`? */
  holds(p: Position, source: string, id: string): boolean {
    for (let i = this.firstAfter(p) - 1; i >= this.head && this.ep[i] === p.epoch && this.sq[i] === p.seq; i--) {
      try {
        const held = JSON.parse(this.text(i)) as { source?: unknown; id?: unknown };
        if (held.id === id && held.source === source) return true;
      } catch {
        /* held text is always JSON; never a match otherwise */
      }
    }
    return false;
  }

  /** Copy `raw` into this session's chunks and index it at `p`. */
  store(raw: string, p: Position): void {
    let cur = this.chunks[this.chunks.length - 1];
    // UTF-8 takes at most 3 bytes per UTF-16 unit: measure exactly only when that bound does not fit
    let n = raw.length * 3;
    if (!cur || cur.buf.length - cur.used < n) {
      n = Buffer.byteLength(raw);
      if (!cur || cur.buf.length - cur.used < n) {
        const size = Math.max(this.nextChunk, n);
        this.nextChunk = Math.min(this.maxChunk, this.nextChunk * 2);
        cur = { buf: Buffer.allocUnsafeSlow(size), used: 0, live: 0 };
        this.chunks.push(cur);
        this.bytes += size;
      }
    }
    const at = cur.used;
    n = cur.buf.write(raw, at, 'utf8');
    cur.used += n;
    cur.live++;
    // events nearly always arrive in order: one comparison and an append; backfill shifts (rare)
    this.room();
    const i = this.end > this.head && comparePos(this.pos(this.end - 1), p) > 0 ? this.firstAfter(p) : this.end;
    if (i < this.end) {
      for (const arr of [this.ep, this.sq, this.off, this.len, this.chk]) arr.copyWithin(i + 1, i, this.end);
    }
    this.ep[i] = p.epoch;
    this.sq[i] = p.seq;
    this.off[i] = at;
    this.len[i] = n;
    this.chk[i] = this.chunkBase + this.chunks.length - 1;
    this.end++;
  }

  /** Make room for one more entry at the end: compact away the evicted prefix, or grow. */
  private room(): void {
    if (this.end < this.ep.length) return;
    if (this.head >= this.ep.length / 2) {
      for (const arr of [this.ep, this.sq, this.off, this.len, this.chk]) arr.copyWithin(0, this.head, this.end);
      this.end -= this.head;
      this.head = 0;
      return;
    }
    this.resize(this.ep.length * 2);
  }

  /** Reallocate the index at `cap` entries (growing, or shrinking once mostly evicted). */
  private resize(cap: number): void {
    const old = this.ep.length;
    const grow = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a.subarray(this.head, this.end));
      return b;
    };
    this.ep = grow(this.ep, (n) => new Int32Array(n));
    this.sq = grow(this.sq, (n) => new Float64Array(n));
    this.off = grow(this.off, (n) => new Int32Array(n));
    this.len = grow(this.len, (n) => new Int32Array(n));
    this.chk = grow(this.chk, (n) => new Int32Array(n));
    this.bytes += (cap - old) * INDEX_BYTES;
    this.end -= this.head;
    this.head = 0;
  }

  /** Drop the oldest entry; returns the bytes this freed. */
  evictOldest(): number {
    const i = this.head++;
    const p = this.pos(i);
    if (!this.evictedHigh || comparePos(p, this.evictedHigh) > 0) this.evictedHigh = p;
    const c = this.chunks[this.chk[i] - this.chunkBase];
    let freed = 0;
    if (--c.live === 0) {
      if (c === this.chunks[this.chunks.length - 1]) c.used = 0; // the current chunk: reuse it
      // free emptied chunks from the front (eviction is oldest-first, so they empty in order)
      while (this.chunks.length > 1 && this.chunks[0].live === 0) {
        freed += this.chunks.shift()!.buf.length;
        this.chunkBase++;
      }
    }
    this.bytes -= freed;
    // an index four times larger than what it holds gives half back
    const cap = this.ep.length;
    if (cap > FIRST_INDEX && this.size * 4 < cap) {
      const before = this.bytes;
      this.resize(cap / 2);
      freed += before - this.bytes;
    }
    return freed;
  }

  /** Entries strictly after `p` (all when null), as stored events decoded on demand. */
  after(p: Position | null): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let i = p ? this.firstAfter(p) : this.head; i < this.end; i++) {
      const at = i;
      const epoch = this.ep[i];
      const seq = this.sq[i];
      // the text is read now: a later eviction may reuse the chunk before the replay gets to it
      const raw = this.text(at);
      out.push({ epoch, seq, text: () => raw });
    }
    return out;
  }
}

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
