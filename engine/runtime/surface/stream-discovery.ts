// Stream discovery over REST for the stream-subscriber surface: when the
// operator names no streams, the instance's stream list (`stream.discover`:
// a path, the items and id field paths, optional paging) is polled every
// `every_ms` and each stream found is attached. A failing spell is said once
// (and reported as a `stream-refused` problem), and once more when it ends.
// Design: the agent-server bridge design record in docs/components
// ("Discovery").
import type { CompiledStream } from '../../core/descriptor/types.ts';
import { getPath } from './stream-fields.ts';

const MAX_PAGES = 100;

export interface DiscoveryOptions {
  /** The instance's base URL (no trailing slash) and origin (for messages). */
  base: string;
  origin: string;
  discover: NonNullable<CompiledStream['discover']>;
  /** The instance's auth headers. */
  headers: () => Record<string, string>;
  /** A stream id was listed (called for known ones too). */
  attach: (id: string) => void;
  say: (line: string) => void;
  problem: (code: string, message: string) => void;
}

export class StreamDiscovery {
  private timer?: NodeJS.Timeout;
  private closed = false;
  private failing = false;

  constructor(private readonly o: DiscoveryOptions) {}

  async poll(): Promise<void> {
    if (this.closed) return;
    const d = this.o.discover;
    try {
      let page: string | undefined;
      for (let i = 0; i < MAX_PAGES; i++) {
        const url = new URL(this.o.base + d.path);
        if (page !== undefined && d.pageParam) url.searchParams.set(d.pageParam, page);
        const res = await fetch(url, { headers: { accept: 'application/json', ...this.o.headers() }, signal: AbortSignal.timeout(10_000) });
        if (!res.ok) throw new Error(`${d.path} answered ${res.status}`);
        const body = await res.json();
        const items = getPath(body, d.items);
        for (const item of Array.isArray(items) ? items : []) {
          const id = getPath(item, d.id);
          if ((typeof id === 'string' && id) || typeof id === 'number') this.o.attach(String(id));
        }
        const next = getPath(body, d.next);
        if (next === undefined || next === null || next === '' || !d.pageParam) break;
        page = String(next);
      }
      if (this.failing) this.o.say(`${this.o.origin}: stream discovery works again`);
      this.failing = false;
    } catch (e) {
      // said once per failing spell, not every poll
      if (!this.failing) {
        this.o.say(`${this.o.origin}: stream discovery failed (${(e as Error).message}); retrying every ${d.everyMs} ms`);
        this.o.problem('stream-refused', `${this.o.origin}: stream discovery failed: ${(e as Error).message}`);
      }
      this.failing = true;
    }
    if (!this.closed) {
      this.timer = setTimeout(() => void this.poll(), d.everyMs);
      this.timer.unref();
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}
