// A slow lane for the routes a flood comes through (issue 40): a next-turn
// waiter and an OTLP export are answered after what is waiting on the fast
// lane (/healthz, a hook, the owner's inbox, CLI and relay), in slices of
// SLICE requests a turn of the event loop, so a probe or a hook arriving in
// the middle of 300 waiters is answered at once rather than after them. A
// request is read by Node (its line and headers) before it is sorted; only
// fastify's part (routing, guard, body, handler, reply) waits. Nothing is
// dropped: the lane is first in, first out, and a request whose client went
// away while it waited is let go. Without a flood it costs one turn.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Requests handled in one turn of the slow lane. */
export const SLICE = 8;
/** Method and path prefixes of the slow lane. */
const SLOW: readonly (readonly [string, string])[] = [
  ['POST', '/next-turn/'],
  ['POST', '/otlp/'],
];

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export function isSlow(req: Pick<IncomingMessage, 'method' | 'url'>): boolean {
  const url = req.url ?? '';
  return SLOW.some(([m, p]) => req.method === m && url.startsWith(p));
}

/**
 * Puts the server's request listeners present now (fastify's own, registered when it made the server) behind the lane.
 * Listeners added later (connection bookkeeping) hear every request at once as before.
 */
export function slowLane(server: Server): void {
  const handlers = server.listeners('request') as Handler[];
  if (!handlers.length) return;
  for (const h of handlers) server.removeListener('request', h);
  const queue: [IncomingMessage, ServerResponse][] = [];
  let draining = false;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    for (const h of handlers) h.call(server, req, res);
  };
  const drain = () => {
    for (let i = 0; i < SLICE && queue.length; i++) {
      const [req, res] = queue.shift()!;
      if (res.destroyed || req.socket.destroyed) continue; // its client went away while it waited
      handle(req, res);
    }
    if (queue.length) setImmediate(drain);
    else draining = false;
  };
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!isSlow(req)) return handle(req, res);
    queue.push([req, res]);
    if (!draining) {
      draining = true;
      setImmediate(drain);
    }
  });
}
