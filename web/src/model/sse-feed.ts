// The inbox's SSE links (AEP-0003 §3.3): one subscription read with fetch as a byte stream,
// reopened after a drop or a silence (web/src/model/connection.ts holds the summary and timeline feeds).
import { signal } from '@preact/signals';
import type { Ev, Position } from './aep.ts';
import { Backoff, measure, now, type LinkStatus, type Opts } from './links.ts';

/** The relay sends an SSE comment at least every 30 s (AEP-0003 §3.3); silence past this is a dead stream. */
const SSE_SILENCE_MS = 45_000;

export interface SseHandlers {
  /** The URL to open now (it carries the resume position); undefined: nothing to follow. */
  url(): string | undefined;
  event(ev: Ev): void;
  exhausted(session: string, earliest: Position): void;
  opened(): void;
}

/** One SSE subscription read with fetch (AEP-0003 §3.3), reopened after a drop. */
export class SseFeed {
  readonly status = signal<LinkStatus>('down');
  private ctl?: AbortController;
  private gen = 0;
  private readonly backoff = new Backoff();
  private retry?: unknown;
  private stopped = true;

  constructor(
    private readonly o: Opts,
    private readonly name: string,
    private readonly h: SseHandlers,
  ) {}

  start(): void {
    this.stopped = false;
    if (!this.ctl) this.open();
  }

  stop(): void {
    this.stopped = true;
    this.o.scheduler.cancel(this.retry);
    this.ctl?.abort();
    this.ctl = undefined;
    this.gen++;
    this.status.value = 'down';
  }

  /** Drop the current stream and open the one `url()` names now. */
  reopen(): void {
    if (this.stopped) return;
    this.o.scheduler.cancel(this.retry);
    this.ctl?.abort();
    this.ctl = undefined;
    this.gen++;
    this.backoff.reset();
    this.open();
  }

  nudge(): void {
    if (this.stopped || this.ctl) return;
    this.reopen();
  }

  private open(): void {
    const url = this.h.url();
    if (!url) {
      this.status.value = 'down';
      return;
    }
    const gen = ++this.gen;
    const ctl = new AbortController();
    this.ctl = ctl;
    this.status.value = 'connecting';
    const t = now();
    void this.read(url, gen, ctl, t).then(
      (why) => this.ended(gen, why),
      () => this.ended(gen, 'error'),
    );
  }

  private async read(url: string, gen: number, ctl: AbortController, t: number): Promise<string> {
    const f = this.o.fetchImpl ?? fetch;
    const res = await f(url, { headers: { accept: 'text/event-stream' }, credentials: 'same-origin', cache: 'no-store', signal: ctl.signal });
    if (!res.ok || !res.body) return `http ${res.status}`;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    let data: string | undefined;
    let silence: unknown;
    const arm = () => {
      this.o.scheduler.cancel(silence);
      silence = this.o.scheduler.after(() => ctl.abort(), SSE_SILENCE_MS);
    };
    arm();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || gen !== this.gen) return 'ended';
        arm();
        if (this.status.value !== 'live') {
          this.status.value = 'live';
          this.backoff.reset();
          measure(`inbox:${this.name}-open`, t, 0);
          this.h.opened();
        }
        buf += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.charCodeAt(nl - 1) === 13 ? buf.slice(0, nl - 1) : buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line === '') {
            if (data !== undefined) {
              try {
                this.h.event(JSON.parse(data));
              } catch {
                // a malformed event costs that event only
              }
            }
            data = undefined;
          } else if (line.charCodeAt(0) === 58 /* ':' */) {
            const m = /^: replay-exhausted (.+) (\d+):(\d+)$/.exec(line);
            if (m) this.h.exhausted(m[1], { epoch: Number(m[2]), seq: Number(m[3]) });
          } else if (line.startsWith('data:')) {
            const v = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
            data = data === undefined ? v : `${data}\n${v}`;
          }
        }
      }
    } finally {
      this.o.scheduler.cancel(silence);
      reader.cancel().catch(() => {});
    }
  }

  private ended(gen: number, why: string): void {
    if (gen !== this.gen) return; // replaced or stopped on purpose
    this.ctl = undefined;
    if (this.stopped) return;
    this.status.value = 'connecting';
    if (why !== 'ended') this.o.onFailure?.();
    this.retry = this.o.scheduler.after(() => {
      if (!this.ctl && !this.stopped) this.open();
    }, this.backoff.next());
  }
}
