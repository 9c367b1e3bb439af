// The daemon's SeqAllocator (AEP-0001 §7). The epoch is durable and bumped
// on every start (epoch.ts); the per-session counter is durable too: on a
// cache miss (first sight after a restart, or a session the bounded cache
// forgot) it continues after the last seq in that session's log. Either half
// alone keeps (epoch, seq) monotonic across restarts; together the counter
// also never regresses within an epoch when memory is bounded (a counter
// that restarted at 0 after an LRU eviction would reuse positions), and a
// consumer that only compares seq still sees no regression.
import type { Position } from '../../core/kernel/position.ts';
import type { SeqAllocator } from '../../core/map/state.ts';
import type { SessionLog } from './session-log.ts';

export class DurableSeq implements SeqAllocator {
  private readonly next_ = new Map<string, number>(); // LRU by Map order

  constructor(
    readonly epoch: number,
    private readonly log: SessionLog,
    private readonly maxSessions = 10_000,
  ) {}

  next(session: string): Position {
    let seq = this.next_.get(session);
    if (seq === undefined) {
      const last = this.log.lastPosition(session);
      seq = last ? last.seq + 1 : 0;
    } else {
      this.next_.delete(session);
    }
    this.next_.set(session, seq + 1);
    while (this.next_.size > this.maxSessions) this.next_.delete(this.next_.keys().next().value as string);
    return { epoch: this.epoch, seq };
  }
}
