// The records of the one fold (fold.ts): a session's story as the stream
// tells it, session → runs → tool calls → requests (permission asks, forms),
// each holding the events that opened, answered and closed it. The records
// hold the events themselves (of the caller's own event type), so every view
// renders from the same facts; what each came to is read by fates.ts.
// Browser-safe.
import type { Effects } from '../option-effects.ts';

/** What the fold reads of an event: the AEP envelope, loosely (the inbox's loose events and the engine's events both fit). */
export interface FoldEvent {
  id: string;
  type: string;
  source: string;
  time: string;
  agent?: string;
  session?: string;
  run?: string;
  subject?: string;
  cause?: string;
  seq?: number;
  epoch?: number;
  data?: Record<string, any>;
}

export interface RunStory<E extends FoldEvent = FoldEvent> {
  id: string;
  started?: E;
  /** Its own terminal (run.finished / failed / cancelled). */
  end?: E;
  /** The session's end, seen while the run had no terminal of its own. */
  closedBy?: E;
}

export interface RequestStory<E extends FoldEvent = FoldEvent> {
  /** The request's id (the attention.requested event id: its followers' subject). */
  id: string;
  session: string;
  req?: E;
  routed?: E;
  answered?: E;
  resolved?: E;
  timeout?: E;
  /** The session's end, seen while the request had no terminal. */
  closedBy?: E;
  /** The call it asks about (joined by cause, subject = call id, then by tool name). */
  call?: CallStory<E>;
  /** What its vendor option ids mean (the request's and the answer's hookmapeffects attributes). */
  effects: Effects;
}

export interface CallStory<E extends FoldEvent = FoldEvent> {
  /** The call id the stream names (data.tool.call_id), else the id of the first event seen of it. */
  id: string;
  callId?: string;
  session: string;
  name?: string;
  run?: string;
  /** tool.requested, when seen. */
  req?: E;
  /** Its own terminal (tool.completed / failed / denied). */
  end?: E;
  /** The requests asked about it, oldest first. */
  requests: RequestStory<E>[];
  /** The run's or the session's end, seen while the call had no terminal of its own. */
  closedBy?: E;
}

export interface SessionStory<E extends FoldEvent = FoldEvent> {
  /** The emitter and the session id (a session id is its emitter's). */
  key: string;
  session: string;
  agent?: string;
  source: string;
  /** The first session of its line: a resumed `<id>~2` (session.started `resumed_from`) shares its predecessor's. */
  lineage: string;
  /** The session this one resumed, when it says (or its id does). */
  predecessor?: string;
  started?: E;
  ended?: E;
  /** The newest limit the agent stopped on (x.hookmap.limit.reached, kernel/limits.ts), until its next run starts. */
  paused?: E;
  runs: Map<string, RunStory<E>>;
  /** Calls by story id (call id or first event id), in the order first seen. */
  calls: Map<string, CallStory<E>>;
  /** Requests by request id, in the order first seen. */
  requests: Map<string, RequestStory<E>>;
  /** Call id (data.tool.call_id) → the newest call that names it. */
  callById: Map<string, CallStory<E>>;
  /** Event id → the call whose request or terminal it is (joins by `cause`). */
  callByEvent: Map<string, CallStory<E>>;
}

/** The emitter part of a source URI (`aep://host/agent/x/session/s` → `aep://host/agent/x`). */
export function sessionSource(source: string): string {
  const i = source.indexOf('/session/');
  return i >= 0 ? source.slice(0, i) : source;
}

/** A session's key: two emitters may reuse one session id, so the emitter is part of it. */
export function sessionKey(ev: { source: string; session?: string }): string {
  return `${sessionSource(ev.source)}\u0000${ev.session}`;
}

/** The first session of a line: `<id>` for `<id>`, `<id>~2`, `<id>~3` (the agent's own session id). */
export const lineOf = (session: string): string => session.replace(/(~\d+)+$/, '');

/** The session a resumed one continues: its `resumed_from`, else `<id>~N` read as the successor of `<id>~N-1` (`<id>` for ~2). */
export function predecessorOf(session: string, resumedFrom?: unknown): string | undefined {
  if (typeof resumedFrom === 'string' && resumedFrom) return resumedFrom;
  const m = /^(.*)~(\d+)$/.exec(session);
  if (!m) return undefined;
  const n = Number(m[2]);
  return n <= 2 ? m[1] : `${m[1]}~${n - 1}`;
}
