// The relay's audit trail of commands (issue 10): one record per command
// routed or refused, naming the authenticated sender (AEP-0004 §4.3: who
// may command whom is deployment-owned; the record says who did). A
// command that crossed the fleet backplane (engine/runtime/relay/backplane/) is
// recorded on both relays: where it was sent (`relay`: the relay it was
// forwarded to) and where it was delivered (`relay`: the relay it came
// from), each naming the sender authenticated on the first.
import type { AepEvent } from './store.ts';

/** Command-path refusal codes (AEP-0004 §4.2). */
export type RefusalCode = 'unauthorized' | 'unsupported' | 'ambiguous' | 'no-route';

/** One command the relay routed or refused: who sent what, to whom, with what result. */
export interface AuditRecord {
  time: string;
  principal: string;
  command: { id: string; type: string; session?: string; subject?: string; run?: string; source: string; agent: string };
  outcome: 'routed' | RefusalCode;
  detail?: string;
  /** The other relay of a fleet this command crossed to or came from. */
  relay?: string;
}

export function auditRecord(ev: AepEvent, principal: string, r: { ok: true } | { ok: false; code: string; detail: string }, relay?: string): AuditRecord {
  const rec: AuditRecord = {
    time: new Date().toISOString(),
    principal,
    command: { id: ev.id, type: ev.type, session: ev.session, subject: ev.subject, run: ev.run, source: ev.source, agent: ev.agent },
    outcome: r.ok ? 'routed' : (r.code as RefusalCode),
  };
  if (!r.ok) rec.detail = r.detail;
  if (relay) rec.relay = relay;
  return rec;
}
