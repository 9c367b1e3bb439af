// One write per socket per tick for the relay's WebSocket fan-out
// (engine/runtime/relay/socket.ts; AEP-0003 §3.5 binding): moved out of socket.ts.
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/**
 * Frames sent to one socket within one tick leave in one write (one
 * syscall) instead of one each: events that arrive together (one read of an
 * emitter's socket, one POSTed batch) reach each subscriber together, and
 * the relay spends its CPU on the fan-out, not on the kernel, exactly when
 * it is busiest. Uncorked before any I/O callback runs (nextTick), so no
 * frame waits on a later event; bufferedAmount still counts what is corked.
 * ws exposes no public handle on its socket, hence `_socket` (ws 8).
 */
const corked = new WeakSet<WebSocket>();
export function corkForTick(ws: WebSocket): void {
  if (corked.has(ws)) return;
  const socket = (ws as unknown as { _socket?: Duplex })._socket;
  if (!socket || typeof socket.cork !== 'function') return;
  corked.add(ws);
  socket.cork();
  process.nextTick(() => {
    corked.delete(ws);
    socket.uncork();
  });
}
