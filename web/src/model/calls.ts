// What became of a tool call, in words: the kernel's one fold reads its fate
// (engine/core/kernel/fold/fates.ts: its own terminal, AEP-0002 tool.completed /
// failed / denied, else the answer to the permission request that asked
// about it, AEP-0002 §7, a refusal with the guidance text the agent reads,
// AEP-0008, a timeout when the agent's own dialog decides, else the end of its
// run or session with nothing said); this module only says it. A call is
// "running" only while its run is.
import { answerOf, callFate, lastRequest, runFate, type CallFate, type RunFate } from '../../../engine/core/kernel/fold/index.ts';
import { permits } from '../../../engine/core/kernel/option-effects.ts';
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

const STATUS: Record<CallFate, CallStatus> = {
  running: 'running',
  waiting: 'waiting',
  completed: 'done',
  failed: 'failed',
  denied: 'denied',
  refused: 'denied',
  'timed-out': 'timed out',
  unreported: 'unknown',
};

export function callOutcome(r: ToolRow): CallOutcome {
  const c = r.call;
  if (!c) return { status: 'running' };
  const fate = callFate(c);
  const status = STATUS[fate];
  if (c.end) return endOutcome(status, c.end);
  const q = lastRequest(c);
  const a = q && answerOf(q);
  if (fate === 'refused') return { status, text: `denied ${byWhom(a!.event as Ev)}${a!.text ? `: “${a!.text}”` : ''}` };
  if (fate === 'timed-out') return { status, text: NOT_ANSWERED };
  // an option whose meaning the stream does not declare is named as it is, never called an allow
  const allowed = a ? `${permits(a.effect) || a.option === undefined ? 'allowed' : `answered “${a.option}”`} ${byWhom(a.event as Ev)}` : undefined;
  if (fate === 'unreported') return { status, text: allowed ? `${allowed}; ${NO_OUTCOME}` : NO_OUTCOME };
  if (fate === 'waiting') return { status, text: 'waiting for an answer to its permission request' };
  return { status, text: allowed };
}

function endOutcome(status: CallStatus, end: Ev): CallOutcome {
  const d = end.data ?? {};
  if (status === 'done' || d.status === 'error') return { status };
  if (status === 'failed') {
    const why = d.error?.message ?? d.error?.type;
    return { status, text: why ? String(why) : undefined };
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

/** A run's state: never running once the session ended (the fold's run fate). */
export function runStatus(r: RunRow): RunStatus {
  const fate: RunFate = runFate({ id: r.ev.run ?? r.id, started: r.ev, end: r.end, closedBy: r.closedBy });
  return fate;
}
