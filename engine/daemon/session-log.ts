// The durable record: one JSONL file per session, each event appended (one
// write of one whole line) BEFORE it is sent anywhere. The log is also the
// relay outbox (relay-link.ts reads unconfirmed byte ranges back), so an
// event the agent was answered after is always on disk.
//
// A line torn by a crash mid-write (power loss; a SIGKILL cannot split one
// write) was never acknowledged to anyone, so it is cut off when the file is
// first opened again rather than glued to the next event.
import { closeSync, existsSync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AepEvent } from '../map/envelope.ts';
import { sessionFileName } from './paths.ts';

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

export interface SessionLogOptions {
  /** fdatasync after every append (survives power loss, costs a disk flush per event). */
  fsync?: boolean;
  maxOpenFiles?: number;
}

export class SessionLog {
  private readonly fds = new Map<string, number>(); // LRU: Map order = recency
  private readonly sizes = new Map<string, number>();
  private readonly maxOpen: number;

  constructor(readonly dir: string, private readonly opts: SessionLogOptions = {}) {
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
    if (this.opts.fsync) fdatasyncSync(fd);
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

  /** The last logged (epoch, seq) of a session, scanning back from the end. */
  lastPosition(session: string): { epoch: number; seq: number } | undefined {
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

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
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
      closeSync(ofd);
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
