// The inbox's picture of the stream: every session the relay holds, its events in (epoch, seq)
// order with (source, id) dedupe (AEP-0001 §7.4: at-least-once, through several subscriptions),
// what became of its runs and requests (the kernel's one fold), and every command with its ack
// and outcome (AEP-0004 §3, §6). Nothing here is optimistic: a card changes state only when an
// event (or the relay's refusal frame) says so. Pure: no DOM, so tests run it in Node.
import { batch, signal } from '@preact/signals';
import { StoryFold, type SessionStory } from '../../../engine/core/kernel/fold/index.ts';
import { closes, isAttentionFollower, isSessionTerminal, opens } from '../../../engine/core/kernel/lifecycle.ts';
import { comparePos, insertSorted, isCommand, isPositioned, keyOf, posOf, type Ev, type Position } from './aep.ts';
import { isWaiting, terminalOf } from './attention.ts';
import { pauseAt, type Pause } from '../../../engine/core/kernel/limits.ts';
import { SETTLED_VISIBLE_MS, type Attn, type CmdState, type SessionModel, type SessionState } from './session-model.ts';

/** hookmap's own notes on a request: a rule answered it, the floor kept it, the first of two people allowed it. */
const HOOKMAP_NOTES = new Set(['x.hookmap.answer.floor', 'x.hookmap.answer.ruled', 'x.hookmap.approval.partial']);

export class Store {
  readonly sessions = new Map<string, SessionModel>();
  /** The kernel's one fold of everything this page has seen (sessions, runs, requests; tool calls are the timeline's). */
  private readonly stories = new StoryFold<Ev>({ calls: false, maxSessions: Number.MAX_SAFE_INTEGER });
  readonly attn = new Map<string, Attn>();
  readonly cmds = new Map<string, CmdState>();
  private readonly ackToCmd = new Map<string, string>();
  /** Bumped whenever a session summary or the session set changes. */
  readonly listRev = signal(0);
  /** Bumped whenever an attention request or one of its commands changes. */
  readonly attnRev = signal(0);
  /** Wall clock, ticked by the UI once a second (countdowns, staleness). */
  readonly clock = signal(Date.now());
  private touchedSessions = new Set<SessionModel>();
  private touchedAttn = new Set<Attn>();
  private listDirty = false;
  private attnDirty = false;

  /** Apply a batch of events (one animation frame's worth) with one re-render. */
  applyBatch(items: { ev: Ev; timeline?: boolean }[], now = Date.now()): void {
    batch(() => {
      for (const it of items) this.ingest(it.ev, it.timeline ?? false, now);
      this.commit(now);
    });
  }

  /** One event from any subscription; `timeline` marks the open session's subscription (its resume position). */
  ingest(ev: Ev, timeline: boolean, now = Date.now()): void {
    if (!ev || typeof ev.type !== 'string' || typeof ev.id !== 'string') return;
    if (isCommand(ev.type)) return this.seeCommand(ev);
    if (typeof ev.session !== 'string' || !ev.session) return; // agent-scoped: not part of any session view
    const s = this.session(ev.session, ev.agent);
    if (isPositioned(ev)) {
      if (timeline) {
        const p = posOf(ev);
        if (!s.timelinePos || comparePos(p, s.timelinePos) > 0) s.timelinePos = p;
      }
      const k = keyOf(ev);
      if (s.keys.has(k)) return; // at-least-once: seen through another subscription or a resume
      s.keys.add(k);
      insertSorted(s.events, ev);
    }
    this.fold(s, ev, now);
    this.touchedSessions.add(s);
    this.listDirty = true;
  }

  /** The relay's replay-exhausted marker (AEP-0003 §5) for a timeline subscription. */
  exhausted(session: string, earliest: Position): void {
    const s = this.session(session, '');
    if (!s.gap || comparePos(earliest, s.gap) > 0) s.gap = earliest;
    this.touchedSessions.add(s);
    this.commit(Date.now());
  }

  markFull(session: string): void {
    const s = this.sessions.get(session);
    if (!s || s.history === 'full') return;
    s.history = 'full';
    this.touchedSessions.add(s);
    this.commit(Date.now());
  }

  /** A command this page sent. */
  sent(cmd: Ev, now = Date.now()): CmdState {
    const c = this.cmd(cmd.id, cmd);
    c.mine = true;
    c.sentAt = now;
    this.linkAttention(c);
    this.attnDirty = true;
    this.commit(now);
    return c;
  }

