// An optional backplane that was unreachable at start
// (engine/runtime/relay/backplane/, `--backplane-optional`): the relay serves its
// local clients from memory and keeps trying to reach NATS in the
// background (bounded backoff, one log line per change of state); once it
// can, it joins the fleet. Issue 15; DESIGN.md "Growing past one machine";
// docs/fleet.md "Optional backplane".
//
// Joining: the NatsStore opens (and catches up with the stream into its
// mirror); every event this relay admitted while local-only is published
// to the stream in (epoch, seq) order per session (the stream's dedupe by
// source#id and the mirror's by position drop what another relay already
// has); then, in one tick, the store behind the relay becomes the
// NatsStore, this relay's claims join the fleet roster and command routes,
// and its subscribers see what comes through the stream from then on. The
// republished events come back through the stream too: this relay's
// subscribers already had them, so they are not delivered again here.
import type { Principal } from '../../auth/principal.ts';
import type { Conn, IngestOutcome, RelayCore } from '../core.ts';
import type { Held, Position, RelayStore, ReplayResult } from '../store.ts';
import type { NatsStore } from './index.ts';
import type { AuthMode } from './connect.ts';
import type { BackplaneHealth, FleetHooks, RemoteEntry } from './types.ts';

export interface JoinOptions {
  /** One attempt to open the backplane: the store, or a rejection saying why. */
  open: () => Promise<NatsStore>;
  /** For /healthz while local-only: the masked URL, auth mode, stream. */
  describe: { url: string; auth: AuthMode; tls: boolean; stream: string };
  log: (line: string) => void;
  /** Backoff between attempts, ms (default 1 s doubling to 30 s). */
  backoffMs?: { initial: number; max: number };
  /** Why the first attempt (at start) failed. */
  firstError: string;
}

const key = (h: Held) => `${h.ev.source}#${h.ev.id}`;

export class JoiningStore implements RelayStore, FleetHooks {
  get fleet(): FleetHooks {
    return this;
  }
  private nats?: NatsStore;
  private readonly listeners = new Set<(held: Held) => void>();
  /** Events republished at join, not delivered again when they come back through the stream. */
  private readonly echoes = new Set<string>();
  private core?: RelayCore;
  private timer?: NodeJS.Timeout;
  private delay: number;
  private lastError: string;
  private attempts = 1;
  private closed = false;
  private since = Date.now();

  constructor(
    private readonly local: RelayStore,
    private readonly o: JoinOptions,
  ) {
    this.delay = o.backoffMs?.initial ?? 1000;
    this.lastError = o.firstError;
    local.onPublish((h) => {
      if (!this.nats) this.fanOut(h);
    });
    this.schedule();
  }

  /** Joined the fleet (false while serving local clients only). */
  get joined(): boolean {
    return this.nats !== undefined;
  }

  private get store(): RelayStore {
    return this.nats ?? this.local;
  }

  private fanOut(h: Held): void {
    for (const l of this.listeners) l(h);
  }

  private schedule(): void {
    if (this.closed || this.nats) return;
    this.timer = setTimeout(() => void this.attempt(), this.delay);
    this.timer.unref();
    this.delay = Math.min(this.delay * 2, this.o.backoffMs?.max ?? 30_000);
  }

  private async attempt(): Promise<void> {
    this.attempts++;
    let nats: NatsStore;
    try {
      nats = await this.o.open();
    } catch (e) {
      const msg = (e as Error).message;
      if (msg !== this.lastError) this.o.log(`${msg}; backplane optional: still serving local clients only, retrying in the background`);
      this.lastError = msg;
      this.schedule();
      return;
    }
    if (this.closed) return void (await nats.close());
    await this.join(nats);
  }

  /** Publish what was admitted locally, then switch over (see the header). */
  private async join(nats: NatsStore): Promise<void> {
    const done = new Set<string>();
    nats.onPublish((h) => {
      if (this.echoes.delete(key(h))) return;
      this.fanOut(h);
    });
    const republish = () => {
      let n = 0;
      for (const s of this.local.sessions()) {
        for (const e of this.local.replay(s, null).events) {
          const raw = e.text();
          const held: Held = { ev: JSON.parse(raw), raw };
          if (done.has(key(held))) continue;
          done.add(key(held));
          if (nats.admit(held)) {
            this.echoes.add(key(held));
            n++;
          }
        }
      }
      return n;
    };
    let published = republish();
    await nats.barrier().catch(() => {});
    // what was admitted locally while the first batch was in flight; then switch in this same tick
    published += republish();
    this.nats = nats;
    // an echo that never comes back (another relay's copy got there first) is forgotten after a while
    setTimeout(() => this.echoes.clear(), 120_000).unref();
    if (this.core) {
      nats.attach(this.core);
      for (const [session, conns] of this.core.claimsBySession) if (conns.size) nats.claimsChanged(session, true);
    }
    this.o.log(
      `backplane: joined the fleet at ${this.o.describe.url} after ${Math.round((Date.now() - this.since) / 1000)} ` +
        `s local-only (${this.attempts} attempt${this.attempts === 1 ? '' : 's'}): relay ${nats.relayId}, ` +
        `${published} events admitted here meanwhile published to stream ${this.o.describe.stream}`,
    );
  }

  // --- RelayStore: the local store until joined, then the NatsStore -------------

  admit(held: Held): boolean {
    return this.store.admit(held);
  }

  publish(held: Held): void {
    this.store.publish(held);
  }

  onPublish(listener: (held: Held) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  replay(session: string, after: Position | null): ReplayResult {
    return this.store.replay(session, after);
  }

  restore(session: string, events: Held[], truncated: boolean): void {
    this.store.restore(session, events, truncated);
  }

  sessions(): string[] {
    return this.store.sessions();
  }

  stats() {
    return this.store.stats();
  }

  barrier(): Promise<void> {
    return this.nats?.barrier() ?? Promise.resolve();
  }

  // --- FleetHooks: nothing remote until joined ----------------------------------

  attach(core: RelayCore): void {
    this.core = core;
  }

  remoteEntries(): RemoteEntry[] {
    return this.nats?.remoteEntries() ?? [];
  }

  claimsChanged(session: string, held: boolean): void {
    this.nats?.claimsChanged(session, held);
  }

  forward(held: Held, origin: Conn, sender: Principal, target: RemoteEntry): IngestOutcome {
    return this.nats!.forward(held, origin, sender, target);
  }

  async health(): Promise<BackplaneHealth & { joining?: boolean; local_events?: number }> {
    if (this.nats) return this.nats.health();
    const d = this.o.describe;
    const s = this.local.stats();
    const zero = { max_age_ms: 0, max_bytes: 0, published: 0, publish_failures: 0, duplicates: 0, forged: 0, forwarded: 0, live_in: 0 };
    const error =
      `local-only since start (${this.attempts} attempt${this.attempts === 1 ? '' : 's'}; last: ${this.lastError}); ` +
      `retrying in the background (at most ${Math.round((this.o.backoffMs?.max ?? 30_000) / 1000)} ` +
      `s apart); events admitted here are published to the stream when it joins`;
    return {
      url: d.url,
      auth: d.auth,
      tls: d.tls,
      connected: false,
      joining: true,
      stream: d.stream,
      relay: '',
      relays: [],
      messages: 0,
      bytes: 0,
      first_seq: 0,
      last_seq: 0,
      consumed_seq: 0,
      lag: 0,
      consumers: 0,
      ...zero,
      local_events: s.events,
      error,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.nats?.close();
  }
}
