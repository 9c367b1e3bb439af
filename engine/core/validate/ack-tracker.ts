// One ack decision per command (AEP-0004 §3): the target answers a command
// with exactly one control.accepted or control.rejected whose cause is the
// command's id. Redelivery of that same ack is legal and never reaches here
// (identity-tracker); a second, different ack for one command is the fault.
// Acks for commands outside the capture are fine: a log may start mid-stream.
import type { Finding } from './envelope-rules.ts';
import { sessionKey, subKey } from './keys.ts';

const ACKS = new Set(['control.accepted', 'control.rejected']);

export class AckTracker {
  private decisions = new Map<string, { type: string; id: unknown; line: number }>();

  observe(ev: Record<string, unknown>, line: number): Finding[] {
    if (typeof ev.type !== 'string' || !ACKS.has(ev.type)) return [];
    if (typeof ev.cause !== 'string' || ev.cause === '') {
      return [{ rule: 'control/ack-missing-cause', message: `${ev.type} must set cause to the id of the command it answers` }];
    }
    // acks are sequenced events of the target's own session; key by it, and by
    // source alone when the envelope is too broken to name the session
    const k = subKey(sessionKey(ev) ?? String(ev.source), ev.cause);
    const prior = this.decisions.get(k);
    if (prior) {
      return [
        {
          rule: 'control/ack-duplicate',
          message: `second ack decision ${ev.type} for command ${ev.cause}, already answered by ${prior.type} ${String(prior.id)} (line ${prior.line})`,
        },
      ];
    }
    this.decisions.set(k, { type: ev.type, id: ev.id, line });
    return [];
  }
}
