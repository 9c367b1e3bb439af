// The nodes of a session's shape (structure.ts builds them): session -> runs
// -> tool calls and attention waits, each opened by its start event and
// closed by its terminal event (AEP-0002 lifecycles), and the per-session
// state a tracker keeps (and a bridge checkpoints). Also the session key:
// a session id is the emitter's, so the emitter is part of it.

import { callFate, requestFate, type FoldEvent, type StoryFold } from '../../core/kernel/fold/index.ts';
import type { SessionTerminal } from '../../core/kernel/lifecycle.ts';
import type { OptionEffect } from '../../core/kernel/option-effects.ts';
import type { AepEvent } from './projection/common.ts';

export { sessionKey, sessionSource } from '../../core/kernel/fold/index.ts';

export type NodeKind = 'session' | 'run' | 'tool' | 'attention';
export type Scalar = string | number | boolean;

export interface NodeEvent {
  time: string;
  name: string;
  attrs: Record<string, Scalar>;
}

export interface SessionNode {
  kind: NodeKind;
  /** Unique within the session: `session`, `run:<id>`, `tool:<call id|event id>`, `attention:<request id>`. */
  key: string;
  parent?: string;
  session: string;
  agent: string;
  /** Tool name, attention kind, run id or agent. */
  label: string;
  start: string;
  end?: string;
  /** The event that opened / closed the node (type), when one did. */
  startType?: string;
  endType?: string;
  /** completed, failed, denied, finished, cancelled, answered, dismissed, timeout, ended, ... */
  outcome?: string;
  /** Set when no terminal event closed the node: what did instead. */
  closedBy?: SessionTerminal | 'run.ended' | 'idle' | 'evicted' | 'end-of-input';
  /** Metadata that survived the capture ceiling: tool call id, error type, token counts, model. */
  attrs: Record<string, Scalar>;
  events: NodeEvent[];
  droppedEvents: number;
  /** Event ids that opened and closed it (for timeline --dag / replay). */
  startId?: string;
  endId?: string;
  /** A tool call's or a request's fate, as the kernel fold read it when the node closed (engine/core/kernel/fold/fates.ts). */
  fate?: string;
  /** An attention request's vendor option ids with what each means (its hookmapeffects attribute, engine/core/kernel/option-effects.ts). */
  effects?: Record<string, OptionEffect>;
}

export interface SessionState {
  session: string;
  agent: string;
  source: string;
  /** W3C trace id of the session's trace (from its session.started traceparent, else derived). */
  traceparent?: string;
  lastTime: string;
  lastSeen: number;
  open: Record<string, SessionNode>;
}

export interface TrackerOptions {
  /** Open sessions kept; past it the least recently active one is closed (`evicted`). */
  maxSessions?: number;
  /** Open nodes per session (runs + tools + attention); past it the oldest is closed (`evicted`). */
  maxOpenPerSession?: number;
  /** Span events kept per node; the rest are counted. */
  maxEventsPerNode?: number;
}

/** The open nodes below `key`, deepest first (closed before their parent). */
export function openChildren(st: SessionState, key: string): SessionNode[] {
  const out: SessionNode[] = [];
  const walk = (k: string) => {
    for (const n of Object.values(st.open)) {
      if (n.parent === k) {
        walk(n.key);
        out.push(n);
      }
    }
  };
  walk(key);
  return out;
}

/** A tool or attention node with its fate, as the kernel fold reads it now (a tool call's, a request's). */
export function fateNode(fold: StoryFold<FoldEvent>, n: SessionNode, st: SessionState): SessionNode {
  if (n.kind === 'tool') {
    const c = fold.call(st, n.key.slice('tool:'.length));
    if (c) n.fate = callFate(c);
  } else if (n.kind === 'attention') {
    const q = fold.request(st, String(n.attrs.id));
    if (q) n.fate = requestFate(q);
  }
  return n;
}

/** A checkpointed node's opening event, as much of it as the node kept (its id, type, run, tool, request kind). */
export const reopened = (n: SessionNode, st: SessionState): AepEvent =>
  ({
    aep: '0.1',
    id: n.startId!,
    type: n.startType!,
    time: n.start,
    source: st.source,
    agent: st.agent,
    session: st.session,
    ...(n.parent?.startsWith('run:') ? { run: n.parent.slice(4) } : {}),
    ...(n.attrs.subject !== undefined ? { subject: String(n.attrs.subject) } : {}),
    data: n.kind === 'tool' ? { tool: { name: n.label, ...(n.attrs.call_id ? { call_id: n.attrs.call_id } : {}) } } : { kind: n.attrs.kind },
  }) as AepEvent;
