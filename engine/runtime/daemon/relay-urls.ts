// Where a daemon's relay link dials (engine/runtime/daemon/relay-link.ts): the
// relay's WebSocket URL (AEP-0003 §3.5) from its base URL, and, for a
// fleet of relays sharing a backplane (engine/runtime/relay/backplane/), the list
// of relays it fails over across. After a failure the link dials the next
// relay at once (a quarter of the initial backoff); a full round of them
// that all failed counts as one attempt for the exponential backoff.

export function socketUrlOf(base: string): string {
  const u = new URL(base);
  if (u.protocol === 'http:') u.protocol = 'ws:';
  else if (u.protocol === 'https:') u.protocol = 'wss:';
  if (!u.pathname.endsWith('/socket')) u.pathname = `${u.pathname.replace(/\/+$/, '')}/socket`;
  return u.toString();
}

export class RelayUrls {
  private readonly urls: string[];
  private index = 0;

  /** `list`: one relay base URL, or several, comma-separated. */
  constructor(list: string) {
    this.urls = list
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    if (!this.urls.length) throw new Error('relay link: no relay URL');
  }

  /** The relay dialed now (or last dialed). */
  get current(): string {
    return this.urls[this.index];
  }

  get many(): boolean {
    return this.urls.length > 1;
  }

  /** A connection failed on `attempt` (0-based since the last hello): move to the next relay; the delay before dialing it, ms. */
  failover(attempt: number, backoff: { initial: number; max: number }): number {
    const n = this.urls.length;
    this.index = (this.index + 1) % n;
    const base = n > 1 && attempt % n !== 0 ? backoff.initial / 4 : Math.min(backoff.max, backoff.initial * 2 ** Math.min(Math.floor(attempt / n), 16));
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }
}
