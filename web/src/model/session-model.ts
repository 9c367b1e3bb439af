// What the inbox's store holds (web/src/model/store.ts builds it from the stream): sessions, the
// attention requests in them, the commands this page sent, and how long a request without an
// outcome stays on screen.
import type { Signal } from '@preact/signals';
import type { RequestStory } from '../../../engine/core/kernel/fold/index.ts';
import type { Ev, Position } from './aep.ts';

export type SessionState = 'waiting' | 'running' | 'paused' | 'idle' | 'ended';

export interface Attn {
  id: string;
  session: string;
  req?: Ev;
  answered?: Ev;
  resolved?: Ev;
  timeout?: Ev;
  /** The kernel fold's record of the request (its session's end closes it when nothing else did). */
  story?: RequestStory<Ev>;
  /** A rule would have allowed it; the floor kept it for a human (`x.hookmap.answer.floor`). */
  floor?: Ev;
  /** A rule answered it (`x.hookmap.answer.ruled`). */
  ruled?: Ev;
  /** Two people must allow it and the first has (`x.hookmap.approval.partial`: approved, need, by). */
  partial?: Ev;
  /** Commands (ours and other consumers') that answer this request, oldest first. */
  commands: string[];
  /** This page saw it pending (so its outcome is worth showing after it settles). */
  seenPending: boolean;
  /** When the page saw it settle (ms), for the "just settled" list. */
  settledAt?: number;
}

export interface CmdState {
  id: string;
  type: string;
  session: string;
  subject?: string;
  cmd?: Ev;
  mine: boolean;
  sentAt?: number;
  /** control.accepted / control.rejected, cause = the command id. */
  ack?: Ev;
  /** The relay's cause-matched error frame, or a local one (not connected, no ack in the window). */
  refusal?: { code: string; detail?: string; local?: boolean };
  /** Events cause-linked to the command or its ack (AEP-0004 §6). */
  outcomes: Ev[];
}

export interface SessionModel {
  id: string;
  agent: string;
  rev: Signal<number>;
  /** Sequenced events, ordered by (epoch, seq). */
  events: Ev[];
  keys: Set<string>;
  firstAt: number;
  lastAt: number;
  cwd?: string;
  /** The project the engine named (the `hookmapproject` extension attribute, AEP-0001 §5.4). */
  project?: string;
  model?: string;
  /** The latest session.started / session.ended by position: decides `ended`. */
  lastLifecycle?: Ev;
  /** The emitter of its first event: with the id, its story in the kernel's fold (Store.storyOf). */
  source?: string;
  lastMessage?: Ev;
  lastTool?: string;
  attention: Set<string>;
  /** 'full' once a timeline subscription replays the whole session. */
  history: 'partial' | 'full';
  /** replay-exhausted: events before this position are no longer held by the relay. */
  gap?: Position;
  /** Last position a timeline subscription delivered: where the next one resumes (AEP-0003 §7). */
  timelinePos?: Position;
}

/** A request still waiting this long past its deadline (or this old without one) has lost its outcome. */
export const STALE_AFTER_MS = 60_000;
export const STALE_NO_DEADLINE_MS = 15 * 60_000;
export const SETTLED_VISIBLE_MS = 10 * 60_000;
