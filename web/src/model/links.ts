// The inbox's links to its relay (web/src/model/connection.ts composes them): the options and
// scheduler they share, User Timing measures, and the backoff every link reconnects with.
import type { Store } from './store.ts';

export type LinkStatus = 'connecting' | 'live' | 'down';

export interface RosterEntry {
  session: string;
  agent?: string;
  instance?: string;
  control?: { accepts?: string[]; ack_window_ms?: number };
}

export interface Scheduler {
  /** Run `fn` soon, batched with other work (a frame when visible). */
  soon(fn: () => void): void;
  after(fn: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
}

export interface ConnectionOptions {
  /** The relay's base URL, this page's origin (http(s)://host). */
  base: string;
  /** The page's host, for command `source` URIs. */
  host: string;
  store: Store;
  /** A link failed and the session cookie may be gone: the app checks and shows the login. */
  onFailure?: () => void;
  scheduler?: Scheduler;
  WebSocketImpl?: typeof WebSocket;
  fetchImpl?: typeof fetch;
}

export const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/** User Timing entries (visible in the browser's performance tools and to the browser tests). */
export function measure(name: string, start: number, items: number): void {
  if (typeof performance === 'undefined' || typeof performance.measure !== 'function') return;
  try {
    performance.measure(name, { start, end: now(), detail: { items } });
  } catch {
    // an old browser without the options form: no timing, nothing else changes
  }
}

export const browserScheduler: Scheduler = {
  soon(fn) {
    if (typeof document !== 'undefined' && !document.hidden && typeof requestAnimationFrame === 'function') requestAnimationFrame(() => fn());
    else setTimeout(fn, 50);
  },
  after: (fn, ms) => setTimeout(fn, ms),
  cancel: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export type Opts = ConnectionOptions & { scheduler: Scheduler };

/** Backoff shared by the links: 250 ms doubling to 4 s, reset by a success. */
export class Backoff {
  private ms = 250;
  next(): number {
    const v = this.ms;
    this.ms = Math.min(this.ms * 2, 4_000);
    return v;
  }
  reset(): void {
    this.ms = 250;
  }
}
