// The relay link's bookkeeping (engine/daemon/relay-link.ts has the
// connection and the replay): how far each log file was sent and CONFIRMED
// (a `pong` after a `ping`, AEP-0003 §3.5), the cursors persisted beside
// the log, the relay's frame limit, and the dead-letter file for lines the
// relay cannot take. Moved out of relay-link.ts as the base class of
// RelayLink.
//
// No event blocks the ones after it (issue 10): a line larger than the
// relay's advertised frame_bytes (its hello, AEP-0003 §4; lowered further
// when the relay closes with 1009 "message too big") is never sent, and a
// line the relay answers with an `invalid-event` error frame naming its id
// (`cause`) has been refused for good. Either way the line is set aside in
// the dead-letter file beside the log (`dead-letter.ndjson`, 0600, one JSON
// record per line: time, reason, bytes, file, offset, and the exact wire
// text as a string), `onDropped` is told (the daemon logs an
// x.hookmap.event.dropped notice naming the id and size), and the link
// moves on past it.
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { writeAtomic } from './epoch.ts';
import type { DroppedLine, RelayLinkOptions, State } from './relay-link-types.ts';
import { RelayUrls } from './relay-urls.ts';

export const DEAD_LETTER_FILE = 'dead-letter.ndjson';
/** Past this size the dead-letter file keeps the records but no longer the lines themselves. */
const DEAD_LETTER_MAX_BYTES = 64 * 1024 * 1024;

const PING_DELAY_MS = 25;
const PERSIST_DELAY_MS = 100;
const MAX_CURSORS = 5_000;

export abstract class RelayLinkState {
  protected ws?: WebSocket;
  protected state: State = 'down';
  protected readonly confirmed = new Map<string, number>();
  protected readonly sent = new Map<string, number>();
  protected readonly dirty = new Set<string>();
  protected sinceLastPing = new Map<string, number>();
  protected readonly pings = new Map<number, Map<string, number>>();
  protected pingCounter = 0;
  protected pingTimer?: NodeJS.Timeout;
  protected persistTimer?: NodeJS.Timeout;
  /** The largest frame the relay takes: its hello's limits.frame_bytes, lowered by a 1009 close. */
  protected frameLimit = Number.POSITIVE_INFINITY;
  /** The largest line sent on the current connection (a 1009 close blames it). */
  protected largestSent = 0;
  protected largestChars = 0;
  /** The relays it dials, in turn after a failure. */
  readonly relays: RelayUrls;

  constructor(protected readonly o: RelayLinkOptions) {
    this.relays = new RelayUrls(o.url);
    this.loadCursors();
  }

  protected position(file: string): number {
    return this.sent.get(file) ?? this.confirmed.get(file) ?? 0;
  }

  // --- sending, and setting aside what the relay cannot take ------------------

  /** Send one logged line, or set it aside when it exceeds the relay's frame limit. */
  protected sendLine(file: string, offset: number, line: string): void {
    // UTF-8 is at most 3 bytes per UTF-16 unit: measure exactly only near the limit
    const bytes = line.length * 3 <= this.frameLimit ? line.length : Buffer.byteLength(line, 'utf8');
    if (bytes > this.frameLimit) {
      this.setAside(file, offset, line, `${bytes} bytes exceed the relay's frame limit (${this.frameLimit} bytes)`);
      return;
    }
    // a new longest line: its exact size (rarely computed; a 1009 close lowers the limit below it)
    if (line.length > this.largestChars) {
      this.largestChars = line.length;
      this.largestSent = Buffer.byteLength(line, 'utf8');
    }
    this.ws!.send(line);
  }

