// The shape of a session as spans: session → runs → tool calls and
// attention waits, each a node opened by its start event and closed by its
// terminal (AEP-0002 lifecycles, read from the kernel). Which call a terminal
// or a request is about, and what each came to, is the kernel's one fold
// (engine/core/kernel/fold/); this tracker only turns its stories into timed nodes.
// A node whose terminal never comes is closed by its parent's end and marked
// (`closedBy`): a session idle past a bound, an eviction (bounded memory) or
// the end of the input closes it too. OTLP spans and `hookmap timeline`'s
// tree are its closed nodes (types: session-node.ts; attrs: structure-attrs.ts).
import { StoryFold } from '../../core/kernel/fold/index.ts';
import { fateOf, isAttentionFollower, opens, type SessionTerminal } from '../../core/kernel/lifecycle.ts';
import { EFFECTS_ATTR, effectsOf } from '../../core/kernel/option-effects.ts';
import type { AepEvent } from './projection/common.ts';
import {
  ANSWER_ATTRS,
  copy,
  RESOLVED_ATTRS,
  RUN_END,
  RUN_END_ATTRS,
  RUN_START_ATTRS,
  SESSION_END_ATTRS,
  SESSION_START_ATTRS,
  str,
  TIMEOUT_ATTRS,
  TOOL_END,
  TOOL_END_ATTRS,
  type Obj,
} from './structure-attrs.ts';
import { fateNode, openChildren, reopened, sessionKey, type Scalar, type SessionNode, type SessionState, type TrackerOptions } from './session-node.ts';

export {
  sessionKey,
  sessionSource,
  type NodeEvent,
  type NodeKind,
  type Scalar,
  type SessionNode,
  type SessionState,
  type TrackerOptions,
} from './session-node.ts';

/** A tool event's label: its tool's name, else its subject. */ const toolName = (ev: AepEvent): string =>
  str((ev.data as Obj | undefined)?.tool?.name) ?? ev.subject ?? 'tool';

export class SessionTracker {
  readonly sessions = new Map<string, SessionState>();
  /** The one fold of the stream (engine/core/kernel/fold/): which call a terminal or a request is about, and what each came to. */
  readonly fold: StoryFold<AepEvent>;
  private readonly maxSessions: number;
  private readonly maxOpen: number;
  private readonly maxEvents: number;

  constructor(
    private readonly onClose: (node: SessionNode, state: SessionState) => void,
    opts: TrackerOptions = {},
  ) {
    this.maxSessions = opts.maxSessions ?? 1000;
    this.maxOpen = opts.maxOpenPerSession ?? 256;
    this.maxEvents = opts.maxEventsPerNode ?? 64;
    this.fold = new StoryFold<AepEvent>({ maxSessions: this.maxSessions, maxCalls: this.maxOpen, maxRequests: this.maxOpen });
  }

