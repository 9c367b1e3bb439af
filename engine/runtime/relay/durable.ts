// When a WebSocket emitter's events count as delivered (AEP-0003 §3.5: a
// `pong` answers a `ping` after everything sent before it). hookmap's
// relay link treats that pong as confirmation and moves its resend offset
// past them. With a networked store (the fleet backplane,
// engine/runtime/relay/backplane/) confirmed must mean durable there: the pong
// waits for the store's barrier, and if storing failed the connection is
// closed instead (code 1011), so the emitter re-sends from what it last
// saw confirmed, to this relay or another of the fleet.
import type { RelayStore } from './store.ts';

export function pongWhenStored(store: RelayStore, t: unknown, send: (frame: unknown) => void, close: (code: number, reason: string) => void): void {
  const barrier = store.barrier?.();
  if (!barrier) return send({ type: 'pong', t });
  barrier.then(
    () => send({ type: 'pong', t }),
    (e: Error) => {
      send({ type: 'error', code: 'backplane-unavailable', detail: `events were not stored on the backplane: ${e.message}; re-send them` });
      close(1011, 'backplane unavailable');
    },
  );
}
