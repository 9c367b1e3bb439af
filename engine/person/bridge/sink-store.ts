// Durable capture for `hookmap sink` (the durability companion the relay's
// bounded buffer asks for, AEP-0003 §5): every event appended as one JSONL
// line to <dir>/<YYYY-MM-DD>/<agent>/<session file>.jsonl (UTC day of the
// event's time; agent-scoped events in `_agent.jsonl`), files flushed and
// fsynced in batches before the resume positions are saved, so a crash
// leaves the positions behind the files, never ahead. On open, the files
// written since the last save are the authority: a torn last line is cut
// off and their events advance the positions, so the relay's replay neither
// duplicates nor skips. Disk is bounded: day folders older than the
// retention, or over the size budget (oldest first, never today's), are
// deleted.
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { sessionFileName } from '../../core/io/paths.ts';
import { loadCheckpoint, saveCheckpoint } from './checkpoint.ts';
import { Positions } from './positions.ts';
import type { AepEvent } from './projection/common.ts';

export interface SinkStoreOptions {
  dir: string;
  /** Day folders kept (by their date); 0 = forever. */
  retainDays?: number;
  /** Total bytes kept; 0 = unbounded. Whole days are deleted, oldest first, never the current one. */
  maxBytes?: number;
  fsync?: boolean;
  maxOpenFiles?: number;
  say?: (line: string) => void;
  now?: () => number;
}

export interface SinkStats {
  written: number;
  files: number;
  flushes: number;
  recovered: number;
  tornLines: number;
  deletedDays: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const STATE = '.sink-state.json';

const slug = (s: string) =>
  s
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 64) || '_';

export class SinkStore {
  readonly positions: Positions;
  readonly stats: SinkStats = { written: 0, files: 0, flushes: 0, recovered: 0, tornLines: 0, deletedDays: 0 };
  private pending = new Map<string, string[]>();
  private fds = new Map<string, number>();
  private readonly statePath: string;

  constructor(private readonly o: SinkStoreOptions) {
    mkdirSync(o.dir, { recursive: true });
    this.statePath = join(o.dir, STATE);
    const cp = loadCheckpoint(this.statePath);
    this.positions = new Positions(cp?.positions ?? {});
    this.recover(cp ? Date.parse(cp.saved_at) : 0);
    this.enforceRetention();
  }

  /** Where an event goes. */
  pathOf(ev: AepEvent): string {
    const t = Date.parse(ev.time);
    const day = new Date(Number.isNaN(t) ? (this.o.now ?? Date.now)() : t).toISOString().slice(0, 10);
    const file = ev.session === undefined ? '_agent.jsonl' : sessionFileName(ev.session);
    return join(this.o.dir, day, slug(ev.agent), file);
  }

  /** Queue one event (deduplicated upstream); written at the next flush. */
  add(ev: AepEvent): void {
    const p = this.pathOf(ev);
    let list = this.pending.get(p);
    if (!list) this.pending.set(p, (list = []));
    list.push(JSON.stringify(ev));
    if (ev.session !== undefined && typeof ev.seq === 'number') this.positions.advance(ev);
  }

  get queued(): number {
    let n = 0;
    for (const l of this.pending.values()) n += l.length;
    return n;
  }

  /** Write, fsync, then save the positions. */
  flush(): void {
    if (!this.pending.size) return;
    for (const [p, lines] of this.pending) {
      const fd = this.fd(p);
      writeSync(fd, `${lines.join('\n')}\n`);
      if (this.o.fsync !== false) fsyncSync(fd);
      this.stats.written += lines.length;
    }
    this.pending.clear();
    this.stats.flushes++;
    saveCheckpoint(this.statePath, { target: 'sink', positions: this.positions.toJSON(), target_state: null });
  }

