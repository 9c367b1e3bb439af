// The one fold of the stream (issue 39): AEP events, fed one at a time, into
// sessions → runs → tool calls → requests, each with the events that tell
// what became of it (fates.ts reads them). Every view is a renderer of it:
// the inbox's timeline and calls, `hookmap timeline`, `tail`, the OTLP trace
// structure, `held`, `answer`'s fate check.
//
// Joins by what the stream says before any heuristic (join.ts): a tool
// terminal by its call id, then by `cause`; a request by `cause` (the call's
// event), then by subject = the call id, and only then, for a permission
// request naming a tool, the newest open call of that tool in its run; a
// request's followers by subject (the request id), then by cause.
//
// Lineage: a session resumed after its end (`<id>~2`, session.started
// `resumed_from`) keeps its own story and names its line's first session
// (`lineage`), so the views tell one story of both.
//
// Bounded: at most `maxSessions` sessions (least recently active forgotten
// first, default 1000); per session at most `maxCalls` calls and
// `maxRequests` requests (default 1000 each; past it the oldest settled one is
// forgotten, else the oldest). Browser-safe.
import { closes, fateOf, isAnswer, opens } from '../lifecycle.ts';
import { requestEffects } from '../option-effects.ts';
import { endsPause, LIMIT_REACHED, pauseOf } from '../limits.ts';
import { callForRequest, callForTerminal } from './join.ts';
import { lineOf, predecessorOf, sessionKey, type CallStory, type FoldEvent, type RequestStory, type RunStory, type SessionStory } from './story.ts';

export interface FoldBounds {
  /** Keep tool calls (default true); a reader of the run and request lifecycle alone (the validator) turns it off. */
  calls?: boolean;
  maxSessions?: number;
  maxCalls?: number;
  maxRequests?: number;
}

