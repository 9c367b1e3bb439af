// Terminal exclusivity (AEP-0002 §2.5) and the attention lifecycle (§7):
// one terminal per run, one session.ended per session, one terminal per
// attention request, every request closed before the session ends, and no
// new work sequenced after session.ended. Late *completions* after the end
// stay legal (§2.5: asynchronous hook runtimes deliver them late); only new
// work is flagged. The dangling check runs at the end of input, by (epoch,
// seq) position rather than line order, so a backfilled terminal counts.
// The lifecycle state (which runs ended, a session's end, each request and its
// terminals) is the kernel's one fold (engine/core/kernel/fold/, calls off: the
// rules judge runs, sessions and requests); this tracker keeps where each
// event was (line, position) and judges.
import type { Violation } from './rules.ts';
import type { Finding } from './envelope-rules.ts';
import { StoryFold, type FoldEvent } from '../kernel/fold/index.ts';
import { isAttentionFollower, isAttentionTerminal, isRunTerminal, isSessionTerminal, isTerminal, mayFollowEnd } from '../kernel/lifecycle.ts';
import { comparePositions, positionOf, sessionKey, type Position } from './keys.ts';

// The vocabulary (which types are terminals, which may follow an end) is the
// kernel's, generated from the AEP registry (engine/core/kernel/lifecycle.ts).
export { isTerminal, mayFollowEnd };

interface Seen {
  line: number;
  id: string | undefined;
  pos: Position | undefined;
}

function idOf(ev: Record<string, unknown>): string | undefined {
  return typeof ev.id === 'string' ? ev.id : undefined;
}

/** Is `a` before `b` in session order? By position when both have one, else by line. */
function before(a: Seen, b: Seen): boolean {
  return a.pos && b.pos ? comparePositions(a.pos, b.pos) < 0 : a.line < b.line;
}

/** What the fold reads: an event with the envelope attributes it keys on (the envelope rules judge the rest). */
const foldable = (ev: Record<string, unknown>): boolean =>
  typeof ev.id === 'string' && typeof ev.source === 'string' && typeof ev.session === 'string' && typeof ev.type === 'string';

export class LifecycleTracker {
  /** Unbounded, as the validator always was: every session of the input is judged to its end. */
  private readonly fold = new StoryFold<FoldEvent>({ calls: false, maxSessions: Infinity, maxRequests: Infinity });
  /** Where each folded event was. */
  private readonly seen = new WeakMap<object, Seen>();
  /** Terminals of requests raised before this capture began: still one terminal per request (the fold has no request for them). */
  private readonly orphanTerminals = new Map<string, Seen & { type: string }>();

  private at(ev: FoldEvent | undefined): (Seen & { type: string }) | undefined {
    const s = ev && this.seen.get(ev);
    return s && ev ? { ...s, type: ev.type } : undefined;
  }

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
    if (!sk || !foldable(ev)) return out;
    const fe = ev as unknown as FoldEvent;
    const story = this.fold.session(fe);
    const end = this.at(story?.ended);

    if (end && sequenced && !mayFollowEnd(type) && before(end, here)) {
      out.push({
        rule: 'lifecycle/after-session-end',
        message: `${type} sequenced after session.ended ${end.id ?? ''} (line ${end.line}) of session ${String(ev.session)}`,
      });
    }

    if (isRunTerminal(type) && typeof ev.run === 'string') {
      const prior = this.at(story?.runs.get(ev.run)?.end);
      if (prior)
        out.push({
          rule: 'lifecycle/run-terminal-duplicate',
          message: `${type} for run ${ev.run}, which already ended with ${prior.type} ${prior.id ?? ''} (line ${prior.line})`,
        });
    } else if (isSessionTerminal(type)) {
      if (end)
        out.push({
          rule: 'lifecycle/session-end-duplicate',
          message: `second session.ended for session ${String(ev.session)} (first: ${end.id ?? ''}, line ${end.line})`,
        });
    } else if (isAttentionTerminal(type) && typeof ev.subject === 'string' && ev.subject) {
      const q = story?.requests.get(ev.subject);
      const k = `${sk}\u0000${ev.subject}`;
      const prior = q?.req ? this.first(q.resolved, q.timeout) : this.orphanTerminals.get(k);
      if (prior) {
        out.push({
          rule: 'lifecycle/attention-terminal-duplicate',
          message: `${type} for attention ${ev.subject}, which already ended with ${prior.type} ${prior.id ?? ''} (line ${prior.line})`,
        });
      } else if (!q?.req) this.orphanTerminals.set(k, { ...here, type });
    }
    this.seen.set(ev, here);
    this.fold.add(fe);
    return out;
  }

  /** The earlier of two terminals, by session order. */
  private first(a: FoldEvent | undefined, b: FoldEvent | undefined): (Seen & { type: string }) | undefined {
    const x = this.at(a);
    const y = this.at(b);
    return x && y ? (before(y, x) ? y : x) : (x ?? y);
  }

  /** End of input: every request raised before a session's end must have been closed before it. */
  finish(): Violation[] {
    const out: Violation[] = [];
    for (const s of this.fold.sessions.values()) {
      const end = this.at(s.ended);
      if (!end) continue;
      for (const q of s.requests.values()) {
        const req = this.at(q.req);
        if (!req) continue; // a terminal whose request predates the capture
        if (!before(req, end)) continue; // raised after the end: lifecycle/after-session-end said so
        const t = this.first(q.resolved, q.timeout);
        if (t && before(t, end)) continue;
        const why = t ? `its ${t.type} (line ${t.line}) comes after the end` : 'it has no attention.resolved or attention.timeout';
        out.push({
          line: end.line,
          id: end.id,
          rule: 'lifecycle/attention-dangling',
          message: `session ${s.session} ends with attention ${req.id} (line ${req.line}) still pending: ${why}`,
        });
      }
    }
    return out;
  }
}