  /** Feed one (ceiling-applied, deduplicated) event. */
  add(ev: AepEvent, now = Date.now()): void {
    if (ev.session === undefined || ev.type.startsWith('agent.') || ev.type.startsWith('control.')) return;
    this.fold.add(ev);
    const key = sessionKey(ev);
    let st = this.sessions.get(key);
    if (!st) {
      st = { session: ev.session, agent: ev.agent, source: ev.source, lastTime: ev.time, lastSeen: now, open: {} };
      this.sessions.set(key, st);
      this.evictSessions(key);
    } else {
      // keep the map in least-recently-active order
      this.sessions.delete(key);
      this.sessions.set(key, st);
    }
    st.lastSeen = now;
    if (ev.time > st.lastTime) st.lastTime = ev.time;
    const data: Obj = ev.data ?? {};
    const opened = opens(ev.type);
    const closed = fateOf(ev.type);

    if (opened === 'session') {
      const s = st.open.session ?? this.openSession(st, ev, ev.time);
      s.startType = ev.type;
      s.startId = ev.id;
      s.start = ev.time < s.start ? ev.time : s.start;
      if (typeof ev.traceparent === 'string' && !st.traceparent) st.traceparent = ev.traceparent;
      copy(s.attrs, data, SESSION_START_ATTRS);
      return;
    }
    this.ensureSession(st, ev);
    if (closed?.unit === 'session') {
      const s = st.open.session;
      for (const n of openChildren(st, 'session')) this.close(st, n, ev.time, undefined, ev.type as SessionTerminal);
      s.endType = ev.type;
      s.endId = ev.id;
      s.outcome = str(data.reason) ?? 'ended';
      copy(s.attrs, data, SESSION_END_ATTRS);
      this.close(st, s, ev.time);
      this.sessions.delete(key);
      return;
    }
    if (opened === 'run') {
      const k = `run:${ev.run ?? ev.id}`;
      const prior = st.open[k];
      if (prior) this.close(st, prior, ev.time, undefined, 'run.ended');
      const n = this.open(st, { kind: 'run', key: k, parent: 'session', label: ev.run ?? ev.agent, start: ev.time, startType: ev.type, startId: ev.id });
      copy(n.attrs, data, RUN_START_ATTRS);
      return;
    }
    if (closed?.unit === 'run') {
      const n = this.ensureRun(st, ev) ?? this.open(st, { kind: 'run', key: `run:${ev.id}`, parent: 'session', label: ev.agent, start: ev.time });
      for (const c of openChildren(st, n.key)) this.close(st, c, ev.time, undefined, 'run.ended');
      n.endType = ev.type;
      n.endId = ev.id;
      copy(n.attrs, data, RUN_END_ATTRS);
      this.close(st, n, ev.time, RUN_END[ev.type]);
      return;
    }
    // which call a tool event or a request is about: the fold's join (by call id, cause, subject, then the tool's name)
    const call = this.fold.call(ev, ev.id);
    if (opened === 'tool') {
      const k = `tool:${call?.id ?? ev.id}`;
      if (st.open[k]) return; // a repeated request for the same call: one span
      const n = this.open(st, {
        kind: 'tool',
        key: k,
        parent: this.ensureRun(st, ev)?.key ?? 'session',
        label: toolName(ev),
        start: ev.time,
        startType: ev.type,
        startId: ev.id,
      });
      if (call?.callId) n.attrs.call_id = call.callId;
      return;
    }
    if (closed?.unit === 'tool') {
      let n = call ? st.open[`tool:${call.id}`] : undefined;
      if (!n) {
        // terminal without a request (denied before it ran, or the request predates us): an instant node
        n = this.open(st, {
          kind: 'tool',
          key: `tool:${call?.id ?? ev.id}`,
          parent: this.ensureRun(st, ev)?.key ?? 'session',
          label: toolName(ev),
          start: ev.time,
        });
        if (call?.callId) n.attrs.call_id = call.callId;
        n.attrs.request_seen = false;
      }
      for (const c of openChildren(st, n.key)) this.close(st, c, ev.time, undefined, 'run.ended');
      n.endType = ev.type;
      n.endId = ev.id;
      copy(n.attrs, data, TOOL_END_ATTRS);
      this.close(st, n, ev.time, TOOL_END[ev.type]);
      return;
    }
    if (opened === 'attention') {
      const k = `attention:${ev.id}`;
      if (st.open[k]) return;
      const asked = this.fold.request(ev, ev.id)?.call;
      const tool = asked ? st.open[`tool:${asked.id}`] : undefined;
      const parent = tool?.key ?? this.ensureRun(st, ev)?.key ?? 'session';
      const n = this.open(st, { kind: 'attention', key: k, parent, label: str(data.kind) ?? 'attention', start: ev.time, startType: ev.type, startId: ev.id });
      n.attrs.id = ev.id;
      if (str(data.kind)) n.attrs.kind = data.kind;
      if (ev.subject) n.attrs.subject = ev.subject;
      if (ev[EFFECTS_ATTR] !== undefined) n.effects = effectsOf(ev);
      return;
    }
    if (isAttentionFollower(ev.type) && !ev.type.endsWith('.routed')) {
      const n = st.open[`attention:${ev.subject}`] ?? (ev.cause ? st.open[`attention:${ev.cause}`] : undefined);
      if (!n) return this.note(st, ev);
      if (!closed) {
        copy(n.attrs, data, ANSWER_ATTRS);
        return this.pushEvent(n, ev, { 'aep.event_id': ev.id, ...(str(data.answer?.option) ? { 'aep.attention.answer.option': data.answer.option } : {}) });
      }
      n.endType = ev.type;
      n.endId = ev.id;
      if (closed.fate === 'timeout') copy(n.attrs, data, TIMEOUT_ATTRS);
      else copy(n.attrs, data, RESOLVED_ATTRS);
      return this.close(st, n, ev.time, closed.fate === 'timeout' ? 'timeout' : (str(data.resolution) ?? 'resolved'));
    }
    this.note(st, ev);
  }

  /** Close sessions not heard from in `idleMs` (live mode), at their last event's time. */
  sweep(idleMs: number, now = Date.now()): void {
    for (const [k, st] of [...this.sessions]) if (now - st.lastSeen > idleMs) this.closeSession(k, st, 'idle');
  }