/** An event as option-effects reads it (its extension attributes included). */
const loose = (ev: FoldEvent | undefined) => ev as (FoldEvent & Record<string, unknown>) | undefined;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export class StoryFold<E extends FoldEvent = FoldEvent> {
  readonly sessions = new Map<string, SessionStory<E>>();
  private readonly maxSessions: number;
  private readonly maxCalls: number;
  private readonly maxRequests: number;
  private readonly keepCalls: boolean;

  constructor(bounds: FoldBounds = {}) {
    this.keepCalls = bounds.calls ?? true;
    this.maxSessions = bounds.maxSessions ?? 1000;
    this.maxCalls = bounds.maxCalls ?? 1000;
    this.maxRequests = bounds.maxRequests ?? 1000;
  }

  /** Fold one event; returns the calls it closed without a terminal of their own (its run's or session's end). */
  add(ev: E): CallStory<E>[] {
    if (typeof ev.session !== 'string' || typeof ev.type !== 'string') return [];
    const s = this.touch(ev);
    const t = ev.type;
    const unit = opens(t) ?? closes(t);
    if (s.paused && endsPause(pauseOf(s.paused)!, ev)) s.paused = undefined;
    if (t === LIMIT_REACHED) s.paused = ev; // until it ends (kernel/limits.ts)
    if (unit === 'session') return this.onSession(s, ev);
    if (unit === 'run') return this.onRun(s, ev);
    if (unit === 'tool') {
      if (this.keepCalls) this.onTool(s, ev);
    } else if (t.startsWith('attention.')) this.onAttention(s, ev);
    return [];
  }

  /** Every event of a list, in the order given. */
  addAll(events: Iterable<E>): this {
    for (const ev of events) this.add(ev);
    return this;
  }

  session(ev: { source: string; session?: string }): SessionStory<E> | undefined {
    return this.sessions.get(sessionKey(ev));
  }

  /** The call an event belongs to (its tool.requested or terminal id, or a call id) in the event's session. */
  call(ev: { source: string; session?: string }, id: string): CallStory<E> | undefined {
    const s = this.session(ev);
    return s?.callByEvent.get(id) ?? s?.calls.get(id);
  }

  /** A request by its id, in the session of `ev`. */
  request(ev: { source: string; session?: string }, id: string): RequestStory<E> | undefined {
    return this.session(ev)?.requests.get(id);
  }

  /** Every call, session by session. */
  *allCalls(): Iterable<CallStory<E>> {
    for (const s of this.sessions.values()) yield* s.calls.values();
  }

  /** Every request, session by session. */
  *allRequests(): Iterable<RequestStory<E>> {
    for (const s of this.sessions.values()) yield* s.requests.values();
  }

  /** The sessions of one line (the first and every resumed one), in the order first seen. */
  line(lineage: string): SessionStory<E>[] {
    return [...this.sessions.values()].filter((s) => s.lineage === lineage);
  }

  private touch(ev: E): SessionStory<E> {
    const key = sessionKey(ev);
    let s = this.sessions.get(key);
    if (s) {
      this.sessions.delete(key); // least recently active first
      this.sessions.set(key, s);
      return s;
    }
    const session = ev.session!;
    const predecessor = predecessorOf(session, opens(ev.type) === 'session' ? ev.data?.resumed_from : undefined);
    const before = predecessor !== undefined ? this.sessions.get(sessionKey({ source: ev.source, session: predecessor })) : undefined;
    s = {
      key,
      session,
      agent: ev.agent,
      source: ev.source,
      lineage: before?.lineage ?? lineOf(session),
      predecessor,
      runs: new Map(),
      calls: new Map(),
      requests: new Map(),
      callById: new Map(),
      callByEvent: new Map(),
    };
    this.sessions.set(key, s);
    while (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    return s;
  }

  private onSession(s: SessionStory<E>, ev: E): CallStory<E>[] {
    if (opens(ev.type)) {
      s.started ??= ev;
      const p = predecessorOf(s.session, ev.data?.resumed_from);
      if (p !== undefined && s.predecessor !== p) s.predecessor = p;
      return [];
    }
    if (s.ended) return [];
    s.ended = ev;
    for (const r of s.runs.values()) if (!r.end) r.closedBy ??= ev;
    for (const q of s.requests.values()) if (!q.resolved && !q.timeout) q.closedBy ??= ev;
    return this.closeCalls(s, ev, () => true);
  }

  private onRun(s: SessionStory<E>, ev: E): CallStory<E>[] {
    if (opens(ev.type)) {
      const id = ev.run ?? ev.id;
      const known = s.runs.get(id);
      if (known)
        known.started ??= ev; // one run id, one run
      else s.runs.set(id, { id, started: ev });
      return [];
    }
    const run = this.runOf(s, ev) ?? { id: ev.run ?? ev.id };
    if (!s.runs.has(run.id)) s.runs.set(run.id, run);
    if (run.end) return [];
    run.end = ev;
    return this.closeCalls(s, ev, (c) => c.run === run.id || (c.run === undefined && s.runs.size === 1));
  }

  /** The run an event names, else the session's only open run. */
  private runOf(s: SessionStory<E>, ev: E): RunStory<E> | undefined {
    if (ev.run !== undefined) return s.runs.get(ev.run);
    const open = [...s.runs.values()].filter((r) => !r.end && !r.closedBy);
    return open.length === 1 ? open[0] : undefined;
  }

  private closeCalls(s: SessionStory<E>, ev: E, which: (c: CallStory<E>) => boolean): CallStory<E>[] {
    const out: CallStory<E>[] = [];
    for (const c of s.calls.values())
      if (!c.end && !c.closedBy && which(c)) {
        c.closedBy = ev;
        out.push(c);
      }
    return out;
  }

  private onTool(s: SessionStory<E>, ev: E): void {
    const callId = str(ev.data?.tool?.call_id);
    const name = str(ev.data?.tool?.name) ?? ev.subject;
    const run = ev.run ?? this.runOf(s, ev)?.id;
    if (opens(ev.type)) {
      const prior = callId ? s.callById.get(callId) : undefined;
      if (prior && !prior.end) {
        // a repeated request for the same call: one story
        if (!prior.req) prior.req = ev;
        s.callByEvent.set(ev.id, prior);
        return;
      }
      this.newCall(s, { id: callId && !prior ? callId : ev.id, callId, session: s.key, name, run, req: ev, requests: [] }, ev.id);
      return;
    }
    const found = callForTerminal(s, ev, callId, name, ev.run);
    if (found && !found.end) {
      found.end = ev;
      s.callByEvent.set(ev.id, found);
      return;
    }
    // a terminal with no request seen (denied before it ran, or its request predates us): a call of its own
    const id = callId && !s.calls.has(callId) ? callId : ev.id;
    this.newCall(s, { id, callId, session: s.key, name, run, end: ev, requests: [] }, ev.id);
  }

  private newCall(s: SessionStory<E>, c: CallStory<E>, eventId: string): void {
    s.calls.set(c.id, c);
    if (c.callId) s.callById.set(c.callId, c);
    s.callByEvent.set(eventId, c);
    if (s.calls.size <= this.maxCalls) return;
    const drop = [...s.calls.values()].find((x) => x.end || x.closedBy) ?? s.calls.values().next().value!;
    s.calls.delete(drop.id);
    if (drop.callId && s.callById.get(drop.callId) === drop) s.callById.delete(drop.callId);
    for (const [k, v] of s.callByEvent) if (v === drop) s.callByEvent.delete(k);
  }

  private onAttention(s: SessionStory<E>, ev: E): void {
    if (opens(ev.type) === 'attention') {
      const prior = s.requests.get(ev.id);
      if (prior?.req) return;
      const q: RequestStory<E> = prior ?? { id: ev.id, session: s.key, effects: {} };
      q.req = ev;
      q.effects = requestEffects(loose(ev), loose(q.answered));
      const call = callForRequest(s, ev);
      if (call) {
        q.call = call;
        call.requests.push(q);
      }
      this.keepRequest(s, q);
      return;
    }
    // by subject (the request id, AEP-0002 §7 rule 1); by cause only when no subject is given
    let q = ev.subject ? s.requests.get(ev.subject) : ev.cause ? s.requests.get(ev.cause) : undefined;
    if (!q && !ev.subject) return;
    // a request raised before this fold began: its story starts with what followed it
    if (!q) this.keepRequest(s, (q = { id: ev.subject!, session: s.key, effects: {} }));
    const fate = fateOf(ev.type)?.fate;
    if (fate === 'timeout') q.timeout ??= ev;
    else if (fate) q.resolved ??= ev;
    else if (isAnswer(ev.type) && !q.answered) {
      q.answered = ev;
      q.effects = requestEffects(loose(q.req), loose(ev));
    } else if (ev.type.endsWith('.routed')) q.routed ??= ev;
  }

  private keepRequest(s: SessionStory<E>, q: RequestStory<E>): void {
    s.requests.set(q.id, q);
    if (s.requests.size <= this.maxRequests) return;
    const drop = [...s.requests.values()].find((x) => x.resolved || x.timeout || x.closedBy) ?? s.requests.values().next().value!;
    s.requests.delete(drop.id);
  }
}