  /** The relay refused event `id` (an error frame naming it): find its line among those not yet confirmed. */
  protected refused(id: string, reason: string): void {
    const needle = Buffer.from(`"id":${JSON.stringify(id)}`);
    for (const [file, end] of this.sent) {
      const from = this.confirmed.get(file) ?? 0;
      if (end <= from) continue;
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

  protected setAside(file: string, offset: number, line: string, reason: string): void {
    const bytes = Buffer.byteLength(line, 'utf8');
    const info: DroppedLine = { ...identify(line), bytes, reason, file, offset };
    const path = this.o.deadLetterFile ?? join(this.o.log.dir, DEAD_LETTER_FILE);
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
      this.say(`could not write the dead-letter file ${path}: ${(e as Error).message}`);
    }
    this.say(`event ${info.id ?? '(no id)'} (${info.type ?? '?'}, ${bytes} bytes) set aside in ${path}: ${reason}`);
    const cb = this.o.onDropped;
    // after the current send loop: the notice is an ordinary event appended to the log
    if (cb)
      queueMicrotask(() => {
        try {
          cb(info);
        } catch (e) {
          this.say(`onDropped failed: ${(e as Error).message}`);
        }
      });
  }

  // --- confirmation ---------------------------------------------------------

  protected markSent(file: string, end: number): void {
    this.sent.set(file, end);
    this.sinceLastPing.set(file, end);
    this.pingTimer ??= setTimeout(() => this.ping(), PING_DELAY_MS);
  }

  protected ping(): void {
    this.pingTimer = undefined;
    if (!this.sinceLastPing.size || !this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    const t = ++this.pingCounter;
    this.pings.set(t, this.sinceLastPing);
    this.sinceLastPing = new Map();
    this.ws.send(JSON.stringify({ type: 'ping', t }));
  }

  protected confirm(t: number): void {
    if (!Number.isFinite(t)) return;
    for (const [k, snap] of this.pings) {
      if (k > t) continue;
      for (const [f, end] of snap) if (end > (this.confirmed.get(f) ?? 0)) this.confirmed.set(f, end);
      this.pings.delete(k);
    }
    this.persistTimer ??= setTimeout(() => {
      this.persistTimer = undefined;
      this.persist();
    }, PERSIST_DELAY_MS);
  }

  // --- cursor persistence -------------------------------------------------------

  protected loadCursors(): void {
    const log = this.o.log;
    if (!existsSync(this.o.cursorFile)) {
      // First run with a link: what is already logged predates us; don't flood a relay with history.
      for (const f of log.files()) this.confirmed.set(f, log.size(f));
      this.persist();
      return;
    }
    let saved: Record<string, number> = {};
    try {
      saved = JSON.parse(readFileSync(this.o.cursorFile, 'utf8'));
    } catch {
      this.say(`${this.o.cursorFile} unreadable: re-sending every session log (the relay dedupes)`);
    }
    const savedAt = statSync(this.o.cursorFile).mtimeMs;
    for (const f of log.files()) {
      const size = log.size(f);
      let c = Number.isSafeInteger(saved[f]) ? Math.min(saved[f], size) : undefined;
      // absent + untouched since the last save: it was pruned as fully confirmed
      if (c === undefined) c = statSync(`${log.dir}/${f}`).mtimeMs <= savedAt ? size : 0;
      this.confirmed.set(f, c);
      if (size > c) this.dirty.add(f);
    }
  }

  protected persist(): void {
    if (this.confirmed.size > MAX_CURSORS) {
      for (const [f, c] of this.confirmed) {
        if (this.confirmed.size <= MAX_CURSORS) break;
        if (c >= this.o.log.size(f) && !this.dirty.has(f) && !this.sent.has(f)) this.confirmed.delete(f);
      }
    }
    try {
      writeAtomic(this.o.cursorFile, JSON.stringify(Object.fromEntries(this.confirmed)));
    } catch (e) {
      this.say(`could not persist relay cursors: ${(e as Error).message}`);
    }
  }

  protected say(line: string): void {
    this.o.say?.(line);
  }
}

/** id, type and session of a logged line (parsed when it is JSON; the envelope's own attributes only). */
function identify(line: string): { id?: string; type?: string; session?: string } {
  let ev: any;
  try {
    ev = JSON.parse(line);
  } catch {
    return {};
  }
  if (!ev || typeof ev !== 'object') return {};
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return { id: str(ev.id), type: str(ev.type), session: str(ev.session) };
}
