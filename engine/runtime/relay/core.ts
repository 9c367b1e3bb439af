// The relay without any transport: ingest (validate, admit, fan out),
// subscriptions with replay, emitter connections and their session claims,
// and control routing. HTTP, SSE, WebSocket and in-process callers all go
// through here, so every binding applies the same rules. With a fleet
// backplane (engine/runtime/relay/backplane/) the other relays' claims count as
// local ones: one logical endpoint for the roster and for routing.
import { Redactor } from '../../core/capture/redact.ts';
import { isCommand } from '../../core/kernel/event.ts';
import { isSessionTerminal } from '../../core/kernel/lifecycle.ts';
import { auditRecord, type AuditRecord, type RefusalCode } from './audit.ts';
import { watcherCopy } from './command-copy.ts';
import { formatAjvErrors, validateEnvelope } from '../../core/aep/schemas.ts';
import { can, type Principal } from '../auth/principal.ts';
import type { RelayLimits } from './options.ts';
import { MemoryStore, comparePos, type AepEvent, type Held, type Position, type RelayStore, type StoredEvent } from './store.ts';
import { Subscription, type Sink, type SubscriptionSpec } from './subscription.ts';

export type Role = 'emitter' | 'consumer' | 'both';

export interface ConnInfo {
  role: Role;
  identity: { agent?: string; instance?: string; [k: string]: unknown };
  /** The capabilities the connection declared (its `hello`); `control.accepts` gates routing. */
  capabilities: { control?: { accepts?: unknown; [k: string]: unknown }; emits?: unknown; [k: string]: unknown };
  /** Who opened the connection (engine/runtime/auth): its scopes gate emitting, reading and commanding. */
  principal: Principal;
  /**
   * Hand a routed command to this connection, as received (byte-identical,
   * AEP-0004 §4.4), with the authenticated sender: the target's only
   * trustworthy source for "who answered" (a command's `agent` is asserted, §8).
   */
  deliverCommand(raw: string, ev: AepEvent, sender: Principal): void;
  /** A refusal learned after ingest returned (a command forwarded to another relay of the fleet). */
  refused?(code: string, detail: string, ev: AepEvent): void;
}

export class Conn {
  readonly claims = new Set<string>();
  constructor(
    readonly id: number,
    readonly info: ConnInfo,
  ) {}
}

export type IngestOutcome =
  { ok: true; admitted: boolean; routed?: boolean; /** forwarded to this relay of the fleet */ via?: string } | { ok: false; code: string; detail: string };

/** A command (routed, never buffered), as opposed to an ack: the kernel's definition. */
export { isCommand };

const acceptsAny = (c: Conn): boolean => {
  const a = c.info.capabilities?.control?.accepts;
  return Array.isArray(a) && a.length > 0;
};

export interface RelayCounters {
  received: number;
  admitted: number;
  duplicates: number;
  invalid: number;
  routed: number;
  refused: number;
  droppedConsumers: number;
  droppedEvents: number;
}

export class RelayCore {
  readonly store: RelayStore;
  readonly subs = new Set<Subscription>();
  /** Subscriptions of the host's own in-process parts (Web Push, the chat channels): not consumers a client counts. */
  readonly internal = new WeakSet<Subscription>();
  readonly conns = new Set<Conn>();
  readonly claimsBySession = new Map<string, Set<Conn>>();
  private nextConnId = 1;
  readonly counters: RelayCounters = { received: 0, admitted: 0, duplicates: 0, invalid: 0, routed: 0, refused: 0, droppedConsumers: 0, droppedEvents: 0 };

  /** The person a principal is (engine/runtime/auth/people.ts; set by the host): its subscriptions see only what is routed to it. */
  personOf?: (p: Principal) => string | undefined;

  /** Receives one record per command routed or refused (set by the host). */
  audit?: (record: AuditRecord) => void;

  constructor(
    readonly limits: RelayLimits,
    readonly controlEnabled: boolean,
    store?: RelayStore,
    /** The watchers' copies of commands are redacted with it (command-copy.ts). */
    private readonly redactor: Redactor = new Redactor(),
  ) {
    this.store =
      store ??
      new MemoryStore({ perSession: limits.buffer, maxSessions: limits.maxSessions, sessionBytes: limits.sessionBufferBytes, totalBytes: limits.bufferBytes });
    this.store.onPublish((held) => {
      for (const sub of this.subs) sub.offer(held);
    });
    this.store.fleet?.attach(this);
  }

