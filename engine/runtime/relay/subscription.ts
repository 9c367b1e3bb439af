// One subscription: a compiled filter, an optional capture ceiling and a
// sink. Shared by SSE, WebSocket and in-process consumers so filtering,
// down-leveling and backpressure behave identically on every binding.
import { captureRank, type CaptureLevel } from '../../core/aep/schemas.ts';
import { downLevelEvent } from '../../core/capture/gate.ts';
import type { CompiledFilter } from './attr-match.ts';
import type { Held, Position, StoredEvent } from './store.ts';
import { isQueryAnswer } from '../../core/kernel/event.ts';
import { mayReach } from '../auth/people.ts';

/** How many hidden requests one subscription remembers (what follows an older one is matched by nothing else). */
const HIDDEN_MAX = 8_192;

export interface Sink {
  /** Deliver one serialized event; return false when the consumer has been dropped. */
  event(text: string, held: Held): boolean;
  /** The replay-exhausted marker for one session (SSE comment / WS frame). */
  exhausted(session: string, earliest: Position): void;
  /** Resolves once the consumer has room again; null when it has room now. Replay paces itself on this. */
  ready(): Promise<void> | null;
  /**
   * The consumer fell past the pending bound (AEP-0003 §8.4): close it in
   * order (WS: `closing` frame with last delivered positions; SSE: end the
   * stream) so it resumes from its own positions without loss.
   */
  overflow(why: string): void;
  /** Replay finished and `live` was false: end the stream. */
  end?(): void;
}

export interface SubscriptionSpec {
  filter: CompiledFilter;
  /** Capture ceiling (AEP-0003 §6.4); absent means as received. */
  capture?: CaptureLevel;
  /** Resume positions, or 'all' for replay-all; absent means live only. */
  from?: (Position & { session: string })[] | 'all';
  /** false: replay, then end (the `live=0` composition). Default true. */
  live?: boolean;
  /** The subscriber's principal holds the control scope: it also gets the answers of control queries (forControlOnly). */
  control?: boolean;
  /** The subscriber's person (engine/runtime/auth/people.ts): a request routed to others never reaches it, nor what follows it. */
  person?: string;
}

/**
 * The outcome of a control query (`x.hookmap.control.*`, engine/runtime/daemon/door.ts) carries what the stream does not
 * (a request's command, redacted, its paths, its options) in `data.result`: only a subscriber whose principal may
 * send commands (and so may ask) gets it; every other subscriber never sees the event.
 */
export const forControlOnly = isQueryAnswer; // the kernel's one definition

/** The wire text of `held` at `ceiling`: never up-leveled, computed once per ceiling. */
export function render(held: Held, ceiling: CaptureLevel | undefined): string {
  if (!ceiling || captureRank(held.ev.capture) <= captureRank(ceiling)) return held.raw;
  const levels = (held.levels ??= {});
  return (levels[ceiling] ??= JSON.stringify(downLevelEvent(held.ev, ceiling)));
}

/** Severities a slow consumer may lose (AEP-0003 §8.4 allows debug and info; hookmap sheds debug only). */
export function sheddable(held: Held): boolean {
  return held.ev.severity === 'debug';
}

/** Bytes a replay may leave queued on a consumer's connection before it waits for the consumer. */
export const REPLAY_HIGH_WATER = 64 * 1024;

/**
 * The slow-consumer bound (AEP-0003 §8.4), one decision for every transport
 * given the bytes already queued on the connection: past maxPending the
 * consumer is closed (it resumes from its last position, nothing lost); past
 * half of it, events a slow consumer may lose are shed (counted); otherwise
 * the event is written.
 */
export function admit(pending: number, maxPending: number, held: Held): 'write' | 'shed' | 'overflow' {
  if (pending > maxPending) return 'overflow';
  if (pending > maxPending / 2 && sheddable(held)) return 'shed';
  return 'write';
}

/** What every transport's sink counts when it applies the bound: shed events and cut consumers. */
export interface AdmitCounters {
  droppedEvents: number;
}

