// The calls a live stream leaves without their own outcome, found as they
// happen: fed event by event (a `hookmap tail`), it reports each tool call
// its run's or session's end closed with no terminal event, with what its
// permission requests came to. Both are the kernel's one fold
// (engine/core/kernel/fold/), the same the timeline and the OTLP traces read;
// call-outcome.ts says them in words.
import { StoryFold } from '../../core/kernel/fold/index.ts';
import { unreportedCall } from './call-outcome.ts';
import type { AepEvent } from './projection/common.ts';

export interface UnreportedCall {
  session: string;
  agent: string;
  tool: string;
  callId?: string;
  outcome: string;
}

export class CallWatch {
  /** Bounded: 500 sessions, least recently active forgotten first (engine/core/kernel/fold/fold.ts). */
  readonly fold = new StoryFold<AepEvent>({ maxSessions: 500 });

  /** Feed one event; returns the calls it closed without an outcome of their own. */
  add(ev: AepEvent): UnreportedCall[] {
    if (ev.type.startsWith('agent.') || ev.type.startsWith('control.')) return [];
    const closed = this.fold.add(ev);
    if (!closed.length) return [];
    const s = this.fold.session(ev);
    return closed
      .filter((c) => c.req)
      .map((c) => ({ session: ev.session!, agent: s?.agent ?? ev.agent, tool: c.name ?? 'tool', callId: c.callId, outcome: unreportedCall(c) }));
  }
}
