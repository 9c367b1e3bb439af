// What became of a tool call, in words, from everything the stream says
// about it (model/timeline.ts joins them): its own terminal event
// (AEP-0002: tool.completed / tool.failed / tool.denied), else the answer
// to the permission request that asked about it (AEP-0002 §7: a deny, with
// the guidance text the agent reads, AEP-0008; a timeout, when the agent's
// own dialog decides), else the end of its run or session with nothing
// said. A call is "running" only while its run is.
import { answeredEffect, answeredRefuses, permits } from '../../../engine/kernel/option-effects.ts';
import { fateOf, runEnd } from '../../../engine/kernel/lifecycle.ts';
import type { Ev } from './aep.ts';
import type { RunRow, ToolRow } from './timeline.ts';

export type CallStatus = 'running' | 'waiting' | 'done' | 'failed' | 'denied' | 'timed out' | 'unknown';

export interface CallOutcome {
  status: CallStatus;
  /** The sentence beside the status, when there is more to say. */
  text?: string;
}

export const NOT_ANSWERED = 'not answered; the agent decided';
export const NO_OUTCOME = 'no outcome reported';

export function callOutcome(r: ToolRow): CallOutcome {
  const end = r.ev.type === 'tool.requested' ? r.end : r.ev;
  if (end) return endOutcome(end);
  const p = r.permission;
  const answer = p?.answered?.data?.answer;
  if (p?.answered && answeredRefuses(p.answered, p.req)) {
    return { status: 'denied', text: `denied ${byWhom(p.answered)}${typeof answer?.text === 'string' && answer.text ? `: “${answer.text}”` : ''}` };
  }
  if (p?.timeout) return { status: 'timed out', text: NOT_ANSWERED };
  // an option whose meaning the stream does not declare is named as it is, never called an allow
  const option = typeof answer?.option === 'string' ? answer.option : undefined;
  const allowed = p?.answered
    ? `${permits(answeredEffect(p.answered, p.req)) || option === undefined ? 'allowed' : `answered “${option}”`} ${byWhom(p.answered)}`
    : undefined;
  if (r.closedBy) return { status: 'unknown', text: allowed ? `${allowed}; ${NO_OUTCOME}` : NO_OUTCOME };
  if (p && !p.answered && !p.resolved) return { status: 'waiting', text: 'waiting for an answer to its permission request' };
  return { status: 'running', text: allowed };
}

function endOutcome(end: Ev): CallOutcome {
  const d = end.data ?? {};
  const fate = fateOf(end.type)?.fate;
  if (fate === 'completed') return d.status === 'error' ? { status: 'failed' } : { status: 'done' };
  if (fate === 'failed') {
    const why = d.error?.message ?? d.error?.type;
    return { status: 'failed', text: why ? String(why) : undefined };
  }
  return {
    status: 'denied',
    text: `denied${typeof d.by === 'string' && d.by ? ` by ${d.by}` : ''}${typeof d.reason === 'string' && d.reason ? `: ${d.reason}` : ''}`,
  };
}

function byWhom(answered: Ev): string {
  const d = answered.data ?? {};
  if (d.via === 'oob') return "in the agent's own dialog";
  if (typeof d.by === 'string' && d.by.startsWith('rule:')) return `by rule ${d.by.slice(5)}`;
  return typeof d.by === 'string' && d.by ? `by ${d.by}` : 'from the inbox';
}

export type RunStatus = 'running' | 'finished' | 'failed' | 'cancelled' | 'ended';

/** A run's state: never running once the session ended. */
export function runStatus(r: RunRow): RunStatus {
  const end = r.end;
  if (end) return runEnd(end.type) ?? 'cancelled';
  return r.closedBy ? 'ended' : 'running';
}
