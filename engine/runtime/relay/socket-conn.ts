// One WebSocket connection of the relay (AEP-0003 §3.5, §4, §6.5;
// AEP-0004 §4): hello first, then events, commands and frames; every
// refusal after hello is an in-band error frame and the connection
// survives; closes go in order (a `closing` frame with positions first).
// Moved out of socket.ts (which accepts the upgrades).
import type { RawData, WebSocket } from 'ws';
import { SUPPORTED_VERSIONS } from '../../core/aep/schemas.ts';
import { can, type Principal } from '../auth/principal.ts';
import type { Conn, Role } from './core.ts';
import { capabilities } from './discovery.ts';
import { pongWhenStored } from './durable.ts';
import { buildSpec, RequestError } from './request.ts';
import type { SocketContext } from './socket.ts';
import { wsSink } from './socket-sink.ts';
import type { Position } from './store.ts';
import type { Subscription } from './subscription.ts';

const ROLES = new Set<Role>(['emitter', 'consumer', 'both']);
/**
 * A connection-scoped frame (AEP-0003 §2: no dot, ignored by parties that do
 * not know it) sent to a command's target right before the command: the
 * authenticated name of the sender. hookmap's daemons stamp it into
 * `attention.answered.by`; the command's own `agent` is only asserted.
 */
export const ROUTED_FRAME = 'x-hookmap-routed';
/** How long a closed peer may take to read its queue and answer the close before it is cut off. */
export const CLOSE_GRACE_MS = 10_000;
/** Close code for a consumer closed for falling behind: come back (resume) later. */
export const SLOW_CONSUMER_CODE = 1013;

/** Per connection: how to close it in order (a `closing` frame with positions first, §3.5 rule 4). */
export const closers = new WeakMap<WebSocket, (code: number, reason: string) => void>();