  /** A refusal for a command: the relay's cause-matched error frame (AEP-0004 §4.2) or a local one. */
  refused(cmdId: string, code: string, detail?: string, local = false): void {
    const c = this.cmds.get(cmdId);
    if (!c || c.ack || c.refusal) return;
    c.refusal = { code, detail, local };
    this.attnDirty = true;
    this.touchCmdSession(c);
    this.commit(Date.now());
  }

  commit(now: number): void {
    for (const a of this.touchedAttn) {
      if (a.req && !terminalOf(a)) a.seenPending = true;
      else if (terminalOf(a) && a.settledAt === undefined) a.settledAt = now;
    }
    for (const s of this.touchedSessions) s.rev.value++;
    if (this.touchedAttn.size) this.attnDirty = true;
    this.touchedSessions.clear();
    this.touchedAttn.clear();
    if (this.listDirty) this.listRev.value++;
    if (this.attnDirty) this.attnRev.value++;
    this.listDirty = false;
    this.attnDirty = false;
  }

  // --- derived views -----------------------------------------------------------------

  stateOf(s: SessionModel, now = this.clock.value): SessionState {
    if (s.lastLifecycle && isSessionTerminal(s.lastLifecycle.type)) return 'ended';
    for (const id of s.attention) {
      const a = this.attn.get(id);
      if (a && isWaiting(a, now)) return 'waiting';
    }
    if (this.pauseOf(s, now)) return 'paused'; // on a limit (kernel/limits.ts): stopped, or its run waits to retry
    return this.openRun(s) !== undefined ? 'running' : 'idle';
  }

  /** What a session paused on a limit waits for (kernel/limits.ts), by the fold. */
  pauseOf(s: SessionModel, now = this.clock.value): Pause | undefined {
    const ev = this.storyOf(s)?.paused;
    return ev ? pauseAt(ev, now) : undefined;
  }

  /** The fold's story of a session (its runs, its requests). */
  storyOf(s: SessionModel): SessionStory<Ev> | undefined {
    return s.source !== undefined ? this.stories.session({ source: s.source, session: s.id }) : undefined;
  }

  /** The newest run of a session that has started and not ended, by the fold. */
  openRun(s: SessionModel): string | undefined {
    const runs = [...(this.storyOf(s)?.runs.values() ?? [])];
    return runs.reverse().find((r) => r.started && !r.end && !r.closedBy)?.id;
  }

  /** The event that started a run (its prompt), by the fold. */
  runStart(s: SessionModel | undefined, run: string): Ev | undefined {
    return s ? this.storyOf(s)?.runs.get(run)?.started : undefined;
  }

  /** Sessions, newest activity first. */
  sessionList(): SessionModel[] {
    return [...this.sessions.values()].sort((a, b) => b.lastAt - a.lastAt || (a.id < b.id ? -1 : 1));
  }

  /** Requests a person can still answer here, oldest first (the nearest deadline first). */
  waiting(now = this.clock.value): Attn[] {
    return [...this.attn.values()].filter((a) => isWaiting(a, now)).sort((a, b) => (a.req!.time < b.req!.time ? -1 : 1));
  }

  /** Requests this page saw pending that have settled recently, newest first. */
  recentlySettled(now = this.clock.value): Attn[] {
    return [...this.attn.values()]
      .filter((a) => a.seenPending && a.settledAt !== undefined && now - a.settledAt < SETTLED_VISIBLE_MS)
      .sort((a, b) => b.settledAt! - a.settledAt!);
  }

  commandsOf(a: Attn): CmdState[] {
    return a.commands.map((id) => this.cmds.get(id)!).filter(Boolean);
  }

  // --- internals -----------------------------------------------------------------------

  private session(id: string, agent: string): SessionModel {
    let s = this.sessions.get(id);
    if (!s) {
      s = { id, agent, rev: signal(0), events: [], keys: new Set(), firstAt: Infinity, lastAt: 0, attention: new Set(), history: 'partial' };
      this.sessions.set(id, s);
      this.listDirty = true;
    }
    if (agent && !s.agent) s.agent = agent;
    return s;
  }