  /** Parse + validate one event's wire text (or an object) into a Held, or say why not. */
  prepare(input: string | object): Held | { code: string; detail: string } {
    let ev: unknown;
    let raw: string;
    if (typeof input === 'string') {
      try {
        ev = JSON.parse(input);
      } catch (e) {
        return { code: 'invalid-event', detail: `malformed JSON: ${(e as Error).message}` };
      }
      // Keep the bytes as received when they are one line (forwarded byte-identically).
      raw = input.includes('\n') || input.includes('\r') ? JSON.stringify(ev) : input;
    } else {
      ev = input;
      raw = JSON.stringify(input);
    }
    const errs = validateEnvelope(ev);
    if (errs.length) return { code: 'invalid-event', detail: formatAjvErrors(errs) };
    return { ev: ev as AepEvent, raw };
  }

  /**
   * The single ingest path. `origin` is the duplex connection the event came
   * on (WS or in-process), or null for HTTP POST, where commands never flow.
   */
  ingest(input: string | object | Held, origin: Conn | null): IngestOutcome {
    this.counters.received++;
    const held = typeof input === 'object' && 'raw' in input && 'ev' in input ? (input as Held) : this.prepare(input as string | object);
    if (!('ev' in held)) {
      this.counters.invalid++;
      return { ok: false, ...held };
    }
    const ev = held.ev;
    if (isCommand(ev.type)) return this.route(held, origin);
    if (origin && !can(origin.info.principal, 'emit')) {
      this.counters.refused++;
      return {
        ok: false,
        code: 'unauthorized',
        detail: `'${origin.info.principal.name}' may not emit events (its scopes: ${origin.info.principal.scopes.join(', ')})`,
      };
    }
    if (ev.type.startsWith('agent.') || ev.seq === undefined) {
      // Agent-scoped and foreign-emitter (seq-less) events have no position: live only.
      this.store.publish(held);
      return { ok: true, admitted: false };
    }
    if (origin && origin.info.role !== 'consumer') {
      if (isSessionTerminal(ev.type)) this.release(origin, ev.session!);
      else this.claim(origin, ev.session!);
    }
    const admitted = this.store.admit(held);
    if (admitted) this.counters.admitted++;
    else this.counters.duplicates++;
    this.store.publish(held);
    return { ok: true, admitted };
  }

  refuse(code: RefusalCode, detail: string): IngestOutcome {
    this.counters.refused++;
    return { ok: false, code, detail };
  }

  /** AEP-0004 §4: at most one target, only from an authenticated duplex connection with the control scope. */
  private route(held: Held, origin: Conn | null): IngestOutcome {
    const r = this.routeOnce(held, origin);
    this.record(held.ev, origin?.info.principal.name ?? '(http)', r, r.ok ? r.via : undefined);
    return r;
  }

  /** One audit line (audit.ts); the sink failing must not change what happened to the command. */
  record(ev: AepEvent, principal: string, r: IngestOutcome, relay?: string): void {
    try {
      this.audit?.(auditRecord(ev, principal, r, relay));
    } catch {
      /* see above */
    }
  }

  private routeOnce(held: Held, origin: Conn | null): IngestOutcome {
    const ev = held.ev;
    if (!this.controlEnabled) return this.refuse('unauthorized', 'relay is watch-only (--no-auth): commands are never routed');
    if (!origin) return this.refuse('unauthorized', 'commands flow only on an authenticated WebSocket (AEP-0004 §4.1)');
    const who = origin.info.principal;
    if (!can(who, 'control'))
      return this.refuse('unauthorized', `'${who.name}' may not send commands (its scopes: ${who.scopes.join(', ')}; a control token is needed)`);
    // a claimant that declares no command (a telemetry channel beside the agent's hook channel) is in the roster, never a target
    const all = this.claimsBySession.get(ev.session!);
    const claimants = all && [...all].filter(acceptsAny);
    const remote = this.store.fleet?.remoteEntries().filter((r) => r.entry.session === ev.session) ?? [];
    const n = (claimants?.length ?? 0) + remote.length;
    if (n === 0) return this.refuse('no-route', `no live connection claims session '${ev.session}'`);
    if (n > 1) return this.refuse('ambiguous', `${n} live connections claim session '${ev.session}'`);
    if (remote.length) return this.store.fleet!.forward(held, origin, who, remote[0]);
    return this.deliver(held, claimants![0], who);
  }