export function serve(ws: WebSocket, ctx: SocketContext, principal: Principal): void {
  const { core } = ctx;
  let conn: Conn | undefined;
  const subs = new Map<string, Subscription>();
  /** Last position delivered per subscription and session: what a `closing` frame reports. */
  const delivered = new Map<string, Map<string, Position>>();
  const send = (frame: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };
  let closingSent = false;
  const closeInOrder = (code: number, reason: string) => {
    if (closingSent || ws.readyState !== ws.OPEN) return;
    closingSent = true;
    const positions: (Position & { sub: string; session: string })[] = [];
    for (const [sub, bySession] of delivered) for (const [session, p] of bySession) positions.push({ sub, session, epoch: p.epoch, seq: p.seq });
    send({ type: 'closing', reason, delivered: positions });
    ws.close(code, reason.slice(0, 120));
    // a peer that never reads its queue never answers the close: cut it off (it resumes from its own positions)
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  };
  closers.set(ws, closeInOrder);
  /** AEP-0003 §8.4: past the pending bound the choice is deliver or disconnect; disconnect in order. */
  const overflow = (why: string) => {
    if (closingSent) return;
    core.counters.droppedConsumers++;
    for (const s of subs.values()) s.close(); // nothing more is queued behind the closing frame
    closeInOrder(SLOW_CONSUMER_CODE, `slow consumer: ${why}`);
  };
  // a revoked credential ends the connection at once (engine/runtime/auth)
  const untrack = ctx.track(principal, (reason) => {
    closeInOrder(1008, reason);
    setTimeout(() => ws.terminate(), 1000).unref();
  });

  // Liveness: any frame from the peer counts; silence past idleMs closes it.
  let lastHeard = Date.now();
  const liveness = setInterval(() => {
    if (Date.now() - lastHeard > ctx.idleMs) {
      closeInOrder(1001, 'idle timeout');
      return;
    }
    send({ type: 'ping', t: Date.now() });
  }, ctx.pingMs);
  liveness.unref();

  ws.on('message', (data: RawData, isBinary: boolean) => {
    lastHeard = Date.now();
    if (isBinary) {
      // Binary frames are reserved in 0.1 (AEP-0003 §3.5).
      send({ type: 'error', code: 'binary-unsupported', detail: 'binary frames are reserved in AEP 0.1' });
      return ws.close(1003, 'binary frames unsupported');
    }
    const text = data.toString();
    let msg: any;
    try {
      msg = JSON.parse(text);
    } catch {
      if (!conn) return helloRequired();
      return send({ type: 'error', code: 'invalid-frame', detail: 'frame is not valid JSON' });
    }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.type !== 'string') {
      if (!conn) return helloRequired();
      return send({ type: 'error', code: 'invalid-frame', detail: 'frame must be a JSON object with a string type' });
    }
    if (!conn) return msg.type === 'hello' ? hello(msg) : helloRequired();
    if (msg.type.includes('.')) return event(text, msg);
    switch (msg.type) {
      case 'subscribe':
        return subscribe(msg);
      case 'unsubscribe':
        return unsubscribe(msg);
      case 'roster':
        return roster(msg);
      case 'ping':
        return pongWhenStored(core.store, msg.t, send, closeInOrder);
      default:
        return; // unknown frame types (and a repeated hello) are ignored (§2)
    }
  });

  ws.on('close', () => {
    untrack();
    clearInterval(liveness);
    for (const s of subs.values()) s.close();
    subs.clear();
    if (conn) core.closeConn(conn);
  });
  ws.on('error', () => ws.terminate());

  function helloRequired() {
    send({ type: 'error', code: 'hello-required', detail: 'the first frame must be hello' });
    ws.close(1008, 'hello required');
  }

  function hello(msg: any) {
    const offered: unknown[] = Array.isArray(msg.versions) ? msg.versions : [];
    const version = offered.find((v) => typeof v === 'string' && SUPPORTED_VERSIONS.includes(v));
    if (!version) {
      send({ type: 'error', code: 'version-unsupported', versions: [...SUPPORTED_VERSIONS], detail: 'no common version' });
      return ws.close(1002, 'version unsupported');
    }
    const role: Role = ROLES.has(msg.role) ? msg.role : 'consumer';
    const identity = msg.identity && typeof msg.identity === 'object' && !Array.isArray(msg.identity) ? msg.identity : {};
    const caps = msg.capabilities && typeof msg.capabilities === 'object' && !Array.isArray(msg.capabilities) ? msg.capabilities : {};
    if (role !== 'consumer' && (typeof identity.agent !== 'string' || !identity.agent)) {
      send({ type: 'error', code: 'invalid-hello', detail: 'identity.agent is required for emitters (AEP-0003 §4 rule 3)' });
      return ws.close(1008, 'invalid hello');
    }
    conn = core.openConn({
      role,
      identity: { agent: identity.agent, instance: identity.instance },
      capabilities: caps,
      principal,
      deliverCommand: (raw, ev, sender) => {
        if (ws.readyState !== ws.OPEN) return;
        // the sender's authenticated name rides beside the command, never inside it (byte-identity, AEP-0004 §4.4)
        ws.send(JSON.stringify({ type: ROUTED_FRAME, cause: ev.id, by: sender.name }));
        ws.send(raw);
      },
      refused: (code, detail, ev) => send({ type: 'error', code, detail, cause: ev.id }),
    });
    send({
      type: 'hello',
      versions: [version],
      role: 'both',
      identity: { agent: 'hookmap-relay', instance: ctx.instance },
      capabilities: capabilities(core.limits, core.controlEnabled),
    });
  }

  function event(text: string, msg: any) {
    const r = core.ingest(text, conn!);
    if (r.ok) return;
    const frame: Record<string, unknown> = { type: 'error', code: r.code, detail: r.detail };
    if (typeof msg.id === 'string') frame.cause = msg.id; // lets a sender settle the pending command (AEP-0004 §4.2)
    send(frame);
  }

  function subscribe(msg: any) {
    const id = msg.id;
    if (typeof id !== 'string' || !id) return send({ type: 'error', code: 'invalid-filter', detail: 'subscribe needs a string id' });
    if (conn!.info.role === 'emitter') return send({ type: 'error', id, code: 'unauthorized', detail: 'emitter-role connections may not subscribe' });
    if (!can(principal, 'read')) return send({ type: 'error', id, code: 'unauthorized', detail: `'${principal.name}' may not read the stream` });
    if (subs.has(id)) return send({ type: 'error', id, code: 'invalid-filter', detail: `subscription '${id}' already exists` });
    if (subs.size >= core.limits.maxSubscriptions)
      return send({ type: 'error', id, code: 'limit-exceeded', detail: `maxSubscriptions is ${core.limits.maxSubscriptions}` });
    let spec;
    try {
      spec = buildSpec(msg.filter, msg.capture, msg.from, core.limits.maxFrom);
    } catch (e) {
      if (e instanceof RequestError) return send({ type: 'error', id, code: e.code, detail: e.message });
      throw e;
    }
    spec.control = can(principal, 'control');
    spec.person = core.personOf?.(principal);
    send({ type: 'subscribed', id });
    const positions = new Map<string, Position>();
    delivered.set(id, positions);
    subs.set(id, core.subscribe(spec, wsSink(ws, core, id, positions, overflow), conn));
  }

  function unsubscribe(msg: any) {
    const sub = subs.get(msg.id);
    if (sub) {
      sub.close();
      subs.delete(msg.id);
      delivered.delete(msg.id);
    }
    send({ type: 'unsubscribed', id: msg.id });
  }

  function roster(msg: any) {
    if (typeof msg.id !== 'string') return; // the id is REQUIRED; without it there is nothing to echo
    if (conn!.info.role === 'emitter') return send({ type: 'error', id: msg.id, code: 'unauthorized', detail: 'roster is watch-class: consumer or both role' });
    if (!can(principal, 'read')) return send({ type: 'error', id: msg.id, code: 'unauthorized', detail: `'${principal.name}' may not read the roster` });
    send({ type: 'roster', id: msg.id, entries: core.roster() });
  }
}
