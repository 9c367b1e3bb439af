// One session's held events, off the JavaScript heap (engine/runtime/relay/store.ts
// describes the store; AEP-0003 §5 replay depth in bytes). Moved out of
// store.ts.
import { comparePos, type Position } from './position.ts';
import type { StoredEvent } from './store.ts';

/** Chunk sizes: a session's first chunk is small, each next one doubles up to the largest. */
const FIRST_CHUNK = 4 * 1024;
export const LARGEST_CHUNK = 256 * 1024;
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
export class SessionBuffer {
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

  constructor(
    evictedHigh: Position | null,
    private readonly maxChunk: number,
  ) {
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
