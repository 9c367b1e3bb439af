// Terminal exclusivity (AEP-0002 §2.5) and the attention lifecycle (§7):
// one terminal per run, one session.ended per session, one terminal per
// attention request, every request closed before the session ends, and no
// new work sequenced after session.ended. Late *completions* after the end
// stay legal (§2.5: asynchronous hook runtimes deliver them late); only new
// work is flagged. The dangling check runs at the end of input, by (epoch,
// seq) position rather than line order, so a backfilled terminal counts.
import type { Violation } from './rules.ts';
import type { Finding } from './envelope-rules.ts';
import { isAttentionFollower, isAttentionTerminal, isRunTerminal, isSessionTerminal, isTerminal, mayFollowEnd, opens } from '../kernel/lifecycle.ts';
import { comparePositions, positionOf, sessionKey, subKey, type Position } from './keys.ts';

// The vocabulary (which types are terminals, which may follow an end) is the
// kernel's, generated from the AEP registry (engine/kernel/lifecycle.ts).
export { isTerminal, mayFollowEnd };

interface Seen {
  line: number;
  id: string | undefined;
  pos: Position | undefined;
}
interface Request extends Seen {
  terminal?: Seen & { type: string };
}

function idOf(ev: Record<string, unknown>): string | undefined {
  return typeof ev.id === 'string' ? ev.id : undefined;
}

/** Is `a` before `b` in session order? By position when both have one, else by line. */
function before(a: Seen, b: Seen): boolean {
  return a.pos && b.pos ? comparePositions(a.pos, b.pos) < 0 : a.line < b.line;
}

export class LifecycleTracker {
  private runTerminals = new Map<string, Seen & { type: string }>();
  private ended = new Map<string, Seen & { session: string }>();
  private requests = new Map<string, Request>();
  // per session, the request keys raised in it, for the end-of-input sweep
  private requestsBySession = new Map<string, string[]>();
  private orphanTerminals = new Map<string, Seen & { type: string }>();

  observe(ev: Record<string, unknown>, line: number): Finding[] {
    const type = ev.type;
    if (typeof type !== 'string') return [];
    const out: Finding[] = [];
    const sk = sessionKey(ev);
    const here: Seen = { line, id: idOf(ev), pos: positionOf(ev) };
    const sequenced = ev.seq !== undefined;

    if (isAttentionFollower(type) && (typeof ev.subject !== 'string' || ev.subject === '')) {
      out.push({ rule: 'lifecycle/attention-subject', message: `${type} must set subject to the id of its attention.requested` });
    }
    if (!sk) return out;

    const end = this.ended.get(sk);
    if (end && sequenced && !mayFollowEnd(type) && before(end, here)) {
      out.push({
        rule: 'lifecycle/after-session-end',
        message: `${type} sequenced after session.ended ${end.id ?? ''} (line ${end.line}) of session ${end.session}`,
      });
    }

    if (isRunTerminal(type) && typeof ev.run === 'string') {
      const k = subKey(sk, ev.run);
      const prior = this.runTerminals.get(k);
      if (prior)
        out.push({
          rule: 'lifecycle/run-terminal-duplicate',
          message: `${type} for run ${ev.run}, which already ended with ${prior.type} ${prior.id ?? ''} (line ${prior.line})`,
        });
      else this.runTerminals.set(k, { ...here, type });
    } else if (isSessionTerminal(type)) {
      if (end)
        out.push({
          rule: 'lifecycle/session-end-duplicate',
          message: `second session.ended for session ${String(ev.session)} (first: ${end.id ?? ''}, line ${end.line})`,
        });
      else this.ended.set(sk, { ...here, session: ev.session as string });
    } else if (opens(type) === 'attention' && here.id) {
      const k = subKey(sk, here.id);
      if (!this.requests.has(k)) {
        this.requests.set(k, { ...here });
        const list = this.requestsBySession.get(sk) ?? [];
        list.push(k);
        this.requestsBySession.set(sk, list);
      }
    } else if (isAttentionTerminal(type) && typeof ev.subject === 'string' && ev.subject) {
      const k = subKey(sk, ev.subject);
      const req = this.requests.get(k);
      const prior = req ? req.terminal : this.orphanTerminals.get(k);
      if (prior) {
        out.push({
          rule: 'lifecycle/attention-terminal-duplicate',
          message: `${type} for attention ${ev.subject}, which already ended with ${prior.type} ${prior.id ?? ''} (line ${prior.line})`,
        });
      } else if (req) req.terminal = { ...here, type };
      // a terminal for a request raised before this capture began: still one terminal per request
      else this.orphanTerminals.set(k, { ...here, type });
    }
    return out;
  }

  /** End of input: every request raised before a session's end must have been closed before it. */
  finish(): Violation[] {
    const out: Violation[] = [];
    for (const [sk, end] of this.ended) {
      for (const k of this.requestsBySession.get(sk) ?? []) {
        const req = this.requests.get(k)!;
        if (!before(req, end)) continue; // raised after the end: lifecycle/after-session-end said so
        const t = req.terminal;
        if (t && before(t, end)) continue;
        const why = t ? `its ${t.type} (line ${t.line}) comes after the end` : 'it has no attention.resolved or attention.timeout';
        out.push({
          line: end.line,
          id: end.id,
          rule: 'lifecycle/attention-dangling',
          message: `session ${end.session} ends with attention ${req.id} (line ${req.line}) still pending: ${why}`,
        });
      }
    }
    return out;
  }
}
