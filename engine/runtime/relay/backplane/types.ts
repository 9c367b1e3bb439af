// What the relay's store and core see of the fleet backplane
// (engine/runtime/relay/backplane/): the optional members a networked RelayStore
// adds, and the hooks core.ts calls for claims, the fleet-wide roster
// (AEP-0003 §4.1) and routing commands to another relay (AEP-0004 §4).
import type { Principal } from '../../auth/principal.ts';
import type { Conn, IngestOutcome, RelayCore } from '../core.ts';
import type { Held } from '../store.ts';

/** A live claim held on another relay: its AEP-0003 §4.1 roster entry, and which relay holds it. */
export interface RemoteEntry {
  relay: string;
  entry: Record<string, unknown>;
}

export interface FleetHooks {
  /** The relay's core: local claims, local delivery, counters and audit. */
  attach(core: RelayCore): void;
  /** Live claims held on other relays (fresh snapshots only). */
  remoteEntries(): RemoteEntry[];
  /** A session gained its first or lost its last local claimant. */
  claimsChanged(session: string, held: boolean): void;
  /**
   * Route a command whose one claimant is on another relay. Called only
   * after the sender's control scope was checked (core.ts routeOnce); the
   * sender's principal crosses inside the signed message.
   */
  forward(held: Held, origin: Conn, sender: Principal, target: RemoteEntry): IngestOutcome;
}

/** The optional members of a RelayStore that lives on a network. */
export interface NetworkedStore {
  /** Resolves once everything admitted so far is durable there (the WS `pong` and POST answers wait for it). */
  barrier?(): Promise<void>;
  /** A store shared by several relays: claims, roster and command routing across them. */
  fleet?: FleetHooks;
  /** Its health (stream, lag, consumers), for /healthz and `hookmap doctor`. */
  health?(): Promise<object>;
  /** Release what it holds open; the relay calls it on close. */
  close?(): Promise<void>;
}

/** What /healthz says of the backplane (`hookmap doctor` reads it: engine/tools/doctor/daemon.ts). */
export interface BackplaneHealth {
  /** The NATS URL(s), any credentials in them masked. */
  url: string;
  /** How this relay authenticates to NATS (never the secret), and whether over TLS (connect.ts). */
  auth: 'none' | 'creds' | 'user' | 'token';
  tls: boolean;
  connected: boolean;
  stream: string;
  /** This relay's name on the backplane, and every relay heard from recently. */
  relay: string;
  relays: string[];
  messages: number;
  bytes: number;
  first_seq: number;
  last_seq: number;
  consumed_seq: number;
  lag: number;
  consumers: number;
  max_age_ms: number;
  max_bytes: number;
  published: number;
  publish_failures: number;
  duplicates: number;
  /** Messages dropped for a missing or wrong signature. */
  forged: number;
  /** Commands this relay sent to another relay of the fleet; live-only events received from the others. */
  forwarded: number;
  live_in: number;
  error?: string;
}