  close(): void {
    this.flush();
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  /** Delete day folders past the retention or the size budget. Returns the days deleted. */
  enforceRetention(): string[] {
    const days = this.days();
    const today = new Date((this.o.now ?? Date.now)()).toISOString().slice(0, 10);
    const deleted: string[] = [];
    const drop = (d: string) => {
      for (const [p, fd] of this.fds)
        if (p.startsWith(join(this.o.dir, d))) {
          closeSync(fd);
          this.fds.delete(p);
        }
      rmSync(join(this.o.dir, d), { recursive: true, force: true });
      deleted.push(d);
    };
    if (this.o.retainDays) {
      const cutoff = new Date((this.o.now ?? Date.now)() - this.o.retainDays * 86_400_000).toISOString().slice(0, 10);
      for (const d of days) if (d < cutoff && d !== today) drop(d);
    }
    if (this.o.maxBytes) {
      const sizes = days.filter((d) => !deleted.includes(d)).map((d) => [d, dirSize(join(this.o.dir, d))] as const);
      let total = sizes.reduce((a, [, s]) => a + s, 0);
      for (const [d, s] of sizes) {
        if (total <= this.o.maxBytes || d === today) break;
        drop(d);
        total -= s;
      }
    }
    if (deleted.length) {
      this.stats.deletedDays += deleted.length;
      this.o.say?.(`retention: deleted ${deleted.join(', ')}`);
    }
    return deleted;
  }

  private days(): string[] {
    return readdirSync(this.o.dir)
      .filter((d) => DAY.test(d))
      .sort();
  }

  private fd(p: string): number {
    let fd = this.fds.get(p);
    if (fd !== undefined) {
      this.fds.delete(p); // LRU order
      this.fds.set(p, fd);
      return fd;
    }
    const dir = p.slice(0, p.lastIndexOf('/'));
    mkdirSync(dir, { recursive: true });
    const existed = existsSync(p);
    fd = openSync(p, 'a', 0o600);
    if (!existed) this.stats.files++;
    this.fds.set(p, fd);
    if (this.fds.size > (this.o.maxOpenFiles ?? 64)) {
      const [oldP, oldFd] = this.fds.entries().next().value as [string, number];
      closeSync(oldFd);
      this.fds.delete(oldP);
    }
    return fd;
  }

  /** Files touched since the last saved positions: cut a torn last line, advance positions from what they hold. */
  private recover(savedAt: number): void {
    for (const d of this.days().slice(-2)) {
      for (const file of walk(join(this.o.dir, d))) {
        if (!file.endsWith('.jsonl') || statSync(file).mtimeMs < savedAt - 2_000) continue;
        const text = readFileSync(file, 'utf8');
        if (text.length && !text.endsWith('\n')) {
          const keep = text.lastIndexOf('\n') + 1;
          const fd = openSync(file, 'r+');
          ftruncateSync(fd, Buffer.byteLength(text.slice(0, keep)));
          if (fstatSync(fd).size >= 0) fsyncSync(fd);
          closeSync(fd);
          this.stats.tornLines++;
          this.o.say?.(`${file}: cut a torn last line (a crash mid-write); the relay's replay refills it`);
        }
        for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
          if (!line) continue;
          try {
            const ev = JSON.parse(line) as AepEvent;
            if (ev.session !== undefined && typeof ev.seq === 'number' && this.positions.advance(ev)) this.stats.recovered++;
          } catch {}
        }
      }
    }
  }
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

function dirSize(dir: string): number {
  return walk(dir).reduce((a, f) => a + statSync(f).size, 0);
}

export interface SinkRunOptions extends SinkStoreOptions {
  url: string;
  token?: string;
  filter?: Record<string, unknown>;
  capture?: import('../../core/aep/schemas.ts').CaptureLevel;
  flushMs?: number;
  flushEvents?: number;
  retentionEveryMs?: number;
}

export interface SinkHandle {
  store: SinkStore;
  source: import('./relay-source.ts').RelaySource;
  done: Promise<void>;
  stop(): Promise<void>;
}

/** `hookmap sink`: the relay (replay-all, then live) into a SinkStore, flushed in batches. */
export async function runSink(o: SinkRunOptions): Promise<SinkHandle> {
  const { RelaySource } = await import('./relay-source.ts');
  const { applyCeiling } = await import('./projection/common.ts');
  const store = new SinkStore(o);
  let fatal: Error | undefined;
  const source = new RelaySource({
    url: o.url,
    token: o.token,
    filter: o.filter,
    capture: o.capture,
    positions: store.positions,
    start: 'all',
    say: o.say,
    onFatal: (e) => (fatal = e),
  });
  let stopped = false;
  const done = (async () => {
    let lastFlush = Date.now();
    let lastRetention = Date.now();
    const flushMs = o.flushMs ?? 250;
    const flushEvents = o.flushEvents ?? 256;
    while (!stopped) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([source.ready(), new Promise<void>((r) => (timer = setTimeout(r, flushMs)))]);
      clearTimeout(timer);
      while (source.buffered > 0 && store.queued < flushEvents) store.add(o.capture ? applyCeiling((await source.next())!, o.capture) : (await source.next())!);
      const now = Date.now();
      if (store.queued >= flushEvents || (store.queued && now - lastFlush >= flushMs)) {
        store.flush();
        lastFlush = now;
      }
      if (now - lastRetention >= (o.retentionEveryMs ?? 3_600_000)) {
        lastRetention = now;
        store.enforceRetention();
      }
      if (source.finished) break;
    }
    store.close();
    if (fatal) throw fatal;
  })();
  return {
    store,
    source,
    done,
    stop: async () => {
      stopped = true;
      source.close();
      await done.catch(() => {});
    },
  };
}
