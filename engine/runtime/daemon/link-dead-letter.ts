// What the relay link cannot send (engine/runtime/daemon/relay-link.ts owns the
// connection). No event blocks the ones after it (issue 10): a line larger
// than the relay's advertised frame_bytes (its hello, AEP-0003 §4; lowered
// further when the relay closes with 1009 "message too big") is never sent,
// and a line the relay answers with an `invalid-event` error frame naming
// its id (`cause`) has been refused for good. Either way the line is set
// aside in the dead-letter file beside the log (`dead-letter.ndjson`, 0600,
// one JSON record per line: time, reason, bytes, file, offset, and the exact
// wire text as a string), `onDropped` is told (the daemon logs an
// x.hookmap.event.dropped notice naming the id and size), and the link
// moves on past it.
import { appendFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DroppedLine } from './relay-link-types.ts';
import type { SessionLog } from './session-log.ts';

export const DEAD_LETTER_FILE = 'dead-letter.ndjson';
/** Past this size the dead-letter file keeps the records but no longer the lines themselves. */
const DEAD_LETTER_MAX_BYTES = 64 * 1024 * 1024;

export interface DeadLettersOptions {
  log: SessionLog;
  /** Where set-aside lines go (default `<log dir>/dead-letter.ndjson`). */
  file?: string;
  onDropped?: (d: DroppedLine) => void;
  say: (line: string) => void;
}

/** The relay's frame limit as this link knows it, and the lines set aside past it. */
export class DeadLetters {
  /** The largest frame the relay takes: its hello's limits.frame_bytes, lowered by a 1009 close. */
  private limit = Number.POSITIVE_INFINITY;
  /** What 1009 closes taught: kept across connections (a relay that never advertises stays lowered). */
  private learned = Number.POSITIVE_INFINITY;
  /** The largest line sent on the current connection (a 1009 close blames it). */
  private largestSent = 0;
  private largestChars = 0;

  constructor(private readonly o: DeadLettersOptions) {}

  /** A new connection: nothing sent on it yet. */
  connecting(): void {
    this.largestSent = 0;
    this.largestChars = 0;
  }

  /** The relay's hello: its advertised frame limit (absent: none), never above what a 1009 taught. */
  hello(advertised: unknown): void {
    const adv = Number(advertised);
    this.limit = Math.min(Number.isSafeInteger(adv) && adv > 0 ? adv : Number.POSITIVE_INFINITY, this.learned);
  }

  /** The relay closed 1009 without advertising its limit: the largest line sent on this connection is at fault. */
  tooBig(): void {
    if (this.largestSent <= 0) return;
    this.learned = Math.min(this.learned, this.largestSent - 1);
    this.limit = Math.min(this.limit, this.learned);
  }

  /** True when `line` may be sent (and it is counted as sent); false when it was set aside instead. */
  admit(file: string, offset: number, line: string): boolean {
    // UTF-8 is at most 3 bytes per UTF-16 unit: measure exactly only near the limit
    const bytes = line.length * 3 <= this.limit ? line.length : Buffer.byteLength(line, 'utf8');
    if (bytes > this.limit) {
      this.setAside(file, offset, line, `${bytes} bytes exceed the relay's frame limit (${this.limit} bytes)`);
      return false;
    }
    // a new longest line: its exact size (rarely computed; a 1009 close lowers the limit below it)
    if (line.length > this.largestChars) {
      this.largestChars = line.length;
      this.largestSent = Buffer.byteLength(line, 'utf8');
    }
    return true;
  }

  /** The relay refused event `id` (an error frame naming it): find its line among the unconfirmed ranges. */
  refused(id: string, reason: string, unconfirmed: Iterable<[file: string, from: number, to: number]>): void {
    const needle = Buffer.from(`"id":${JSON.stringify(id)}`);
    for (const [file, from, end] of unconfirmed) {
      const buf = this.o.log.read(file, from, end);
      const at = buf.indexOf(needle);
      if (at < 0) continue;
      const start = buf.lastIndexOf(10, at) + 1;
      let stop = buf.indexOf(10, at);
      if (stop < 0) stop = buf.length;
      this.setAside(file, from + start, buf.subarray(start, stop).toString('utf8'), reason);
      return;
    }
  }

  private setAside(file: string, offset: number, line: string, reason: string): void {
    const bytes = Buffer.byteLength(line, 'utf8');
    const info: DroppedLine = { ...identify(line), bytes, reason, file, offset };
    const path = this.o.file ?? join(this.o.log.dir, DEAD_LETTER_FILE);
    let size = 0;
    try {
      size = existsSync(path) ? statSync(path).size : 0;
    } catch {
      /* unreadable: try the append anyway */
    }
    const rec: Record<string, unknown> = { time: new Date().toISOString(), reason, bytes, file, offset, id: info.id, type: info.type };
    if (size + bytes < DEAD_LETTER_MAX_BYTES) rec.line = line;
    else rec.line_omitted = `the dead-letter file is over ${DEAD_LETTER_MAX_BYTES} bytes; the line stays in ${file} at offset ${offset}`;
    try {
      appendFileSync(path, `${JSON.stringify(rec)}\n`, { mode: 0o600 });
    } catch (e) {
      this.o.say(`could not write the dead-letter file ${path}: ${(e as Error).message}`);
    }
    this.o.say(`event ${info.id ?? '(no id)'} (${info.type ?? '?'}, ${bytes} bytes) set aside in ${path}: ${reason}`);
    const cb = this.o.onDropped;
    // after the current send loop: the notice is an ordinary event appended to the log
    if (cb)
      queueMicrotask(() => {
        try {
          cb(info);
        } catch (e) {
          this.o.say(`onDropped failed: ${(e as Error).message}`);
        }
      });
  }
}

/** id, type and session of a logged line (parsed when it is JSON; the envelope's own attributes only). */
function identify(line: string): { id?: string; type?: string; session?: string } {
  let ev: unknown;
  try {
    ev = JSON.parse(line);
  } catch {
    return {};
  }
  if (!ev || typeof ev !== 'object') return {};
  const o = ev as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return { id: str(o.id), type: str(o.type), session: str(o.session) };
}
