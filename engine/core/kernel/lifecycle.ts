// The lifecycle vocabulary (AEP-0002 §2, §7): which types end a run, a
// session, a call, a request, and which may arrive after an end. The sets are
// generated from the AEP registry (generated/lifecycle.ts, codegen/lifecycle.ts,
// `npx hookmap codegen`); this file only asks questions of them. Browser-safe.
import {
  ATTENTION_FOLLOWERS,
  ATTENTION_TERMINALS,
  CLOSES,
  LATE_COMPLETIONS,
  RUN_TERMINALS,
  SESSION_TERMINALS,
  TOOL_TERMINALS,
  UNITS,
  type Unit,
} from './generated/lifecycle.ts';

export {
  ATTENTION_FOLLOWERS,
  ATTENTION_TERMINALS,
  CLOSES,
  RUN_TERMINALS,
  SESSION_TERMINALS,
  TOOL_TERMINALS,
  TYPE,
  TYPE_SCOPE,
  UNITS,
} from './generated/lifecycle.ts';
export type { RegisteredType, Scope, Unit } from './generated/lifecycle.ts';
/** A session's terminal type. */
export type SessionTerminal = (typeof SESSION_TERMINALS)[number];

const has = (list: readonly string[]) => {
  const set = new Set<string>(list);
  return (type: string): boolean => set.has(type);
};

/** run.finished / run.failed / run.cancelled. */
export const isRunTerminal = has(RUN_TERMINALS);
/** session.ended. */
export const isSessionTerminal = has(SESSION_TERMINALS);
/** tool.completed / tool.failed / tool.denied. */
export const isToolTerminal = has(TOOL_TERMINALS);
/** attention.resolved / attention.timeout. */
export const isAttentionTerminal = has(ATTENTION_TERMINALS);
/** The attention lifecycle after the request (each carries the request id as subject, AEP-0002 §7 rule 1). */
export const isAttentionFollower = has(ATTENTION_FOLLOWERS);

/** The command that answers a request (AEP-0004 §5); its answer is the attention.answered caused by it. */
export const RESPOND = 'control.attention.respond';

/** The answer to a request (attention.answered, AEP-0002 §7): within the request's lifecycle, not its end. */
export const isAnswer = (type: string): boolean => type === 'attention.answered';

/** Whether `type` is a run's or a session's terminal (AEP-0002 §2.5). */
export const isTerminal = (type: string): boolean => isRunTerminal(type) || isSessionTerminal(type);

/** The unit a type closes (run, session, tool, attention, ...), undefined when it closes none. */
export const closes = (type: string): Unit | undefined => CLOSES[type];

const OPENS: Readonly<Record<string, Unit>> = Object.fromEntries(Object.entries(UNITS).flatMap(([unit, u]) => u.opens.map((t) => [t, unit as Unit])));
/** The unit a type opens (session.started: session, attention.requested: attention, ...), undefined when it opens none. */
export const opens = (type: string): Unit | undefined => OPENS[type];

const late = has(LATE_COMPLETIONS);

/**
 * Whether `type` may arrive after a terminal, even after its session's end:
 * a late completion or report, or a vendor-defined (x.*) report such as
 * x.hookmap.usage.reported (read from a transcript after the reply that
 * closed the run), never new work (AEP-0002 §2.5).
 */
export function mayFollowEnd(type: string): boolean {
  return late(type) || type.startsWith('x.');
}

/** What a closing type says of its unit: the unit and the last word of the type (run.failed: run, failed; attention.timeout: attention, timeout). */
export function fateOf(type: string): { unit: Unit; fate: string } | undefined {
  const unit = CLOSES[type];
  return unit ? { unit, fate: type.slice(type.lastIndexOf('.') + 1) } : undefined;
}

export type RunEnd = 'finished' | 'failed' | 'cancelled';

/** How a run ended, by its terminal's type (AEP-0002 §2.2: distinct types, not a status field). */
export function runEnd(type: string): RunEnd | undefined {
  return isRunTerminal(type) ? (type.slice('run.'.length) as RunEnd) : undefined;
}
