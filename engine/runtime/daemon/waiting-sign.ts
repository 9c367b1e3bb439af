// A descriptor's waiting signs (docs/watch.md), evaluated beside the mapping
// of each firing: the agent says it shows its own dialog or waits at its
// prompt. One `x.hookmap.watch.waiting` event in the firing's session; a sign
// that cannot be evaluated is said, never the firing's reply's concern. A
// sign with `unless` (a hook expected next) waits: published only when none
// of the expected hooks fired in the session within its time; the session's
// end, or the daemon stopping, drops the wait. At most MAX_EXPECTING at once.
// Beside them, a limit sign (the agent stopped on a rate or usage limit) is
// one x.hookmap.limit.reached event (engine/core/map/limits.ts).
import type { Descriptor } from '../../core/descriptor/types.ts';
import type { WaitingSign } from '../../core/descriptor/waiting.ts';
import type { Mapper, MapResult } from '../../core/map/mapper.ts';
import { waitingEventOf, waitingSignOf } from '../../core/map/waiting.ts';
import { limitEventOf } from '../../core/map/limits.ts';
import { opens } from '../../core/kernel/lifecycle.ts';
import type { DaemonCore } from './core.ts';

export const MAX_EXPECTING = 1000;

interface Expecting {
  hooks: readonly string[];
  handle: unknown;
}

export class WaitingSigns {
  /** Per session, per sign: the wait for a hook expected next. */
  private readonly expecting = new Map<string, Map<string, Expecting>>();
  private count = 0;
  private full = false;

  constructor(
    private readonly core: DaemonCore,
    private readonly mapper: Mapper,
  ) {}

  /** Beside the mapping of a firing: an expected hook ends its waits; this firing's sign is published, or waits for what comes next. */
  async fired(result: MapResult, payload: unknown, surface?: Record<string, unknown>): Promise<void> {
    const session = result.session;
    if (session === undefined) return;
    this.met(session, (e) => result.endsSession === true || e.hooks.includes(result.hook));
    try {
      const limit = await limitEventOf(this.mapper, result, payload, surface, this.core.now());
      if (limit) this.core.publish([limit]);
    } catch (e) {
      this.core.say(`limit sign of ${result.hook} not evaluated: ${(e as Error).message}`);
    }
    try {
      const w = await waitingSignOf(this.mapper, result, payload, surface);
      if (!w) return;
      if (w.unless) this.expect(session, w, w.unless);
      else this.core.publish([waitingEventOf(this.mapper, session, w)]);
    } catch (e) {
      this.core.say(`waiting sign of ${result.hook} not evaluated: ${(e as Error).message}`);
    }
  }

  /** The daemon stops: no wait fires. */
  close(): void {
    for (const session of [...this.expecting.keys()]) this.met(session, () => true);
  }

  private expect(session: string, w: WaitingSign, unless: NonNullable<WaitingSign['unless']>): void {
    const mine = this.expecting.get(session) ?? new Map<string, Expecting>();
    const had = mine.get(w.sign);
    if (had) {
      this.core.timers.clear(had.handle); // a later firing of the same sign starts the wait again
      this.count--;
    } else if (this.count >= MAX_EXPECTING) {
      if (!this.full) this.core.say(`waiting signs: ${MAX_EXPECTING} waits for an expected hook at once; sign ${w.sign} of ${session} not watched`);
      this.full = true;
      return;
    }
    const handle = this.core.timers.set(() => {
      if (mine.get(w.sign)?.handle !== handle) return;
      this.drop(session, mine, w.sign);
      void this.core.serial.run(() => {
        if (!this.core.closed) this.core.publish([waitingEventOf(this.mapper, session, w)]);
      });
    }, unless.withinMs);
    mine.set(w.sign, { hooks: unless.hooks, handle });
    this.expecting.set(session, mine);
    this.count++;
  }

  private met(session: string, done: (e: Expecting) => boolean): void {
    const mine = this.expecting.get(session);
    for (const [sign, e] of mine ?? [])
      if (done(e)) {
        this.core.timers.clear(e.handle);
        this.drop(session, mine!, sign);
      }
  }

  private drop(session: string, mine: Map<string, Expecting>, sign: string): void {
    if (!mine.delete(sign)) return;
    this.count--;
    this.full = false;
    if (!mine.size) this.expecting.delete(session);
  }
}

/** Whether the agent can refuse a tool call before it runs (a hook that opens a tool call and can block); else a budget cancels the turn. */
export function canBlockToolCalls(d: Descriptor): boolean {
  return [...d.hooks.values()].some((h) => h.decide.has('block') && h.emit.some((e) => opens(e.type) === 'tool'));
}
