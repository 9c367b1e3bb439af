// The watch (issue 43, docs/watch.md): nothing waits unseen. It reads the
// relay's stream (so agents on every machine of a fleet are watched), folds
// it with the kernel's one fold, and notices an agent that waits on a human
// where no open hookmap card asks:
//   - a daemon's waiting sign (x.hookmap.watch.waiting, from a descriptor's
//     `waiting:` block: the agent said it shows its own dialog);
//   - a held request that timed out (hookmap's window ended) while its call
//     is still open: the agent's own dialog is up;
//   - a tool call requested and not finished after `callMs`;
//   - a run with no event for `runMs`.
// It raises one attention per session at a time (attention.requested with
// respond_via ["oob"]: answer at the agent, never through hookmap), in
// words, and resolves it (`auto`) once the stream shows the agent moved on.
// Bounded: the fold's caps, at most MAX_RAISED raised and MAX_OPEN_CALLS
// calls timed at once; a bad event is said and skipped.
import { closes, isAnswer, opens } from '../../core/kernel/lifecycle.ts';
import { callFate, requestFate, StoryFold, type CallStory, type FoldEvent, type SessionStory } from '../../core/kernel/fold/index.ts';
import { wordsOf, type Sign } from './words.ts';
import { WAITING_TYPE } from '../../core/map/waiting.ts';

export const MAX_RAISED = 1000;
export const MAX_OPEN_CALLS = 10_000;

export interface WatchOut {
  /** Publish the attention.requested payload; its event id. */
  request(data: Record<string, unknown>, cause?: string): string;
  /** Publish its terminal (attention.resolved). */
  resolve(id: string, resolution: 'auto' | 'dismissed', cause?: string): void;
}

export interface WatchOptions {
  out: WatchOut;
  callMs: number;
  runMs: number;
  /** Events of the watch's own emitter (never watched). */
  own: (ev: FoldEvent) => boolean;
  now?: () => number;
  say?: (line: string) => void;
}

