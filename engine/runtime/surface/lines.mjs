// Line framing for a byte stream the tee passes through: complete lines are
// handed to `onLine` (without the newline; a trailing CR is kept, JSON does
// not care), a line longer than `maxBytes` is never held in memory: it is
// counted, its bytes dropped as they arrive, and reported once at its newline
// through `onOversize`. Framing is for observation only: the pass-through
// never waits on it (engine/runtime/surface/tee.mjs writes the raw chunk first).
// Newline-delimited JSON-RPC framing: ACP (bridge-acp-design.md, "newline
// framing makes the tee a line pass-through").

export class LineFramer {
  /**
   * @param {number} maxBytes  longest line kept for mapping
   * @param {(line: Buffer, lineNo: number) => void} onLine
   * @param {(bytes: number, lineNo: number) => void} onOversize
   */
  constructor(maxBytes, onLine, onOversize) {
    this.maxBytes = maxBytes;
    this.onLine = onLine;
    this.onOversize = onOversize;
    this.parts = [];
    this.size = 0;
    this.dropped = 0;
    this.lineNo = 0;
  }

  /** True while a line has started and its newline has not arrived. */
  get midLine() {
    return this.size > 0 || this.dropped > 0;
  }

  /** Bytes of the current unfinished line held for mapping (0 when dropping an oversize one). */
  get held() {
    return this.size;
  }

  push(chunk) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      this.take(chunk, start, nl);
      this.flush();
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk, start, chunk.length);
  }

  /** End of stream: an unfinished last line still counts as a line. */
  end() {
    if (this.midLine) this.flush();
  }

  take(chunk, from, to) {
    const n = to - from;
    if (n === 0) return;
    if (this.dropped > 0) {
      this.dropped += n;
      return;
    }
    if (this.size + n > this.maxBytes) {
      this.dropped = this.size + n;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to));
    this.size += n;
  }

  flush() {
    this.lineNo++;
    if (this.dropped > 0) {
      const bytes = this.dropped;
      this.dropped = 0;
      this.onOversize(bytes, this.lineNo);
      return;
    }
    const line = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    this.onLine(line, this.lineNo);
  }
}
