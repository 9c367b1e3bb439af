// The calls a live stream leaves without their own outcome, found as they
// happen: fed event by event (a `hookmap tail`), it reports each tool call
// its run's or session's end closed with no terminal event, with what its
// permission requests came to (call-outcome.ts). The session's shape is
// tracked by the same SessionTracker the timeline and the OTLP traces use.
import { answerOf, askFate, unreportedCall, type Answer, type AskFate } from './call-outcome.ts';
import type { AepEvent } from './projection/common.ts';
import { SessionTracker, sessionKey, type SessionNode, type SessionState } from './structure.ts';

export interface UnreportedCall {
  session: string;
  agent: string;
  tool: string;
  callId?: string;
  outcome: string;
}

const MAX_ANSWERS = 1000;

export class CallWatch {
  private readonly asks = new Map<string, AskFate[]>();
  private readonly answers = new Map<string, Answer>();
  private found: UnreportedCall[] = [];
  private readonly tracker = new SessionTracker((n, st) => this.closed(n, st), { maxSessions: 500, maxEventsPerNode: 0 });

  /** Feed one event; returns the calls it closed without an outcome of their own. */
  add(ev: AepEvent): UnreportedCall[] {
    if (ev.type === 'attention.answered' && ev.subject) {
      this.answers.set(ev.subject, answerOf(ev));
      if (this.answers.size > MAX_ANSWERS) this.answers.delete(this.answers.keys().next().value!);
    }
    this.tracker.add(ev);
    const out = this.found;
    this.found = [];
    return out;
  }

  private closed(n: SessionNode, st: SessionState): void {
    const at = (key: string) => `${sessionKey(st)}\u0000${key}`;
    if (n.kind === 'attention') {
      const id = String(n.attrs.id);
      if (n.parent?.startsWith('tool:')) this.asks.set(at(n.parent), [...(this.asks.get(at(n.parent)) ?? []), askFate(n, this.answers.get(id))]);
      this.answers.delete(id);
      return;
    }
    if (n.kind !== 'tool') return;
    const asks = this.asks.get(at(n.key)) ?? [];
    this.asks.delete(at(n.key));
    if (n.closedBy === 'run.ended' || n.closedBy === 'session.ended') {
      this.found.push({
        session: n.session,
        agent: n.agent,
        tool: n.label,
        callId: typeof n.attrs.call_id === 'string' ? n.attrs.call_id : undefined,
        outcome: unreportedCall(asks),
      });
    }
  }
}
