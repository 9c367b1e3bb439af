// Per-session resume positions (AEP-0001 §7: (epoch, seq) orders a
// session's events; a consumer that remembers the last one per session can
// resume and drop what it already has). Bounded: the least recently
// advanced sessions are forgotten past `max` (well above the relay's
// session cap, so a forgotten session is one the relay no longer holds).
import { comparePositions } from '../../core/kernel/position.ts';
import type { AepEvent } from './projection/common.ts';

export type PositionMap = Record<string, [epoch: number, seq: number]>;

export class Positions {
  private map = new Map<string, [number, number]>();

  constructor(
    init: PositionMap = {},
    private readonly max = 20_000,
  ) {
    for (const [k, v] of Object.entries(init)) if (Array.isArray(v) && v.length === 2) this.map.set(k, [v[0], v[1]]);
  }

  get size(): number {
    return this.map.size;
  }

  /** Per session, as the relay client's ResumeState keeps them (engine/runtime/relay/client.ts). */
  static key(ev: { source: string; session?: string }): string {
    return String(ev.session);
  }

  /** Record a sequenced session event; false when it is at or below the known position (a duplicate). */
  advance(ev: AepEvent): boolean {
    const k = Positions.key(ev);
    const cur = this.map.get(k);
    const epoch = ev.epoch ?? 0;
    const seq = ev.seq ?? 0;
    if (cur && comparePositions({ epoch, seq }, { epoch: cur[0], seq: cur[1] }) <= 0) return false;
    this.map.delete(k);
    this.map.set(k, [epoch, seq]);
    if (this.map.size > this.max) {
      this.map.delete(this.map.keys().next().value as string);
    }
    return true;
  }

  has(ev: { source: string; session?: string }): boolean {
    return this.map.has(Positions.key(ev));
  }

  clone(): Positions {
    return new Positions(this.toJSON(), this.max);
  }

  toJSON(): PositionMap {
    return Object.fromEntries(this.map);
  }
}
