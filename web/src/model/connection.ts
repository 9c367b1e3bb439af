// The inbox as an AEP consumer of its relay, on the relay's own bindings:
//
//   summary   SSE (AEP-0003 §3.3): session, run, attention, message,
//             control and usage events of every session, replay-all then live (what
//             the sessions list and the cards need: a few percent of the
//             stream). Read with fetch as a byte stream: a replay of many
//             events arrives in a few large chunks instead of one browser
//             task per event, which is what makes a page over a full relay
//             load fast. After a drop it replays again; the store drops
//             what it already holds.
//   timeline  SSE for the open session: its whole buffer, then live. Every
//             event on it comes from that one subscription, in order, so its
//             last position is exact and a reconnect resumes strictly after
//             it (`from`, AEP-0003 §7): no gap, and nothing twice.
//   watch     the WebSocket (AEP-0003 §3.5, §4; AEP-0004 §4): tool events
//             live (activity), the roster (§4.1: which verbs each session's
//             emitter declares), and every command this page sends with the
//             relay's refusals.
//
// All three reconnect with backoff and authenticate with the inbox's
// HttpOnly cookie (same origin); no token is ever held in script.
import { computed, signal, type ReadonlySignal } from '@preact/signals';
import { isSessionTerminal, opens } from '../../../engine/core/kernel/lifecycle.ts';
import { LIMIT_REACHED } from '../../../engine/core/kernel/limits.ts';
import { makeCommand, type CommandParts, type Ev } from './aep.ts';
import { browserScheduler, measure, now, type ConnectionOptions, type LinkStatus, type Opts, type RosterEntry } from './links.ts';
import { AepSocket } from './socket.ts';
import { SseFeed } from './sse-feed.ts';
import type { CmdState } from './session-model.ts';
import type { Store } from './store.ts';

export type { ConnectionOptions, LinkStatus, RosterEntry, Scheduler } from './links.ts';
export type { SseHandlers } from './sse-feed.ts';

// a session paused on a limit is part of its summary (kernel/limits.ts)
const SUMMARY_TYPES = [
  'session.*',
  'run.*',
  'attention.*',
  'message.*',
  'control.*',
  'x.hookmap.answer.*',
  'x.hookmap.approval.*',
  'x.hookmap.usage.reported',
  LIMIT_REACHED,
];
const DEFAULT_ACK_WINDOW_MS = 10_000;
/** A batch this large is a replay or a flood: the next render waits BULK_GAP_MS for more. */
const BULK = 50;
const BULK_GAP_MS = 150;

export class Connection {
  readonly store: Store;
  readonly roster = signal<Map<string, RosterEntry[]>>(new Map());
  /** The relay routes commands (its hello: control.routing); false = watch-only. */
  readonly routing = signal<boolean | undefined>(undefined);
  /** live when every link in use is. */
  readonly status: ReadonlySignal<LinkStatus>;
  private readonly watch: AepSocket;
  private readonly summary: SseFeed;
  private readonly timeline: SseFeed;
  private readonly o: Opts;
  private readonly instance: string;
  private readonly openSession = signal<string | undefined>(undefined);
  private queue: { ev: Ev; timeline: boolean }[] = [];
  private flushing = false;
  private quietUntil = 0;
  private rosterTimer?: unknown;
  private rosterSeq = 0;
  private ackTimers = new Map<string, unknown>();

  constructor(opts: ConnectionOptions) {
    this.o = { ...opts, scheduler: opts.scheduler ?? browserScheduler };
    this.store = opts.store;
    this.instance = `browser-${Math.random().toString(36).slice(2, 10)}`;
    const stream = (q: Record<string, string>) => `${this.o.base}/stream?${new URLSearchParams(q)}`;
    this.watch = new AepSocket(
      this.o,
      this.instance,
      () => this.watchReady(),
      (m) => this.onWatch(m),
    );
    this.summary = new SseFeed(this.o, 'summary', {
      url: () => stream({ filter: JSON.stringify({ type: SUMMARY_TYPES }), from: 'all' }),
      event: (ev) => this.enqueue(ev, false),
      exhausted: () => {},
      opened: () => {},
    });
    this.timeline = new SseFeed(this.o, 'timeline', {
      url: () => {
        const session = this.openSession.value;
        if (!session) return undefined;
        const at = this.store.sessions.get(session)?.timelinePos;
        // from a position: strictly after it (resume); never seen: everything held for this session
        const from = at ? JSON.stringify([{ session, epoch: at.epoch, seq: at.seq }]) : 'all';
        return stream({ filter: JSON.stringify({ session }), from });
      },
      event: (ev) => this.enqueue(ev, ev.session === this.openSession.value),
      exhausted: (session, earliest) => this.store.exhausted(session, earliest),
      opened: () => {
        const s = this.openSession.value;
        if (s) this.store.markFull(s);
      },
    });
    this.status = computed(() => {
      const parts = [this.watch.status.value, this.summary.status.value];
      if (this.openSession.value) parts.push(this.timeline.status.value);
      return parts.every((p) => p === 'live') ? 'live' : parts.every((p) => p === 'down') ? 'down' : 'connecting';
    });
  }

  start(): void {
    this.watch.start();
    this.summary.start();
    this.timeline.start();
  }

