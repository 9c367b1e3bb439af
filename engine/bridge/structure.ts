// The shape of a session, built incrementally from its events: session →
// runs → tool calls and attention waits, each a node opened by its start
// event and closed by its terminal event (AEP-0002 lifecycles: run.started
// → run.finished|failed|cancelled, tool.requested → tool.completed|failed|
// denied, attention.requested → attention.resolved|timeout, session.started
// → session.ended). A node whose terminal event never comes is closed by its
// parent's end and marked (`closedBy`), never left open forever: a session
// idle past a bound, an eviction (bounded memory) or the end of the input
// closes it too. The OTLP trace projection turns closed nodes into spans;
// `hookmap timeline` prints the same nodes as a tree.
// The node types live in session-node.ts, the attribute tables in
// structure-attrs.ts.
import { EFFECTS_ATTR, effectsOf } from '../kernel/option-effects.ts';
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
import { openChildren, sessionKey, type Scalar, type SessionNode, type SessionState, type TrackerOptions } from './session-node.ts';

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

export class SessionTracker {
  readonly sessions = new Map<string, SessionState>();
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
  }

  /** Feed one (ceiling-applied, deduplicated) event. */
  add(ev: AepEvent, now = Date.now()): void {
    if (ev.session === undefined || ev.type.startsWith('agent.') || ev.type.startsWith('control.')) return;
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

    if (ev.type === 'session.started') {
      const s = st.open.session ?? this.openSession(st, ev, ev.time);
      s.startType = ev.type;
      s.startId = ev.id;
      s.start = ev.time < s.start ? ev.time : s.start;
      if (typeof ev.traceparent === 'string' && !st.traceparent) st.traceparent = ev.traceparent;
      copy(s.attrs, data, SESSION_START_ATTRS);
      return;
    }
    this.ensureSession(st, ev);
    if (ev.type === 'session.ended') {
      const s = st.open.session;
      for (const n of openChildren(st, 'session')) this.close(st, n, ev.time, undefined, 'session.ended');
      s.endType = ev.type;
      s.endId = ev.id;
      s.outcome = str(data.reason) ?? 'ended';
      copy(s.attrs, data, SESSION_END_ATTRS);
      this.close(st, s, ev.time);
      this.sessions.delete(key);
      return;
    }
    if (ev.type === 'run.started') {
      const k = `run:${ev.run ?? ev.id}`;
      const prior = st.open[k];
      if (prior) this.close(st, prior, ev.time, undefined, 'run.ended');
      const n = this.open(st, { kind: 'run', key: k, parent: 'session', label: ev.run ?? ev.agent, start: ev.time, startType: ev.type, startId: ev.id });
      copy(n.attrs, data, RUN_START_ATTRS);
      return;
    }
    if (RUN_END[ev.type]) {
      const n = this.ensureRun(st, ev) ?? this.open(st, { kind: 'run', key: `run:${ev.id}`, parent: 'session', label: ev.agent, start: ev.time });
      for (const c of openChildren(st, n.key)) this.close(st, c, ev.time, undefined, 'run.ended');
      n.endType = ev.type;
      n.endId = ev.id;
      copy(n.attrs, data, RUN_END_ATTRS);
      this.close(st, n, ev.time, RUN_END[ev.type]);
      return;
    }
    if (ev.type === 'tool.requested') {
      const callId = str(data.tool?.call_id);
      const k = `tool:${callId ?? ev.id}`;
      if (st.open[k]) return; // a repeated request for the same call: one span
      const n = this.open(st, {
        kind: 'tool',
        key: k,
        parent: this.ensureRun(st, ev)?.key ?? 'session',
        label: str(data.tool?.name) ?? ev.subject ?? 'tool',
        start: ev.time,
        startType: ev.type,
        startId: ev.id,
      });
      if (callId) n.attrs.call_id = callId;
      return;
    }
    if (TOOL_END[ev.type]) {
      let n = this.findTool(st, ev, data);
      if (!n) {
        // terminal without a request (denied before it ran, or the request predates us): an instant node
        const callId = str(data.tool?.call_id);
        n = this.open(st, {
          kind: 'tool',
          key: `tool:${callId ?? ev.id}`,
          parent: this.ensureRun(st, ev)?.key ?? 'session',
          label: str(data.tool?.name) ?? ev.subject ?? 'tool',
          start: ev.time,
        });
        if (callId) n.attrs.call_id = callId;
        n.attrs.request_seen = false;
      }
      for (const c of openChildren(st, n.key)) this.close(st, c, ev.time, undefined, 'run.ended');
      n.endType = ev.type;
      n.endId = ev.id;
      copy(n.attrs, data, TOOL_END_ATTRS);
      this.close(st, n, ev.time, TOOL_END[ev.type]);
      return;
    }
    if (ev.type === 'attention.requested') {
      const k = `attention:${ev.id}`;
      if (st.open[k]) return;
      const parent = this.toolFor(st, ev)?.key ?? this.ensureRun(st, ev)?.key ?? 'session';
      const n = this.open(st, { kind: 'attention', key: k, parent, label: str(data.kind) ?? 'attention', start: ev.time, startType: ev.type, startId: ev.id });
      n.attrs.id = ev.id;
      if (str(data.kind)) n.attrs.kind = data.kind;
      if (ev.subject) n.attrs.subject = ev.subject;
      if (ev[EFFECTS_ATTR] !== undefined) n.effects = effectsOf(ev);
      return;
    }
    if (ev.type === 'attention.answered' || ev.type === 'attention.resolved' || ev.type === 'attention.timeout') {
      const n = st.open[`attention:${ev.subject}`] ?? (ev.cause ? st.open[`attention:${ev.cause}`] : undefined);
      if (!n) return this.note(st, ev);
      if (ev.type === 'attention.answered') {
        copy(n.attrs, data, ANSWER_ATTRS);
        return this.pushEvent(n, ev, { 'aep.event_id': ev.id, ...(str(data.answer?.option) ? { 'aep.attention.answer.option': data.answer.option } : {}) });
      }
      n.endType = ev.type;
      n.endId = ev.id;
      if (ev.type === 'attention.timeout') copy(n.attrs, data, TIMEOUT_ATTRS);
      else copy(n.attrs, data, RESOLVED_ATTRS);
      return this.close(st, n, ev.time, ev.type === 'attention.timeout' ? 'timeout' : (str(data.resolution) ?? 'resolved'));
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

  snapshot(): SessionState[] {
    return [...this.sessions.values()];
  }

  restore(states: SessionState[]): void {
    for (const st of states) this.sessions.set(sessionKey(st), st);
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

  private findTool(st: SessionState, ev: AepEvent, data: Obj): SessionNode | undefined {
    const callId = str(data.tool?.call_id);
    if (callId && st.open[`tool:${callId}`]) return st.open[`tool:${callId}`];
    if (ev.cause && st.open[`tool:${ev.cause}`]) return st.open[`tool:${ev.cause}`];
    const name = str(data.tool?.name) ?? ev.subject;
    // oldest open call of that tool in the same run
    return Object.values(st.open).find(
      (n) => n.kind === 'tool' && n.label === name && !n.attrs.call_id && (ev.run === undefined || n.parent === `run:${ev.run}`),
    );
  }

  /** The open call a request is about: by what the stream says (subject = call id: ACP; cause = the call's request), else same tool and run, newest. */
  private toolFor(st: SessionState, ev: AepEvent): SessionNode | undefined {
    const open = Object.values(st.open).filter((n) => n.kind === 'tool');
    const joined = (ev.subject ? st.open[`tool:${ev.subject}`] : undefined) ?? (ev.cause ? open.find((n) => n.startId === ev.cause) : undefined);
    const tools = joined ? [joined] : open.filter((n) => n.label === ev.subject && (ev.run === undefined || n.parent === `run:${ev.run}`));
    return tools[tools.length - 1];
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
