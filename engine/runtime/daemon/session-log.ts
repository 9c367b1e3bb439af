// The durable record: one JSONL file per session, each event appended (one
// write of one whole line) BEFORE it is sent anywhere. The log is also the
// relay outbox (relay-link.ts reads unconfirmed byte ranges back), so an
// event the agent was answered after is always on disk.
//
// A line torn by a crash mid-write (power loss; a SIGKILL cannot split one
// write) was never acknowledged to anyone, so it is cut off when the file is
// first opened again rather than glued to the next event.
//
// Durability: `none` (default) hands every line to the OS before the agent
// is answered, which survives any crash of hookmap itself; `fsync` also
// waits for the disk (fdatasync) before answering, which survives power
// loss. Flushes are group commits: appends stay synchronous and in order,
// commit() resolves once everything appended before it is on disk, and
// every firing that arrives while a flush runs shares the next one, off the
// event loop (the libuv pool), so one slow disk never serializes agents.
import { closeSync, existsSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AepEvent } from '../../core/map/envelope.ts';
import type { Position } from '../../core/kernel/position.ts';
import { sessionFileName } from '../../core/io/paths.ts';
import { TYPE } from '../../core/kernel/lifecycle.ts';

export const AGENT_FILE = '_agent.jsonl'; // agent-scoped events; slugs never start with '_'

export interface AppendRecord {
  /** File name inside the log folder. */
  file: string;
  session?: string;
  start: number;
  end: number;
  /** The exact wire text (no newline). */
  line: string;
}

export type Durability = 'none' | 'fsync';
export const DURABILITY: Durability[] = ['none', 'fsync'];

export interface SessionLogOptions {
  /** `fsync`: commit() waits for the disk (group commit); `none` (default): the OS page cache. */
  durability?: Durability;
  maxOpenFiles?: number;
}

export class SessionLog {
  private readonly fds = new Map<string, number>(); // LRU: Map order = recency
  private readonly sizes = new Map<string, number>();
  private readonly maxOpen: number;
  /** fsync mode: files written since their last flush began. */
  private readonly dirty = new Set<number>();
  /** fds a flush is using: closed only once it is done (an fd number must not be reused under it). */
  private readonly pinned = new Map<number, number>();
  private readonly closeLater = new Set<number>();
  private flushing: Promise<void> | null = null;
  private nextFlush: Promise<void> | null = null;
  /** Flushes run so far (bench/durability reports group commit with it). */
  flushes = 0;

  constructor(
    readonly dir: string,
    private readonly opts: SessionLogOptions = {},
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.maxOpen = opts.maxOpenFiles ?? 64;
  }

  fileOf(session: string | undefined): string {
    return session === undefined ? AGENT_FILE : sessionFileName(session);
  }

