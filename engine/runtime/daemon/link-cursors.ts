// The relay link's outbox positions (engine/runtime/daemon/relay-link.ts owns the
// connection): per session log file, how far was SENT on this connection and
// how far the relay CONFIRMED (a `pong` answers a `ping` sent after the
// events; the relay handles frames in order, so everything before the ping
// was ingested, AEP-0003 §3.5), which files have lines past their position,
// and the confirmed offsets persisted beside the log so a restarted daemon
// re-sends from there (the relay dedupes on (source, id)). Memory holds only
// offsets, so the outbox is bounded whatever the outage length. While the
// link runs, the offsets are written off the main thread (the flush to disk
// in libuv's pool, one write at a time): a hook is never answered behind an
// fsync. A write that lost a race leaves older offsets, which only re-send.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { writeAtomic, writeAtomicAsync } from '../../core/io/atomic.ts';
import type { SessionLog } from './session-log.ts';

const PING_DELAY_MS = 25;
const PERSIST_DELAY_MS = 100;
const MAX_CURSORS = 5_000;

export interface LinkCursorsOptions {
  log: SessionLog;
  /** Where confirmed offsets persist (`<logdir>/relay-cursors.json`). */
  cursorFile: string;
  /** Send a ping numbered `t` on the current connection; false when there is none open. */
  ping: (t: number) => boolean;
  say: (line: string) => void;
}

export class LinkCursors {
  /** Files with lines past their position (to be read from the log and sent). */
  readonly dirty = new Set<string>();
  private readonly confirmed = new Map<string, number>();
  private readonly sent = new Map<string, number>();
  private sinceLastPing = new Map<string, number>();
  private readonly pings = new Map<number, Map<string, number>>();
  private pingCounter = 0;
  private pingTimer?: NodeJS.Timeout;
  private persistTimer?: NodeJS.Timeout;
  /** The write under way (off the main thread), and whether another is due after it. */
  private writing?: Promise<void>;
  private again = false;

  constructor(private readonly o: LinkCursorsOptions) {
    this.load();
  }

  /** Where the next line of `file` starts: past what was sent on this connection, else past what was confirmed. */
  position(file: string): number {
    return this.sent.get(file) ?? this.confirmed.get(file) ?? 0;
  }

  /** A file with no cursor is new, or was pruned as fully confirmed: either way confirmed up to `start`. */
  known(file: string, start: number): void {
    if (!this.confirmed.has(file)) this.confirmed.set(file, start);
  }

  /** Sent and not yet confirmed: from the confirmed offset to the sent one, per file. */
  *unconfirmed(): Iterable<[file: string, from: number, to: number]> {
    for (const [file, end] of this.sent) {
      const from = this.confirmed.get(file) ?? 0;
      if (end > from) yield [file, from, end];
    }
  }

  markSent(file: string, end: number): void {
    this.sent.set(file, end);
    this.sinceLastPing.set(file, end);
    this.pingTimer ??= setTimeout(() => this.ping(), PING_DELAY_MS);
  }

  /** The relay answered ping `t`: everything sent before it is confirmed. */
  confirm(t: number): void {
    if (!Number.isFinite(t)) return;
    for (const [k, snap] of this.pings) {
      if (k > t) continue;
      for (const [f, end] of snap) if (end > (this.confirmed.get(f) ?? 0)) this.confirmed.set(f, end);
      this.pings.delete(k);
    }
    this.persistSoon();
  }

  private persistSoon(): void {
    this.persistTimer ??= setTimeout(() => {
      this.persistTimer = undefined;
      this.persistAsync();
    }, PERSIST_DELAY_MS);
  }

  private persistAsync(): void {
    if (this.writing) {
      this.again = true;
      return;
    }
    this.writing = writeAtomicAsync(this.o.cursorFile, this.snapshot())
      .catch((e: Error) => this.o.say(`could not persist relay cursors: ${e.message}`))
      .finally(() => {
        this.writing = undefined;
        if (this.again) {
          this.again = false;
          this.persistSoon();
        }
      });
  }

  /** Settled once no write is under way (tests, and a caller that must see the file). */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** The connection is gone: nothing past the confirmed offsets is known to have arrived. */
  lost(): void {
    this.sent.clear();
    this.sinceLastPing.clear();
    this.pings.clear();
    clearTimeout(this.pingTimer);
    this.pingTimer = undefined;
    for (const [f, c] of this.confirmed) if (this.o.log.size(f) > c) this.dirty.add(f);
  }

  /** Stop the timers and save what was confirmed. */
  stop(): void {
    clearTimeout(this.pingTimer);
    clearTimeout(this.persistTimer);
    this.persist();
  }

  private ping(): void {
    this.pingTimer = undefined;
    if (!this.sinceLastPing.size) return;
    const t = this.pingCounter + 1;
    if (!this.o.ping(t)) return;
    this.pingCounter = t;
    this.pings.set(t, this.sinceLastPing);
    this.sinceLastPing = new Map();
  }

  private load(): void {
    const { log, cursorFile } = this.o;
    if (!existsSync(cursorFile)) {
      // First run with a link: what is already logged predates us; don't flood a relay with history.
      for (const f of log.files()) this.confirmed.set(f, log.size(f));
      this.persist();
      return;
    }
    let saved: Record<string, number> = {};
    try {
      saved = JSON.parse(readFileSync(cursorFile, 'utf8'));
    } catch {
      this.o.say(`${cursorFile} unreadable: re-sending every session log (the relay dedupes)`);
    }
    const savedAt = statSync(cursorFile).mtimeMs;
    for (const f of log.files()) {
      const size = log.size(f);
      let c = Number.isSafeInteger(saved[f]) ? Math.min(saved[f], size) : undefined;
      // absent + untouched since the last save: it was pruned as fully confirmed
      if (c === undefined) c = statSync(`${log.dir}/${f}`).mtimeMs <= savedAt ? size : 0;
      this.confirmed.set(f, c);
      if (size > c) this.dirty.add(f);
    }
  }

  /** The confirmed offsets as the file holds them (past MAX_CURSORS, fully confirmed idle files are forgotten first). */
  private snapshot(): string {
    if (this.confirmed.size > MAX_CURSORS) {
      for (const [f, c] of this.confirmed) {
        if (this.confirmed.size <= MAX_CURSORS) break;
        if (c >= this.o.log.size(f) && !this.dirty.has(f) && !this.sent.has(f)) this.confirmed.delete(f);
      }
    }
    return JSON.stringify(Object.fromEntries(this.confirmed));
  }

  /** Written at once (the first run, and the link's stop). */
  private persist(): void {
    try {
      writeAtomic(this.o.cursorFile, this.snapshot());
    } catch (e) {
      this.o.say(`could not persist relay cursors: ${(e as Error).message}`);
    }
  }
}