  private fold(s: SessionModel, ev: Ev, now: number): void {
    const t = Date.parse(ev.time);
    if (Number.isFinite(t)) {
      if (t < s.firstAt) s.firstAt = t;
      if (t > s.lastAt) s.lastAt = Math.min(t, now + 5_000); // a clock far ahead must not pin a session on top
    }
    if (ev.agent && ev.agent !== s.agent && isPositioned(ev)) s.agent = ev.agent;
    const d = ev.data ?? {};
    const project = (ev as Record<string, unknown>).hookmapproject;
    if (typeof project === 'string' && project) s.project = project;
    // what became of the session, its runs and its requests is the kernel's one fold (engine/core/kernel/fold/):
    // this store keeps the inbox's own facts beside it (summaries, commands, hookmap's answer notes)
    this.stories.add(ev);
    s.source ??= ev.source;
    const unit = opens(ev.type) ?? closes(ev.type) ?? (isAttentionFollower(ev.type) ? 'attention' : undefined);
    if (unit === 'session') {
      if (opens(ev.type)) {
        if (typeof d.cwd === 'string') s.cwd = d.cwd;
        if (typeof d['gen_ai.request.model'] === 'string') s.model = d['gen_ai.request.model'];
      }
      this.lifecycle(s, ev);
    } else if (unit === 'attention') this.readRequest(s, ev);
    else if (unit === 'tool' && opens(ev.type) && typeof d.tool?.name === 'string') s.lastTool = d.tool.name;
    else if (ev.type === 'message.agent.replied') {
      if (!s.lastMessage || comparePos(posOf(ev), posOf(s.lastMessage)) > 0) s.lastMessage = ev;
    } else if (ev.type === 'control.accepted' || ev.type === 'control.rejected') {
      if (ev.cause) {
        const c = this.cmd(ev.cause);
        c.ack ??= ev;
        if (!c.session && ev.session) c.session = ev.session;
        this.ackToCmd.set(ev.id, c.id);
        this.attnDirty = true;
      }
    } else if (ev.subject && HOOKMAP_NOTES.has(ev.type)) {
      const a = this.attention(ev.subject, s.id);
      if (ev.type.endsWith('.floor')) a.floor ??= ev;
      else if (ev.type.endsWith('.partial')) a.partial = ev;
      else a.ruled ??= ev;
      this.attnDirty = true;
    }
    // outcomes of a command: cause-linked to it or to its ack (AEP-0004 §6: follow one hop)
    if (ev.cause && ev.type !== 'control.accepted' && ev.type !== 'control.rejected') {
      const cmdId = this.cmds.has(ev.cause) ? ev.cause : this.ackToCmd.get(ev.cause);
      const c = cmdId ? this.cmds.get(cmdId) : undefined;
      if (c && !c.outcomes.some((o) => o.id === ev.id && o.source === ev.source)) {
        c.outcomes.push(ev);
        this.attnDirty = true;
      }
    }
  }

  /** A request's story as the fold tells it (its request, first answer, terminal), on the card the inbox shows. */
  private readRequest(s: SessionModel, ev: Ev): void {
    const id = opens(ev.type) ? ev.id : (ev.subject ?? ev.cause);
    const q = id ? this.stories.request(ev, id) : undefined;
    if (!q) return;
    const a = this.attention(q.id, s.id);
    a.story ??= q;
    a.req ??= q.req;
    a.answered ??= q.answered;
    a.resolved ??= q.resolved;
    a.timeout ??= q.timeout;
    s.attention.add(q.id);
    if (ev === q.answered && ev.cause) {
      const c = this.cmds.get(ev.cause);
      if (c && !c.outcomes.includes(ev)) c.outcomes.push(ev);
    }
  }

  private lifecycle(s: SessionModel, ev: Ev): void {
    if (!s.lastLifecycle || comparePos(posOf(ev), posOf(s.lastLifecycle)) >= 0) s.lastLifecycle = ev;
  }

  private attention(id: string, session: string): Attn {
    let a = this.attn.get(id);
    if (!a) {
      a = { id, session, commands: [], seenPending: false };
      this.attn.set(id, a);
    }
    this.touchedAttn.add(a);
    return a;
  }

  private cmd(id: string, ev?: Ev): CmdState {
    let c = this.cmds.get(id);
    if (!c) {
      c = { id, type: ev?.type ?? '', session: ev?.session ?? '', mine: false, outcomes: [] };
      this.cmds.set(id, c);
    }
    if (ev && !c.cmd) {
      c.cmd = ev;
      c.type = ev.type;
      c.session = ev.session ?? c.session;
      c.subject = ev.subject;
    }
    return c;
  }

  /** Another consumer's command as the relay fans it out (live only: commands are never buffered). */
  private seeCommand(ev: Ev): void {
    const c = this.cmd(ev.id, ev);
    this.linkAttention(c);
    this.attnDirty = true;
    this.touchCmdSession(c);
  }

  private linkAttention(c: CmdState): void {
    if (c.type !== 'control.attention.respond' || !c.subject) return;
    const a = this.attention(c.subject, c.session);
    if (!a.commands.includes(c.id)) a.commands.push(c.id);
  }

  private touchCmdSession(c: CmdState): void {
    const s = c.session ? this.sessions.get(c.session) : undefined;
    if (s) this.touchedSessions.add(s);
  }
}