  stop(): void {
    this.watch.stop();
    this.summary.stop();
    this.timeline.stop();
    this.o.scheduler.cancel(this.rosterTimer);
    for (const t of this.ackTimers.values()) this.o.scheduler.cancel(t);
    this.ackTimers.clear();
  }

  nudge(): void {
    this.watch.nudge();
    this.summary.nudge();
    this.timeline.nudge();
  }

  /** Follow one session's whole timeline (or none). */
  openTimeline(session: string | undefined): void {
    if (this.openSession.value === session) return;
    this.flush(); // positions of what already arrived count for the resume
    this.openSession.value = session;
    this.timeline.reopen();
    if (session) this.requestRoster();
  }

  /** Send a command; its state (ack, refusal, outcome) lands in the store. */
  send(type: string, parts: CommandParts): CmdState {
    const cmd = makeCommand(type, parts, this.o.host, this.instance);
    const c = this.store.sent(cmd);
    if (!this.watch.send(cmd)) {
      this.store.refused(cmd.id, 'not-connected', 'the inbox is not connected to the relay; nothing was sent', true);
      return c;
    }
    this.armAck(cmd);
    return c;
  }

  requestRoster(): void {
    this.watch.send({ type: 'roster', id: `r-${++this.rosterSeq}` });
  }

  /** Verbs the live emitter of `session` declares (AEP-0003 §4.1); undefined when none or ambiguous. */
  accepts(session: string): string[] | undefined {
    const entries = this.roster.value.get(session);
    if (!entries || entries.length !== 1) return undefined;
    const a = entries[0].control?.accepts;
    return Array.isArray(a) ? a : [];
  }

  // --- watch connection -------------------------------------------------------------------

  private watchReady(): void {
    this.routing.value = this.watch.hello?.capabilities?.control?.routing !== false;
    this.watch.send({ type: 'subscribe', id: 'act', filter: { type: ['tool.*'] } });
    this.requestRoster();
    // a command still inside its ack window is re-sent with the same id: the target dedupes (AEP-0004 §2.3)
    for (const c of this.store.cmds.values()) {
      if (c.mine && c.cmd && !c.ack && !c.refusal) this.watch.send(c.cmd);
    }
    this.scheduleRoster();
  }

  private onWatch(msg: any): void {
    const t = msg.type;
    if (typeof t !== 'string') return;
    if (t.includes('.')) return this.enqueue(msg as Ev, false);
    if (t === 'error' && typeof msg.cause === 'string') return this.store.refused(msg.cause, String(msg.code ?? 'error'), msg.detail);
    if (t === 'roster' && Array.isArray(msg.entries)) {
      const m = new Map<string, RosterEntry[]>();
      for (const e of msg.entries as RosterEntry[]) {
        if (typeof e?.session !== 'string') continue;
        const list = m.get(e.session) ?? [];
        list.push(e);
        m.set(e.session, list);
      }
      this.roster.value = m;
    }
  }

  // --- shared ---------------------------------------------------------------------------------

  private enqueue(ev: Ev, timeline: boolean): void {
    if (!ev || typeof ev.type !== 'string') return;
    this.queue.push({ ev, timeline });
    if (opens(ev.type) === 'session' || isSessionTerminal(ev.type)) this.scheduleRoster(300);
    if (ev.cause && this.ackTimers.has(ev.cause) && (ev.type === 'control.accepted' || ev.type === 'control.rejected')) {
      this.o.scheduler.cancel(this.ackTimers.get(ev.cause));
      this.ackTimers.delete(ev.cause);
    }
    if (this.flushing) return;
    this.flushing = true;
    // after a bulk batch (a replay), let the next one gather for a moment: one render per burst, not per frame
    const wait = this.quietUntil - now();
    if (wait > 0) this.o.scheduler.after(() => this.o.scheduler.soon(() => this.flush()), wait);
    else this.o.scheduler.soon(() => this.flush());
  }

  /** Everything that arrived since the last frame, applied as one batch (one render). */
  flush(): void {
    this.flushing = false;
    const items = this.queue;
    this.queue = [];
    if (!items.length) return;
    const t = now();
    this.store.applyBatch(items);
    measure('inbox:apply', t, items.length);
    this.quietUntil = items.length >= BULK ? now() + BULK_GAP_MS : 0;
  }

  private armAck(cmd: Ev): void {
    const window = this.roster.value.get(cmd.session ?? '')?.[0]?.control?.ack_window_ms ?? DEFAULT_ACK_WINDOW_MS;
    const timer = this.o.scheduler.after(() => {
      this.ackTimers.delete(cmd.id);
      // AEP-0004 §3: silence past the window is a nack with reason timeout, synthesized by the sender
      this.store.refused(cmd.id, 'timeout', `no acknowledgement within ${Math.round(window / 1000)} s`, true);
    }, window + 2_000);
    this.ackTimers.set(cmd.id, timer);
  }

  private scheduleRoster(ms = 20_000): void {
    this.o.scheduler.cancel(this.rosterTimer);
    this.rosterTimer = this.o.scheduler.after(() => {
      this.requestRoster();
      this.scheduleRoster();
    }, ms);
  }
}
