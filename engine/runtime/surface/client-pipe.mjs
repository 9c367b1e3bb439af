// The editor -> agent direction of the tee: the editor's bytes go to the
// agent's stdin unchanged and at once, except in two narrow cases the daemon
// asks for, both only when the operator opted into control:
//
//   inject(line)   a line hookmap writes itself (a command's bytes, a held
//                  request's answer): it goes in at a line boundary, never
//                  inside a line the editor is still writing (bounded wait);
//   swallow(id)    the editor's own late answer to a request hookmap already
//                  answered: that one response line is not passed on (the
//                  agent must see one answer per request). While such an id
//                  is outstanding, the editor's bytes are passed line by line;
//                  a partial line is held at most HOLD_MS / HOLD_BYTES and
//                  then passed on raw (it can no longer be swallowed).
//
// Everything written to the agent is also framed (`framer`), so moments
// describe exactly what the agent received. Surface design: AEP
// docs/components/bridge-acp-design.md (transparency; the editor gate).

const HOLD_MS = 50;
const HOLD_BYTES = 64 * 1024;
const INJECT_WAIT_MS = 2_000;

export class ClientPipe {
  /**
   * @param {{ write(buf: Buffer): boolean, end(): void }} dest  the agent's stdin
   * @param {{ push(buf: Buffer): void, end(): void, readonly midLine: boolean }} framer  frames what was written
   * @param {{
   *   onPressure?: (paused: boolean) => void,
   *   isResponseTo?: (line: Buffer, ids: Set<string>) => string | undefined,
   *   setOrigin?: (origin: unknown) => void,
   * }} [o]
   */
  constructor(dest, framer, o = {}) {
    this.dest = dest;
    this.framer = framer;
    this.o = o;
    this.swallowing = new Set();
    this.hold = [];
    this.holdSize = 0;
    this.holdTimer = undefined;
    this.injections = []; // { line, origin, done, timer }
    this.ended = false;
  }

  write(buf) {
    if (!buf.length) return;
    if (!this.dest.write(buf)) this.o.onPressure?.(true);
    this.framer.push(buf);
  }

  /** Bytes from the editor. */
  push(chunk) {
    if (this.swallowing.size === 0 && !this.hold.length) return this.passThrough(chunk);
    this.filtered(chunk);
  }

  passThrough(chunk) {
    if (this.injections.length && this.framer.midLine) {
      const nl = chunk.indexOf(10);
      if (nl < 0) return this.write(chunk);
      this.write(chunk.subarray(0, nl + 1));
      this.flushInjections();
      chunk = chunk.subarray(nl + 1);
    }
    this.write(chunk);
  }

  filtered(chunk) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl < 0 ? chunk.length : nl + 1;
      const piece = chunk.subarray(start, end);
      start = end;
      if (this.framer.midLine) {
        // the rest of a line already passed on raw (released, or started before filtering)
        this.write(piece);
        if (nl >= 0) this.flushInjections();
        continue;
      }
      if (nl < 0) {
        this.hold.push(piece);
        this.holdSize += piece.length;
        if (this.holdSize > HOLD_BYTES) this.releaseHold();
        else this.armHold();
        continue;
      }
      const line = this.hold.length ? Buffer.concat([...this.hold, piece]) : piece;
      this.clearHold();
      const id = this.o.isResponseTo?.(line, this.swallowing);
      if (id !== undefined)
        this.swallowing.delete(id); // not passed on: the agent already has its answer
      else this.write(line);
      this.flushInjections();
    }
  }

  armHold() {
    if (this.holdTimer) return;
    this.holdTimer = setTimeout(() => this.releaseHold(), HOLD_MS);
    this.holdTimer.unref?.();
  }

  clearHold() {
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    this.hold = [];
    this.holdSize = 0;
  }

  /** A held partial line goes on raw (never held indefinitely); the rest of that line follows raw. */
  releaseHold() {
    const held = this.hold;
    this.clearHold();
    for (const b of held) this.write(b);
  }

  /** The editor will answer request `id` too late: drop that answer. */
  swallow(id) {
    this.swallowing.add(id);
    if (this.swallowing.size > 1024) this.swallowing.delete(this.swallowing.values().next().value);
  }

  /**
   * Write `line` (no newline) to the agent at the next line boundary.
   * `done(ok, why?)` says whether it was written; `still()` (optional) is
   * asked at the moment of writing whether the line is still wanted (an
   * answer the editor gave first makes hookmap's moot).
   */
  inject(line, origin, done, still) {
    if (this.ended) return done(false, "the agent's stdin is closed");
    const job = { line, origin, done, still, timer: undefined };
    if (!this.framer.midLine) return this.writeInjection(job);
    job.timer = setTimeout(() => {
      const i = this.injections.indexOf(job);
      if (i >= 0) this.injections.splice(i, 1);
      done(false, `the editor left a line unfinished for ${INJECT_WAIT_MS} ms`);
    }, INJECT_WAIT_MS);
    job.timer.unref?.();
    this.injections.push(job);
  }

  flushInjections() {
    if (this.framer.midLine) return;
    for (const job of this.injections.splice(0)) {
      clearTimeout(job.timer);
      this.writeInjection(job);
    }
  }

  writeInjection(job) {
    if (job.still && !job.still()) return job.done(false, 'no longer wanted when its turn came');
    this.o.setOrigin?.(job.origin);
    this.write(Buffer.from(`${job.line}\n`, 'utf8'));
    this.o.setOrigin?.(undefined);
    job.done(true);
  }

  /** The editor closed its side: whatever is held goes on, then the agent's stdin closes. */
  end() {
    if (this.ended) return;
    this.releaseHold();
    for (const job of this.injections.splice(0)) {
      clearTimeout(job.timer);
      job.done(false, 'the editor closed the connection first');
    }
    this.ended = true;
    this.dest.end();
  }
}
