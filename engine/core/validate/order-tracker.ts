// The (epoch, seq) contract per session (AEP-0001 §7): gaps are legal, a seq
// at or below the high-water mark of its epoch is a regression, an earlier
// epoch is a regression, and one position held by two different Events is a
// conflict. A new epoch only ever comes from the `epoch` attribute.
import type { Finding } from './envelope-rules.ts';
import { comparePositions, positionOf, sessionKey, showPosition, type Position } from './keys.ts';

interface SessionOrder {
  high: Position;
  highLine: number;
}

export class OrderTracker {
  private sessions = new Map<string, SessionOrder>();
  // position -> (id, line) of the Event holding it, to tell a conflict from a
  // backfill below the high-water mark
  private held = new Map<string, { id: unknown; line: number }>();

  observe(ev: Record<string, unknown>, line: number): Finding[] {
    const sk = sessionKey(ev);
    const pos = positionOf(ev);
    if (!sk || !pos || ev.seq === undefined) return [];
    const session = ev.session as string;
    const posKey = `${sk}\u0000${pos.epoch}\u0000${pos.seq}`;
    const holder = this.held.get(posKey);
    if (holder) {
      // same id: a redelivery (never reaches here) or an id/conflict, reported once there
      if (holder.id === ev.id) return [];
      return [
        {
          rule: 'order/position-conflict',
          message: `${showPosition(pos)} in session ${session} is already held by ${String(holder.id)} (line ${holder.line})`,
        },
      ];
    }
    this.held.set(posKey, { id: ev.id, line });
    const st = this.sessions.get(sk);
    if (!st) {
      this.sessions.set(sk, { high: pos, highLine: line });
      return [];
    }
    if (pos.epoch < st.high.epoch) {
      return [{ rule: 'order/epoch-regression', message: `epoch ${pos.epoch} after epoch ${st.high.epoch} in session ${session} (line ${st.highLine})` }];
    }
    if (comparePositions(pos, st.high) < 0) {
      return [{ rule: 'order/seq-regression', message: `seq ${pos.seq} after ${st.high.seq} in session ${session} (epoch ${pos.epoch})` }];
    }
    if (comparePositions(pos, st.high) > 0) this.sessions.set(sk, { high: pos, highLine: line });
    return [];
  }
}