  /** Close everything still open (the end of a file, or a shutdown that will not resume). */
  closeAll(by: SessionNode['closedBy'] = 'end-of-input'): void {
    for (const [k, st] of [...this.sessions]) this.closeSession(k, st, by);
  }

  /** The node with its fate, as the fold reads it now: the same fate every view says. */
  withFate(n: SessionNode, st: SessionState): SessionNode {
    return fateNode(this.fold, n, st);
  }

  snapshot(): SessionState[] {
    return [...this.sessions.values()];
  }

  /** Restore checkpointed sessions; the fold learns their open calls and requests again from the nodes' opening events. */
  restore(states: SessionState[]): void {
    for (const st of states) {
      this.sessions.set(sessionKey(st), st);
      for (const n of Object.values(st.open)) if (n.startId && n.startType && (n.kind === 'tool' || n.kind === 'attention')) this.fold.add(reopened(n, st));
    }
  }

  private closeSession(key: string, st: SessionState, by: SessionNode['closedBy']): void {
    const s = st.open.session;
    for (const n of Object.values(st.open)) if (n !== s && n.end === undefined) this.close(st, n, st.lastTime, undefined, by);
    if (s) this.close(st, s, st.lastTime, undefined, by);
    this.sessions.delete(key);
  }

  private evictSessions(keep: string): void {
    while (this.sessions.size > this.maxSessions) {
      const [k, st] = this.sessions.entries().next().value as [string, SessionState];
      if (k === keep) break;
      this.closeSession(k, st, 'evicted');
    }
  }

  private openSession(st: SessionState, ev: AepEvent, time: string): SessionNode {
    return this.open(st, { kind: 'session', key: 'session', label: ev.agent, start: time });
  }

  private ensureSession(st: SessionState, ev: AepEvent): void {
    if (!st.open.session) {
      const s = this.openSession(st, ev, ev.time);
      s.attrs.start_seen = false; // we joined mid-session: its start is our first sight
    }
  }

  private ensureRun(st: SessionState, ev: AepEvent): SessionNode | undefined {
    if (ev.run === undefined) {
      // no run named: the session's only open run, if exactly one
      const runs = Object.values(st.open).filter((n) => n.kind === 'run');
      return runs.length === 1 ? runs[0] : undefined;
    }
    const k = `run:${ev.run}`;
    if (!st.open[k]) {
      const n = this.open(st, { kind: 'run', key: k, parent: 'session', label: ev.run, start: ev.time });
      n.attrs.start_seen = false;
    }
    return st.open[k];
  }

  private open(st: SessionState, n: Omit<SessionNode, 'session' | 'agent' | 'attrs' | 'events' | 'droppedEvents'>): SessionNode {
    const node: SessionNode = { ...n, session: st.session, agent: st.agent, attrs: {}, events: [], droppedEvents: 0 };
    st.open[node.key] = node;
    if (++this.openCount(st).n > this.maxOpen) {
      const oldest = Object.values(st.open).find((x) => x.kind !== 'session' && x !== node);
      if (oldest) this.close(st, oldest, node.start, undefined, 'evicted');
    }
    return node;
  }

  /** Open nodes per session, counted (not derived from the map on every event). */
  private counts = new WeakMap<SessionState, { n: number }>();
  private openCount(st: SessionState): { n: number } {
    let c = this.counts.get(st);
    if (!c) this.counts.set(st, (c = { n: Object.keys(st.open).length }));
    return c;
  }

  private close(st: SessionState, n: SessionNode, end: string, outcome?: string, by?: SessionNode['closedBy']): void {
    if (!st.open[n.key]) return;
    delete st.open[n.key];
    this.openCount(st).n--;
    n.end = end < n.start ? n.start : end;
    if (outcome) n.outcome = outcome;
    if (by) {
      n.closedBy = by;
      n.outcome ??= 'unterminated';
    }
    this.onClose(n, st);
  }

  /** Any other session event: a span event on its run, else on the session. */
  private note(st: SessionState, ev: AepEvent): void {
    const n = (ev.run !== undefined ? st.open[`run:${ev.run}`] : undefined) ?? st.open.session;
    if (n) this.pushEvent(n, ev, { 'aep.event_id': ev.id, ...(ev.subject ? { 'aep.subject': ev.subject } : {}) });
  }

  private pushEvent(n: SessionNode, ev: AepEvent, attrs: Record<string, Scalar>): void {
    if (n.events.length >= this.maxEvents) {
      n.droppedEvents++;
      return;
    }
    n.events.push({ time: ev.time, name: ev.type, attrs });
  }
}
