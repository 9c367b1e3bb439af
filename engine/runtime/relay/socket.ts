// The WebSocket binding (AEP-0003 §3.5, §4, §6.5; AEP-0004 §4): hello
// first, then events, commands and frames on one duplex connection. Every
// refusal after hello is an in-band error frame; the connection survives.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { otherUpgradeListeners } from '../auth/server-limits.ts';
import type { AuthResult } from '../auth/authorizer.ts';
import type { Guard } from '../auth/guard.ts';
import type { Principal } from '../auth/principal.ts';
import type { RelayCore } from './core.ts';
import { closers, serve } from './socket-conn.ts';
import { socketPair } from './socket-pair.ts';

// One connection's protocol is socket-conn.ts, one subscription's sink socket-sink.ts.
export { ROUTED_FRAME, CLOSE_GRACE_MS, SLOW_CONSUMER_CODE } from './socket-conn.ts';

export interface SocketContext {
  core: RelayCore;
  path: string;
  /** Host/Origin check: runs before anything else on an upgrade (engine/runtime/auth/guard.ts). */
  guard: Guard;
  authenticate: (req: IncomingMessage) => AuthResult;
  /** Register an open connection for revocation; `close` ends it in order. Returns the unregister function. */
  track: (principal: Principal, close: (reason: string) => void) => () => void;
  isClosing: () => boolean;
  connectionCount: () => number;
  instance: string;
  /** Liveness (AEP-0003 §3.5 rule 5): ping interval and the silence after which a peer is closed. */
  pingMs: number;
  idleMs: number;
}

export interface SocketServer {
  sockets: Set<WebSocket>;
  /**
   * A connection from this process (`up`'s own daemons): the end to speak on, served like an upgraded socket (the
   * credential in `authorization` checked, counted, closed with the rest), over a socket pair instead of loopback TCP.
   */
  dial(authorization?: string): WebSocket;
  /** Close every socket with 1001 (going away). */
  closeAll(): void;
  detach(): void;
}

export function attachSockets(server: Server, ctx: SocketContext): SocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: ctx.core.limits.maxFrame, perMessageDeflate: false });
  const sockets = new Set<WebSocket>();

  const accept = (ws: WebSocket, principal: Principal) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    serve(ws, ctx, principal);
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== ctx.path) {
      // Only answer for paths nobody else on this server handles.
      if (otherUpgradeListeners(server) === 1) refuseUpgrade(socket, 404, 'Not Found');
      return;
    }
    if (!ctx.guard.upgrade(req, socket)) return;
    if (ctx.isClosing()) return refuseUpgrade(socket, 503, 'Service Unavailable');
    const auth = ctx.authenticate(req);
    if (!auth.ok) return refuseUpgrade(socket, 401, 'Unauthorized');
    if (ctx.connectionCount() >= ctx.core.limits.maxConnections) return refuseUpgrade(socket, 503, 'Service Unavailable');
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, auth.principal));
  };
  server.on('upgrade', onUpgrade);
  return {
    sockets,
    dial(authorization) {
      const [client, relay] = socketPair();
      const auth = ctx.authenticate({ headers: authorization ? { authorization } : {}, url: ctx.path } as IncomingMessage);
      const refused = ctx.isClosing() ? 503 : !auth.ok ? 401 : ctx.connectionCount() >= ctx.core.limits.maxConnections ? 503 : 0;
      if (refused || !auth.ok) {
        const why = `relay refused the connection: ${refused}${refused === 401 ? ' (wrong or missing token)' : ' (stopping, or too many connections)'}`;
        setImmediate(() => (client.emit('error', new Error(why)), client.terminate()));
      } else {
        accept(relay as unknown as WebSocket, auth.principal);
        client.open();
      }
      return client as unknown as WebSocket;
    },
    closeAll() {
      for (const ws of sockets) (closers.get(ws) ?? ((c, r) => ws.close(c, r)))(1001, 'relay shutting down');
    },
    detach() {
      server.off('upgrade', onUpgrade);
      for (const ws of sockets) ws.terminate();
      wss.close();
    },
  };
}

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  // Node hands an upgrading socket over with no 'error' listener: a client resetting
  // after this refusal would otherwise be an uncaught ECONNRESET that stops the process.
  socket.on('error', () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
