// What one WebSocket subscription writes (AEP-0003 §3.5, §8.4): events as
// text frames encoded once per event, positions delivered (for the
// `closing` frame), replay paced by the socket's buffer, shedding and
// overflow past the pending bound. Moved out of socket.ts.
import type { WebSocket } from 'ws';
import type { RelayCore } from './core.ts';
import { corkForTick } from './cork.ts';
import type { Held, Position } from './store.ts';
import { admitted, REPLAY_HIGH_WATER, type Sink } from './subscription.ts';

export function wsSink(ws: WebSocket, core: RelayCore, subId: string, positions: Map<string, Position>, overflow: (why: string) => void): Sink {
  const maxPending = core.limits.maxPending;
  return {
    event(text: string, held: Held): boolean {
      if (ws.readyState !== ws.OPEN) return false;
      const verdict = admitted(ws.bufferedAmount, maxPending, held, core.counters, overflow);
      if (verdict !== 'write') return verdict;
      corkForTick(ws);
      // encoded once per event, shared by every WebSocket subscriber (a text frame either way)
      ws.send(text === held.raw ? (held.bytes ??= Buffer.from(text)) : text, { binary: false });
      const ev = held.ev;
      if (typeof ev.session === 'string' && typeof ev.seq === 'number') {
        // updated in place: no allocation per subscriber per event on the hot path
        const p = positions.get(ev.session);
        if (p) {
          p.epoch = ev.epoch ?? 0;
          p.seq = ev.seq;
        } else positions.set(ev.session, { epoch: ev.epoch ?? 0, seq: ev.seq });
      }
      return true;
    },
    exhausted(session: string, earliest: Position): void {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'replay-exhausted', sub: subId, session, earliest }));
    },
    ready(): Promise<void> | null {
      if (ws.readyState !== ws.OPEN || ws.bufferedAmount <= REPLAY_HIGH_WATER) return null;
      return new Promise((resolve) => {
        const tick = () => (ws.readyState !== ws.OPEN || ws.bufferedAmount <= REPLAY_HIGH_WATER ? resolve() : setTimeout(tick, 5));
        setTimeout(tick, 5);
      });
    },
    overflow,
  };
}
