// The relay's buffer, admission dedupe and fan-out, behind one interface
// (DESIGN.md "Growing past one machine"): a JetStream-backed store can take
// MemoryStore's place so several relay nodes share one stream. Everything
// above this file (HTTP, SSE, WS, routing) only talks to RelayStore.
//
// The interface is synchronous on purpose: the relay hands replay over to
// live delivery inside one tick (replay, then register), which is what
// makes "no gaps, no duplicates" hold without a reconciliation step. The
// networked store keeps a local mirror to answer synchronously.
//
// MemoryStore holds each event ONCE, as its wire bytes (UTF-8) in
// per-session chunks outside the JavaScript heap (the parsed envelope lives
// only while it is fanned out), indexed by position in typed arrays, and is
// bounded in bytes (AEP-0003 §5 advertised depth): per session (events and
// bytes) and in total (bytes; least recently written sessions go first).
// What is charged is what is allocated: every chunk's and index array's
// full size. Resuming below what is held yields the replay-exhausted
// position (§5), never silence.
//
// In three files: the interfaces here, SessionBuffer (one session's
// off-heap buffer) in session-buffer.ts, MemoryStore in memory-store.ts.
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import type { NetworkedStore } from './backplane/types.ts';
import type { AepEvent } from '../../core/kernel/event.ts';
import type { Position } from './position.ts';

export { comparePos, positionOf, type Position } from './position.ts';

/** The kernel's one event type (engine/core/kernel/event.ts). */
export type { AepEvent } from '../../core/kernel/event.ts';

/** One event in flight (ingest and fan-out): the parsed envelope plus its wire text (forwarded as received). */
export interface Held {
  ev: AepEvent;
  raw: string;
  /** Down-leveled serializations, computed once per ceiling and shared by every subscriber. */
  levels?: Partial<Record<CaptureLevel, string>>;
  /** The wire text as UTF-8 bytes, encoded once and shared by every WebSocket subscriber. */
  bytes?: Buffer;
  /** Fan-out skips subscriptions on this connection (the target a command was routed to already has it). */
  skip?: object;
}

/** One event as a store holds it: its position, and its wire text decoded on demand (nothing parsed). */
export interface StoredEvent extends Readonly<Position> {
  text(): string;
}

export interface ReplayResult {
  events: StoredEvent[];
  /** Set when the asked position predates what is held: the earliest held position (AEP-0003 §5). */
  exhausted?: Position;
}

export interface StoreStats {
  sessions: number;
  events: number;
  bytes: number;
  evictedSessions: number;
  evictedEvents: number;
}

export interface StoreBounds {
  /** Events held per session. */
  perSession: number;
  /** Sessions held at once. */
  maxSessions: number;
  /** Bytes held per session. */
  sessionBytes: number;
  /** Bytes held in total. */
  totalBytes: number;
}

export interface RelayStore extends NetworkedStore {
  /** Buffer admission for a sequenced session event: false for a (source, id) duplicate or a position already evicted. */
  admit(held: Held): boolean;
  /** Live fan-out, as received (duplicates included: the relay is not the terminal consumer, AEP-0003 §5). */
  publish(held: Held): void;
  /** Receive every published event; returns the unsubscribe function. */
  onPublish(listener: (held: Held) => void): () => void;
  /** Held events of `session` strictly after `after` (everything held when null), ordered by (epoch, seq). */
  replay(session: string, after: Position | null): ReplayResult;
  /**
   * Refill a session from a durable record at start-up (nothing is published):
   * `events` in order; `truncated` when the record holds earlier events than
   * these, so a resume below the first one learns of the gap. A store that
   * is itself durable may ignore it.
   */
  restore(session: string, events: Held[], truncated: boolean): void;
  /** Sessions currently held, least recently written first. */
  sessions(): string[];
  stats(): StoreStats;
}

export { chargeOf } from './session-buffer.ts';
export { MemoryStore } from './memory-store.ts';