/**
 * The bound applied, for a sink's `event()`: `'write'` to write it; otherwise the answer `event()` returns
 * (true: shed and counted, the consumer stays; false: `overflow` was called and the consumer is being cut).
 */
export function admitted(pending: number, maxPending: number, held: Held, counters: AdmitCounters, overflow: (why: string) => void): 'write' | boolean {
  const verdict = admit(pending, maxPending, held);
  if (verdict === 'write') return 'write';
  if (verdict === 'shed') {
    counters.droppedEvents++;
    return true;
  }
  overflow(`more than ${maxPending} bytes pending (pending_bytes_per_consumer)`);
  return false;
}

/**
 * Replay is paced by the consumer (sink.ready), so resuming 10,000 events
 * never needs 10,000 events of memory at once; held events are parsed one
 * at a time as they go out. Live events arriving during replay queue behind
 * it (bounded by maxPending: past it the consumer is closed in order) and
 * flush after: the snapshot and the queue split at one instant, so there is
 * no gap and no duplicate between them.
 */
export class Subscription {
  closed = false;
  private replaying = true;
  private queue: Held[] = [];
  private queuedBytes = 0;
  /** Requests routed to other people (bounded, oldest forgotten first). */
  private readonly hidden = new Set<string>();

  constructor(
    readonly spec: SubscriptionSpec,
    readonly sink: Sink,
    /** The connection this subscription lives on (fan-out skips it for commands routed to it). */
    readonly owner: object | undefined,
    private readonly maxPending: number,
    private readonly onClose: (s: Subscription) => void,
  ) {}

  offer(held: Held): void {
    if (this.closed || (held.skip && held.skip === this.owner)) return;
    if (!this.passes(held)) return;
    if (this.replaying) {
      if (sheddable(held) && this.queuedBytes > this.maxPending / 2) return;
      this.queue.push(held);
      this.queuedBytes += held.raw.length;
      if (this.queuedBytes > this.maxPending) this.overflow(`more than ${this.maxPending} bytes of live events queued behind the replay`);
      return;
    }
    if (!this.sink.event(render(held, this.spec.capture), held)) this.close();
  }

  /** Deliver `snapshot` (already ordered), then the live queue, then go live (or end). */
  async replay(snapshot: StoredEvent[]): Promise<void> {
    try {
      for (const stored of snapshot) {
        if (this.closed) return;
        const raw = stored.text();
        const held: Held = { ev: JSON.parse(raw), raw };
        if (!this.passes(held)) continue;
        if (!this.sink.event(render(held, this.spec.capture), held)) return this.close();
        const wait = this.sink.ready();
        if (wait) await wait;
      }
      while (this.queue.length && !this.closed) {
        const held = this.queue.shift()!;
        this.queuedBytes -= held.raw.length;
        if (!this.sink.event(render(held, this.spec.capture), held)) return this.close();
        const wait = this.sink.ready();
        if (wait) await wait;
      }
      this.replaying = false;
      if (this.spec.live === false && !this.closed) {
        this.sink.end?.();
        this.close();
      }
    } catch {
      this.close();
    }
  }

  private passes(held: Held): boolean {
    return this.spec.filter(held.ev) && (this.spec.control === true || !forControlOnly(held.ev)) && this.reaches(held.ev);
  }

  /** Requests routed to other people (and every event about them) are hidden from a person's subscription. */
  private reaches(ev: Held['ev']): boolean {
    if (this.spec.person === undefined) return true;
    const e = ev as Record<string, unknown>;
    if (!mayReach(this.spec.person, e)) {
      this.hidden.add(String(ev.id));
      if (this.hidden.size > HIDDEN_MAX) this.hidden.delete(this.hidden.values().next().value!);
      return false;
    }
    return !this.hidden.has(String(e.subject)) && !this.hidden.has(String(e.cause));
  }

  private overflow(why: string): void {
    if (this.closed) return;
    this.close();
    this.sink.overflow(why);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.onClose(this);
  }
}