  append(ev: AepEvent): AppendRecord {
    const file = this.fileOf(ev.session);
    const fd = this.fd(file);
    const line = JSON.stringify(ev);
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    const start = this.sizes.get(file)!;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off, start + off);
    if (this.opts.durability === 'fsync') this.dirty.add(fd);
    const end = start + bytes.length;
    this.sizes.set(file, end);
    return { file, session: ev.session, start, end, line };
  }

  /** Current end of a file (0 when it does not exist). */
  size(file: string): number {
    const known = this.sizes.get(file);
    if (known !== undefined) return known;
    const p = join(this.dir, file);
    if (!existsSync(p)) return 0;
    this.fd(file);
    return this.sizes.get(file)!;
  }

  /** Every session file in the folder. */
  files(): string[] {
    return readdirSync(this.dir).filter((f) => f.endsWith('.jsonl'));
  }

  /** Bytes [from, to) of a file. */
  read(file: string, from: number, to: number): Buffer {
    const fd = this.fd(file);
    const buf = Buffer.alloc(Math.max(0, to - from));
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, from + off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  }

  /** Whether a session was never logged, is open, or has logged its session.ended (scanning back from the end). */
  sessionHistory(session: string): 'none' | 'open' | 'ended' {
    const file = this.fileOf(session);
    if (!this.sizes.has(file) && !existsSync(join(this.dir, file))) return 'none';
    const size = this.size(file);
    if (size === 0) return 'none';
    const needle = Buffer.from(`"type":"${TYPE.sessionEnded}"`);
    const CHUNK = 64 * 1024;
    let end = size;
    while (end > 0) {
      const from = Math.max(0, end - CHUNK);
      // overlap by the needle's length so a match across chunks is found
      if (this.read(file, from, Math.min(size, end + needle.length)).indexOf(needle) >= 0) return 'ended';
      end = from;
    }
    return 'open';
  }

  /** The last logged (epoch, seq) of a session, scanning back from the end. */
  lastPosition(session: string): Position | undefined {
    const file = this.fileOf(session);
    const size = this.size(file);
    let end = size;
    let carry = Buffer.alloc(0);
    const CHUNK = 64 * 1024;
    while (end > 0) {
      const from = Math.max(0, end - CHUNK);
      const buf = Buffer.concat([this.read(file, from, end), carry]);
      const lines = buf.toString('utf8').split('\n');
      // the first piece may be a partial line unless we reached the start
      carry = from > 0 ? Buffer.from(lines.shift()!, 'utf8') : Buffer.alloc(0);
      for (let i = lines.length - 1; i >= 0; i--) {
        if (!lines[i]) continue;
        try {
          const ev = JSON.parse(lines[i]);
          if (Number.isSafeInteger(ev?.seq)) return { epoch: Number.isSafeInteger(ev.epoch) ? ev.epoch : 0, seq: ev.seq };
        } catch {
          /* not an event line: keep looking */
        }
      }
      end = from;
    }
    return undefined;
  }

  /**
   * Resolves once every line appended before this call is on disk; null
   * when there is nothing to wait for (durability `none`, or nothing new).
   */
  commit(): Promise<void> | null {
    if (this.opts.durability !== 'fsync') return null;
    if (!this.flushing) return this.dirty.size ? (this.flushing = this.flush()) : null;
    // a flush is running and does not cover what was written since it began: share the next one
    if (!this.dirty.size) return this.flushing;
    return (this.nextFlush ??= this.flushing.then(() => {
      this.nextFlush = null;
      return (this.flushing = this.flush());
    }));
  }

  private async flush(): Promise<void> {
    const fds = [...this.dirty];
    this.dirty.clear();
    this.flushes++;
    for (const fd of fds) this.pinned.set(fd, (this.pinned.get(fd) ?? 0) + 1);
    try {
      await Promise.all(fds.map((fd) => new Promise<void>((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())))));
    } finally {
      for (const fd of fds) {
        const n = this.pinned.get(fd)! - 1;
        if (n > 0) this.pinned.set(fd, n);
        else {
          this.pinned.delete(fd);
          if (this.closeLater.delete(fd)) closeSync(fd);
        }
      }
      if (this.flushing && !this.nextFlush) this.flushing = null;
    }
  }

  close(): void {
    for (const fd of this.fds.values()) {
      if (this.dirty.delete(fd)) fdatasyncSync(fd);
      if (this.pinned.has(fd)) this.closeLater.add(fd);
      else closeSync(fd);
    }
    this.fds.clear();
  }

  private release(fd: number): void {
    if (this.dirty.delete(fd)) fdatasyncSync(fd); // leaving the LRU: flush it now, it will not be in the next group
    if (this.pinned.has(fd)) this.closeLater.add(fd);
    else closeSync(fd);
  }

  private fd(file: string): number {
    let fd = this.fds.get(file);
    if (fd !== undefined) {
      this.fds.delete(file);
      this.fds.set(file, fd);
      return fd;
    }
    fd = openSync(join(this.dir, file), 'a+', 0o600);
    this.fds.set(file, fd);
    if (!this.sizes.has(file)) this.sizes.set(file, repairTail(fd));
    while (this.fds.size > this.maxOpen) {
      const [oldest, ofd] = this.fds.entries().next().value as [string, number];
      this.fds.delete(oldest);
      this.release(ofd);
    }
    return fd;
  }
}

/** Cut a torn last line; returns the file size after repair. */
function repairTail(fd: number): number {
  const size = fstatSync(fd).size;
  if (size === 0) return 0;
  const probe = Buffer.alloc(Math.min(size, 1 << 20));
  let end = size;
  while (end > 0) {
    const from = Math.max(0, end - probe.length);
    const n = readSync(fd, probe, 0, end - from, from);
    const nl = probe.subarray(0, n).lastIndexOf(10);
    if (nl >= 0) {
      const keep = from + nl + 1;
      if (keep !== size) ftruncateSync(fd, keep);
      return keep;
    }
    end = from;
  }
  ftruncateSync(fd, 0); // one torn line and nothing else
  return 0;
}