interface Raised {
  id: string;
  sign: Sign;
  /** The call it is about (window, call): cleared when the call ends. */
  call?: CallStory;
  /** The event that raised it (a later one clears). */
  by: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export class Watch {
  private readonly fold = new StoryFold();
  private readonly raised = new Map<string, Raised>();
  /** Calls requested and not finished, with when the watch saw them asked. */
  private readonly openCalls = new Map<CallStory, { at: number; key: string; raised?: boolean }>();
  /** Per session: when the watch last saw an event of it, and whether its silence was raised. */
  private readonly lastAt = new Map<string, { at: number; raised?: boolean }>();
  private readonly now: () => number;
  private full = false;

  constructor(private readonly o: WatchOptions) {
    this.now = o.now ?? Date.now;
  }

  /** One event off the stream. Never throws: a bad event is said and the next one is read. */
  add(ev: FoldEvent): void {
    try {
      if (!ev || typeof ev !== 'object' || typeof ev.type !== 'string' || typeof ev.session !== 'string' || this.o.own(ev)) return;
      this.fold.add(ev);
      const s = this.fold.session(ev);
      if (!s) return;
      const t = this.now();
      this.touch(s.key, t);
      if (opens(ev.type) === 'tool') this.timeCall(s, ev, t);
      this.moveOn(s, ev);
      if (ev.type === WAITING_TYPE) this.waiting(s, ev);
      else if (closes(ev.type) === 'attention' && ev.subject) this.windowEnded(s, ev);
    } catch (e) {
      this.o.say?.(`watch: ${String(ev?.type)} ${String(ev?.id)}: ${(e as Error).message}`);
    }
  }

  /** The timed signs: a call open past callMs, a run silent past runMs. Call it every so often. */
  tick(): void {
    const t = this.now();
    if (this.o.callMs > 0)
      for (const [c, x] of this.openCalls) {
        if (c.end || c.closedBy) {
          this.openCalls.delete(c);
          continue;
        }
        if (x.raised || t - x.at < this.o.callMs) continue;
        const s = this.fold.sessions.get(x.key);
        if (!s) {
          this.openCalls.delete(c);
          continue;
        }
        if (this.covered(s) || callFate(c) === 'waiting') continue;
        x.raised = true;
        this.raise(s, { kind: 'call', minutes: this.o.callMs / 60_000, tool: c.name }, c.req?.id ?? c.id, c);
      }
    if (this.o.runMs > 0)
      for (const [key, x] of this.lastAt) {
        if (x.raised || t - x.at < this.o.runMs) continue;
        const s = this.fold.sessions.get(key);
        if (!s) {
          this.lastAt.delete(key);
          continue;
        }
        if (s.ended || this.covered(s) || ![...s.runs.values()].some((r) => !r.end && !r.closedBy)) continue;
        x.raised = true;
        this.raise(s, { kind: 'silent', minutes: this.o.runMs / 60_000 }, s.started?.id ?? key);
      }
  }

  /** How many attentions are raised now. */
  get open(): number {
    return this.raised.size;
  }

  /** Resolve every raised attention (`dismissed`: the watch stops, nobody will clear them). */
  close(): void {
    for (const r of this.raised.values()) this.resolve(r, 'dismissed');
    this.raised.clear();
  }

  private touch(key: string, t: number): void {
    this.lastAt.delete(key); // oldest first
    this.lastAt.set(key, { at: t });
    while (this.lastAt.size > this.fold.sessions.size + 1) this.lastAt.delete(this.lastAt.keys().next().value!);
  }

  private timeCall(s: SessionStory, ev: FoldEvent, t: number): void {
    const c = this.fold.call(ev, ev.id);
    if (!c || c.end || this.openCalls.has(c)) return;
    this.openCalls.set(c, { at: t, key: s.key });
    while (this.openCalls.size > MAX_OPEN_CALLS) this.openCalls.delete(this.openCalls.keys().next().value!);
  }

  /** Whether an open hookmap card (a request answerable through hookmap) asks in this session. */
  private covered(s: SessionStory): boolean {
    for (const q of s.requests.values()) {
      if (requestFate(q) !== 'open' || !q.req) continue;
      const via = q.req.data?.respond_via;
      if (!Array.isArray(via) || via.includes('control')) return true;
    }
    return false;
  }

  /** A descriptor's waiting sign: raised unless a card asks already. */
  private waiting(s: SessionStory, ev: FoldEvent): void {
    if (this.covered(s)) return;
    const d = ev.data ?? {};
    const open = [...s.calls.values()].reverse().find((c) => !c.end && !c.closedBy);
    this.raise(s, { kind: 'waiting', reason: str(d.reason) ?? 'input', hook: str(d.hook), tool: open?.name }, ev.id);
  }

  /** A held request's window ended with its call still open: the agent's own dialog is up. */
  private windowEnded(s: SessionStory, ev: FoldEvent): void {
    const q = s.requests.get(ev.subject!);
    if (!q || q.timeout?.id !== ev.id || requestFate(q) !== 'timed-out' || s.ended) return;
    const c = q.call;
    if (c && (c.end || c.closedBy)) return;
    const form = q.req?.data?.kind === 'form';
    this.raise(s, { kind: 'window', tool: c?.name ?? str(q.req?.subject), form }, ev.id, c);
  }

  /** The stream shows the session's agent moved on: its raised attention is resolved. */
  private moveOn(s: SessionStory, ev: FoldEvent): void {
    const r = this.raised.get(s.key);
    if (!r || r.by === ev.id) return;
    const agentCard = opens(ev.type) === 'attention' && (!Array.isArray(ev.data?.respond_via) || ev.data.respond_via.includes('control'));
    // a request's own terminal says nothing of the agent; everything else of its lifecycle does
    const lifecycle = opens(ev.type) !== undefined || (closes(ev.type) !== undefined && closes(ev.type) !== 'attention') || isAnswer(ev.type);
    const moved = r.call ? !!(r.call.end || r.call.closedBy) || !!s.ended || agentCard : lifecycle;
    if (!moved) return;
    this.raised.delete(s.key);
    this.resolve(r, 'auto', ev.id);
  }

  private raise(s: SessionStory, sign: Sign, by: string, call?: CallStory): void {
    if (this.raised.has(s.key)) return; // one per session at a time
    if (this.raised.size >= MAX_RAISED) {
      if (!this.full) this.o.say?.(`watch: ${MAX_RAISED} attentions raised and open: no more until some clear`);
      this.full = true;
      return;
    }
    this.full = false;
    const project = str((s.started as Record<string, unknown> | undefined)?.hookmapproject);
    const w = wordsOf(sign, { agent: s.agent ?? 'an agent', project, session: s.session });
    const data: Record<string, unknown> = {
      kind: w.kind,
      prompt: w.prompt,
      respond_via: ['oob'],
      watch: {
        sign: sign.kind,
        agent: s.agent,
        session: s.session,
        source: s.source,
        ...(w.project ? { project: w.project } : {}),
        ...(w.tool ? { tool: w.tool } : {}),
      },
    };
    const id = this.o.out.request(data, by);
    this.raised.set(s.key, { id, sign, call, by });
  }

  private resolve(r: Raised, resolution: 'auto' | 'dismissed', cause?: string): void {
    try {
      this.o.out.resolve(r.id, resolution, cause);
    } catch (e) {
      this.o.say?.(`watch: could not resolve ${r.id}: ${(e as Error).message}`);
    }
  }
}
