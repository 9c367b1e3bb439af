// Delivery of a bridge's batches to its sink: HTTP with a per-request
// timeout and bounded retries (exponential backoff with jitter; 5xx, 408,
// 429, timeouts and connection errors are retried, other 4xx are not), or
// stdout (JSONL). While a batch is being retried the pipeline takes no
// more events: backpressure reaches the source (engine/person/bridge/relay-source.ts).
import { redactUrl } from '../../runtime/relay/auth.ts';
export interface HttpRequestSpec {
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  items: number;
}

export interface DeliveryOptions {
  timeoutMs?: number;
  maxRetries?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Extra headers on every request (e.g. a collector's auth). */
  headers?: Record<string, string>;
  say?: (line: string) => void;
  signal?: AbortSignal;
}

export interface DeliveryStats {
  requests: number;
  delivered: number;
  retries: number;
  failed: number;
  droppedItems: number;
}

export type DeliveryResult = { ok: true } | { ok: false; reason: string };

export class HttpDelivery {
  readonly stats: DeliveryStats = { requests: 0, delivered: 0, retries: 0, failed: 0, droppedItems: 0 };
  constructor(private readonly o: DeliveryOptions = {}) {}

  /** Send one request until accepted or retries run out. Never throws. */
  async send(req: HttpRequestSpec): Promise<DeliveryResult> {
    const max = this.o.maxRetries ?? 6;
    let wait = this.o.backoffMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      const r = await this.once(req);
      if (r.ok) {
        this.stats.delivered += req.items;
        return r;
      }
      if (!r.retry || attempt >= max || this.o.signal?.aborted) {
        this.stats.failed++;
        this.stats.droppedItems += req.items;
        return { ok: false, reason: `${r.reason}${r.retry ? ` (gave up after ${attempt + 1} attempts)` : ''}` };
      }
      this.stats.retries++;
      const jittered = Math.round(wait * (0.75 + Math.random() * 0.5));
      this.o.say?.(`sink ${redactUrl(req.url)}: ${r.reason}; retry ${attempt + 1}/${max} in ${jittered} ms`);
      await new Promise((res) => setTimeout(res, jittered));
      wait = Math.min(wait * 2, this.o.maxBackoffMs ?? 30_000);
    }
  }

  private async once(req: HttpRequestSpec): Promise<{ ok: true } | { ok: false; retry: boolean; reason: string }> {
    this.stats.requests++;
    const timeout = AbortSignal.timeout(this.o.timeoutMs ?? 10_000);
    const signal = this.o.signal ? AbortSignal.any([timeout, this.o.signal]) : timeout;
    try {
      const res = await fetch(req.url, { method: 'POST', headers: { ...this.o.headers, ...req.headers }, body: req.body as BodyInit, signal });
      const text = await res.text().catch(() => '');
      if (res.ok) return { ok: true };
      const retry = res.status >= 500 || res.status === 408 || res.status === 429;
      return { ok: false, retry, reason: `answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}` };
    } catch (e) {
      const err = e as Error;
      const reason = timeout.aborted
        ? `no answer within ${this.o.timeoutMs ?? 10_000} ms`
        : `${err.message}${(err as any).cause?.code ? ` (${(err as any).cause.code})` : ''}`;
      return { ok: false, retry: true, reason };
    }
  }
}
