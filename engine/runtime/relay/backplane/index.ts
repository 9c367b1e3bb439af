// The fleet backplane: a RelayStore backed by one NATS JetStream stream, so
// several relays (on several machines) share one event stream, one replay
// history, one roster and one command route (DESIGN.md "Growing past one
// machine"; AEP-0003 §3 bindings, §4.1 roster, §5 replay; AEP-0004 §4
// routing). Issue 15.
//
//   ingest (any relay) ─ outbox.ts: js.publish(<prefix>.ev.<agent>.<session>, Nats-Msg-Id = source#id)
//                         │  one stream (stream.ts): retention bounded by age and bytes
//   every relay ─ mirror.ts: ordered consumer over <prefix>.ev.> ─ local mirror ─ its subscribers
//   commands ─ routing.ts (<prefix>.ctl.<session>), roster ─ roster.ts, all signed ─ signing.ts
//
// This file puts them together behind RelayStore and FleetHooks
// (types.ts): admission is decided by the mirror (so every relay decides
// alike) and published through the outbox; an admitted event reaches this
// relay's subscribers when it comes back from the stream, like everyone
// else's. Live-only events fan out locally at once and cross to the other
// relays on core NATS.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { Principal } from '../../auth/principal.ts';
import { isCommand, type Conn, type IngestOutcome, type RelayCore } from '../core.ts';
import type { Held, Position, RelayStore, ReplayResult, StoreBounds, StoreStats } from '../store.ts';
import { followLive, Mirror, StreamFeed } from './mirror.ts';
import { Outbox } from './outbox.ts';
import { FleetRoster, DEBOUNCE_MS } from './roster.ts';
import { CommandRoutes } from './routing.ts';
import { fleetKey, Signer, subjectToken, watchTokenFile } from './signing.ts';
import { authModeOf, connectNats, ConnectError, explainConnectError, maskNatsUrl, type BackplaneAuth } from './connect.ts';
import { BackplaneError, ensureStream, resolveOptions, subjectOf, type BackplaneOptions, type ResolvedOptions } from './stream.ts';
import type { BackplaneHealth, FleetHooks, RemoteEntry } from './types.ts';

export { BackplaneError, BACKPLANE_DEFAULTS, boundsOf, type BackplaneOptions } from './stream.ts';
export { subjectToken, fleetKey } from './signing.ts';
export { maskNatsUrl, type BackplaneAuth } from './connect.ts';
// openBackplane (the relay's entry point, optional start and joining later): open.ts