  /** Hand a command to its one local target (checked: it declares the type), and watchers a redacted copy. */
  deliver(held: Held, target: Conn, who: Principal): IngestOutcome {
    const ev = held.ev;
    const accepts = target.info.capabilities?.control?.accepts;
    if (!Array.isArray(accepts) || !accepts.includes(ev.type)) return this.refuse('unsupported', `target does not declare '${ev.type}' in control.accepts`);
    this.counters.routed++;
    target.info.deliverCommand(held.raw, ev, who);
    // Watchers see who commanded what (a redacted, labelled copy: command-copy.ts); the target already has it.
    this.store.publish(watcherCopy(held, target, this.redactor));
    return { ok: true, admitted: false, routed: true };
  }

  openConn(info: ConnInfo): Conn {
    const conn = new Conn(this.nextConnId++, info);
    this.conns.add(conn);
    return conn;
  }

  closeConn(conn: Conn): void {
    for (const s of conn.claims) this.release(conn, s);
    this.conns.delete(conn);
  }

  claim(conn: Conn, session: string): void {
    if (conn.claims.has(session) || !this.conns.has(conn)) return;
    conn.claims.add(session);
    let set = this.claimsBySession.get(session);
    if (!set) this.claimsBySession.set(session, (set = new Set()));
    set.add(conn);
    this.store.fleet?.claimsChanged(session, true);
  }

  release(conn: Conn, session: string): void {
    conn.claims.delete(session);
    const set = this.claimsBySession.get(session);
    if (!set) return;
    set.delete(conn);
    if (set.size === 0) this.claimsBySession.delete(session);
    this.store.fleet?.claimsChanged(session, set.size > 0);
  }

  /** AEP-0003 §4.1: one entry per live (connection, claimed session), declarations verbatim; the fleet's too unless `local`. */
  roster(local = false): Record<string, unknown>[] {
    const entries: Record<string, unknown>[] = [];
    for (const conn of this.conns) {
      for (const session of conn.claims) {
        const e: Record<string, unknown> = { session };
        if (conn.info.identity.agent !== undefined) e.agent = conn.info.identity.agent;
        if (conn.info.identity.instance !== undefined) e.instance = conn.info.identity.instance;
        if (conn.info.capabilities?.control !== undefined) e.control = conn.info.capabilities.control;
        if (conn.info.capabilities?.emits !== undefined) e.emits = conn.info.capabilities.emits;
        entries.push(e);
      }
    }
    if (!local) for (const r of this.store.fleet?.remoteEntries() ?? []) entries.push(r.entry);
    return entries;
  }

  /**
   * Open a subscription: replay-exhausted markers, then the replay, then
   * live. The snapshot is taken and the subscription registered in the same
   * tick, so nothing published in between is lost or doubled.
   */
  subscribe(spec: SubscriptionSpec, sink: Sink, owner?: object): Subscription {
    const sub = new Subscription(spec, sink, owner, this.limits.maxPending, (s) => {
      this.subs.delete(s);
    });
    const snapshot: StoredEvent[] = [];
    if (spec.from === 'all') {
      for (const s of this.store.sessions()) for (const e of this.store.replay(s, null).events) snapshot.push(e);
    } else if (spec.from) {
      // One resume position per session: the lowest asked wins, so no event is sent twice.
      const lowest = new Map<string, Position>();
      for (const p of spec.from) {
        const cur = lowest.get(p.session);
        if (!cur || comparePos(p, cur) < 0) lowest.set(p.session, { epoch: p.epoch, seq: p.seq });
      }
      for (const [session, pos] of lowest) {
        const r = this.store.replay(session, pos);
        if (r.exhausted) sink.exhausted(session, r.exhausted);
        for (const e of r.events) snapshot.push(e);
      }
    }
    this.subs.add(sub);
    void sub.replay(snapshot);
    return sub;
  }

  dropConsumer(sub: Subscription): void {
    this.counters.droppedConsumers++;
    sub.close();
  }
}
