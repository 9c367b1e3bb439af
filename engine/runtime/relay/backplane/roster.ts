// The fleet-wide roster (AEP-0003 §4.1; engine/runtime/relay/backplane/): each
// relay publishes a snapshot of its live claims on <prefix>.roster.<relay>
// on every change (debounced) and every few seconds; a relay silent past
// the expiry is gone, one closing says goodbye. A relay starting asks the
// others for theirs (<prefix>.roster.sync). Snapshots and syncs are signed
// (signing.ts): an unsigned one is dropped and counted. A fleet on one
// backplane answers the roster for the fleet, and routing reaches every
// entry, so "absent means no-route" (§4.1 rule 3) holds fleet-wide.
import type { NatsConnection } from '@nats-io/transport-node';
import type { Signer } from './signing.ts';
import { subjectOf } from './stream.ts';
import type { RemoteEntry } from './types.ts';

const EVERY_MS = 2000;
const EXPIRE_MS = 7000;
export const DEBOUNCE_MS = 10;

const enc = new TextEncoder();
const dec = new TextDecoder();

export class FleetRoster {
  private readonly remote = new Map<string, { at: number; entries: Record<string, unknown>[] }>();
  private timer?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly signer: Signer,
    /** This relay's own claims (core.roster(true)). */
    private readonly local: () => Record<string, unknown>[],
  ) {}

  start(): void {
    const sync = `${this.prefix}.roster.sync`;
    this.nc.subscribe(`${this.prefix}.roster.>`, {
      callback: (err, m) => {
        if (err) return;
        // a sync asks every relay for a snapshot now: unsigned, it would let anyone on the
        // NATS server make the whole fleet publish on demand (dropped and counted like any forgery)
        if (!this.signer.verify(m.data, m.headers)) return;
        if (m.subject === sync) return this.schedule(0);
        try {
          const snap = JSON.parse(dec.decode(m.data)) as { relay: string; entries: Record<string, unknown>[]; bye?: boolean };
          if (typeof snap.relay !== 'string' || snap.relay === this.signer.relayId || !Array.isArray(snap.entries)) return;
          if (snap.bye) this.remote.delete(snap.relay);
          else this.remote.set(snap.relay, { at: Date.now(), entries: snap.entries });
        } catch {
          /* a malformed snapshot is ignored; the sender's next one replaces it */
        }
      },
    });
    const ask = enc.encode(JSON.stringify({ relay: this.signer.relayId, sync: true }));
    this.nc.publish(sync, ask, { headers: this.signer.headers(ask) });
    this.timer = setInterval(() => this.send(), EVERY_MS);
    this.timer.unref();
  }

  /** Claims held by other relays, fresh snapshots only. */
  remoteEntries(): RemoteEntry[] {
    const now = Date.now();
    const out: RemoteEntry[] = [];
    for (const [relay, snap] of this.remote) {
      if (now - snap.at > EXPIRE_MS) {
        this.remote.delete(relay);
        continue;
      }
      for (const entry of snap.entries) out.push({ relay, entry });
    }
    return out;
  }

  /** This relay and every other one heard from recently. */
  relays(): string[] {
    this.remoteEntries();
    return [this.signer.relayId, ...this.remote.keys()];
  }

  schedule(ms: number): void {
    if (this.debounce || this.closed) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.send();
    }, ms);
    this.debounce.unref();
  }

  send(bye = false): void {
    if (this.nc.isClosed() || (this.closed && !bye)) return;
    const entries = bye ? [] : this.local();
    try {
      const body = enc.encode(JSON.stringify({ relay: this.signer.relayId, entries, bye }));
      this.nc.publish(subjectOf(this.prefix, 'roster', this.signer.relayId), body, { headers: this.signer.headers(body) });
    } catch {
      /* disconnected: the next snapshot after reconnect replaces it */
    }
  }

  /** Say goodbye (the others drop this relay's claims at once). */
  stop(): void {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    this.send(true);
  }
}