export class NatsStore implements RelayStore, FleetHooks {
  get fleet(): FleetHooks {
    return this;
  }
  readonly relayId: string;
  readonly mirror: Mirror;
  /** The URL(s) with any credentials masked: what logs and /healthz show. */
  readonly where: string;
  readonly auth: ReturnType<typeof authModeOf>;
  private readonly listeners = new Set<(held: Held) => void>();
  private readonly published = new WeakSet<Held>();
  private readonly signer: Signer;
  private readonly feed: StreamFeed;
  private readonly outbox: Outbox;
  private readonly roster: FleetRoster;
  private readonly routes: CommandRoutes;
  private live = { received: 0 };
  private core?: RelayCore;
  private closed = false;
  private disconnected = false;
  private lastError = '';
  private unwatch?: () => void;
  private readonly authOpts: BackplaneAuth;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    bounds: StoreBounds,
    readonly o: ResolvedOptions,
    opts: BackplaneOptions,
    private readonly log: (line: string) => void,
  ) {
    this.where = maskNatsUrl(o.url);
    this.auth = authModeOf(o.url, opts.auth);
    this.authOpts = opts.auth ?? {};
    this.relayId = subjectToken(opts.relayId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`);
    this.signer = new Signer(this.relayId, fleetKey(opts.token), opts.keyGraceMs);
    if (opts.token && opts.tokenFile) this.unwatch = watchTokenFile(opts.tokenFile, this.signer, log);
    this.mirror = new Mirror(bounds);
    // the mirror's admissions are what this relay's subscribers see
    this.mirror.onPublish((h) => this.fanOut(h));
    const js = jetstream(nc, { timeout: 5000 });
    this.feed = new StreamFeed(js, jsm, o.stream, this.signer, this.mirror, log);
    this.outbox = new Outbox(js, jsm, o.stream, this.signer, log);
    this.roster = new FleetRoster(nc, o.prefix, this.signer, () => this.core?.roster(true) ?? []);
    this.routes = new CommandRoutes(nc, o.prefix, this.signer);
  }

  /**
   * Connect, make sure the stream exists with the configured retention, and
   * catch up with it. Rejects with a BackplaneError naming what failed (the
   * server unreachable, JetStream not enabled on it, a stream mismatch).
   */
  static async open(o: BackplaneOptions, bounds: StoreBounds): Promise<NatsStore> {
    const resolved = resolveOptions(o);
    const log = o.log ?? (() => {});
    const where = maskNatsUrl(o.url);
    const nc = await connectNats(o.url, o.auth ?? {}, resolved.connectTimeoutMs).catch((e: Error) => {
      throw new BackplaneError(e instanceof ConnectError ? e.message : `backplane ${where} unreachable: ${e.message}`);
    });
    try {
      const jsm = await jetstreamManager(nc, { timeout: 3000 }).catch((e: Error) => {
        throw new BackplaneError(`backplane ${where}: JetStream is not available on this NATS server (${e.message}); start it with -js`);
      });
      await ensureStream(jsm, resolved, log);
      const store = new NatsStore(nc, jsm, bounds, resolved, o, log);
      await store.start();
      return store;
    } catch (e) {
      await nc.close().catch(() => {});
      if (e instanceof BackplaneError) throw e;
      throw new BackplaneError(`backplane ${where}: ${(e as Error).message}`);
    }
  }

  /** Catch up with the stream into the mirror, then follow it; live and roster subjects too. */
  private async start(): Promise<void> {
    this.live = followLive(this.nc, this.o.prefix, this.signer, (h) => this.fanOut(h));
    this.roster.start();
    void (async () => {
      for await (const s of this.nc.status()) {
        if (s.type === 'error') {
          // e.g. the server refusing the credentials on a reconnect: said once per change, and in /healthz and doctor
          const why = explainConnectError(s.error, this.o.url, this.authOpts);
          if (why !== this.lastError) this.log(why);
          this.lastError = why;
          continue;
        }
        if (s.type !== 'disconnect' && s.type !== 'reconnect') continue;
        // every refused reconnect attempt is another `disconnect`: said once, when the link goes down
        const was = this.disconnected;
        this.disconnected = s.type === 'disconnect';
        this.outbox.connection(!this.disconnected);
        if (this.disconnected === was) continue;
        if (this.disconnected)
          this.log(`backplane: disconnected from ${this.where}; reconnecting (publishes wait, unconfirmed events are re-sent by their emitters)`);
        else {
          this.lastError = '';
          this.log(`backplane: reconnected to ${this.where}`);
          this.roster.send();
        }
      }
    })().catch(() => {});
    await this.feed.start();
    await this.nc.flush();
  }

  private fanOut(held: Held): void {
    for (const l of this.listeners) l(held);
  }

  // --- RelayStore -------------------------------------------------------------

  admit(held: Held): boolean {
    if (!this.mirror.wouldAdmit(held)) return false;
    this.published.add(held);
    this.outbox.push(held, subjectOf(this.o.prefix, 'ev', held.ev.agent, held.ev.session!));
    return true;
  }

  publish(held: Held): void {
    const ev = held.ev;
    // admitted: it comes back through the stream, to every relay at once
    if (this.published.has(held)) return;
    // a sequenced duplicate: already in the stream; subscribers get each event once
    if (typeof ev.session === 'string' && typeof ev.seq === 'number' && !ev.type.startsWith('agent.') && !isCommand(ev.type)) return;
    // live-only (and a routed command's redacted watcher copy): here at once, and to the other relays
    this.fanOut(held);
    if (this.closed) return;
    try {
      const body = new TextEncoder().encode(held.raw);
      this.nc.publish(subjectOf(this.o.prefix, 'live', ev.agent ?? 'unknown'), body, { headers: this.signer.headers(body) });
    } catch (e) {
      this.lastError = `live publish failed: ${(e as Error).message}`;
    }
  }

  onPublish(listener: (held: Held) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  replay(session: string, after: Position | null): ReplayResult {
    return this.mirror.replay(session, after);
  }

  /** The stream is the durable record: no refill from local logs (emitters re-send what is unconfirmed). */
  restore(): void {}

  sessions(): string[] {
    return this.mirror.sessions();
  }

  stats(): StoreStats {
    return this.mirror.stats();
  }

  barrier(): Promise<void> {
    return this.outbox.barrier();
  }

  // --- FleetHooks (types.ts) ---------------------------------------------------

  attach(core: RelayCore): void {
    this.core = core;
    this.routes.core = core;
  }

  remoteEntries(): RemoteEntry[] {
    return this.roster.remoteEntries();
  }

  claimsChanged(session: string, held: boolean): void {
    if (this.closed) return;
    this.routes.claimsChanged(session, held);
    this.roster.schedule(DEBOUNCE_MS);
  }

  forward(held: Held, origin: Conn, sender: Principal, target: RemoteEntry): IngestOutcome {
    return this.routes.forward(held, origin, sender, target);
  }

  // --- health and shutdown ----------------------------------------------------

  /** The fleet's health as this relay sees it (/healthz `backplane`, `hookmap doctor`). */
  async health(): Promise<BackplaneHealth> {
    const lastSeen = Math.max(this.feed.lastSeqSeen, this.outbox.lastSeq);
    const error = this.signer.lastError || this.outbox.lastError || this.feed.lastError || this.lastError;
    const base = {
      url: this.where,
      ...this.auth,
      connected: !this.nc.isClosed() && !this.disconnected,
      stream: this.o.stream,
      relay: this.relayId,
      consumed_seq: this.feed.consumedSeq,
      relays: this.roster.relays(),
      max_age_ms: this.o.maxAgeMs,
      max_bytes: this.o.maxBytes,
      published: this.outbox.published,
      publish_failures: this.outbox.failures,
      duplicates: this.feed.duplicates,
      forged: this.signer.forged,
      forwarded: this.routes.forwarded,
      live_in: this.live.received,
      ...(error ? { error } : {}),
    };
    // down: what is known now, not a stream query that can only time out
    if (!base.connected)
      return {
        ...base,
        messages: 0,
        bytes: 0,
        first_seq: 0,
        last_seq: lastSeen,
        lag: Math.max(0, lastSeen - this.feed.consumedSeq),
        consumers: 0,
        error: error || 'disconnected; reconnecting',
      };
    try {
      const s = (await this.jsm.streams.info(this.o.stream)).state;
      return {
        ...base,
        messages: s.messages,
        bytes: s.bytes,
        first_seq: s.first_seq,
        last_seq: s.last_seq,
        lag: Math.max(0, s.last_seq - this.feed.consumedSeq),
        consumers: s.consumer_count,
      };
    } catch (e) {
      return {
        ...base,
        connected: false,
        messages: 0,
        bytes: 0,
        first_seq: 0,
        last_seq: lastSeen,
        lag: Math.max(0, lastSeen - this.feed.consumedSeq),
        consumers: 0,
        error: error || `stream info: ${(e as Error).message}`,
      };
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unwatch?.();
    this.roster.stop();
    this.routes.stop();
    await this.outbox.close(2000);
    this.feed.stop();
    // drain waits for the server; with NATS down, give up after a bound and close
    const drained = this.nc.drain().then(
      () => true,
      () => false,
    );
    if (!(await Promise.race([drained, new Promise<boolean>((r) => setTimeout(() => r(false), 2000).unref())]))) await this.nc.close().catch(() => {});
  }
}
