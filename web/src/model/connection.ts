// The inbox as an AEP consumer of its relay, on the relay's own bindings:
//
//   summary   SSE (AEP-0003 §3.3): session, run, attention, message and
//             control events of every session, replay-all then live (what
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
import { AEP_VERSION, makeCommand, type CommandParts, type Ev, type Position } from './aep.ts';
import type { CmdState, Store } from './store.ts';

export type LinkStatus = 'connecting' | 'live' | 'down';

export interface RosterEntry {
  session: string;
  agent?: string;
  instance?: string;
  control?: { accepts?: string[]; ack_window_ms?: number };
}

export interface Scheduler {
  /** Run `fn` soon, batched with other work (a frame when visible). */
  soon(fn: () => void): void;
  after(fn: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
}

export interface ConnectionOptions {
  /** The relay's base URL, this page's origin (http(s)://host). */
  base: string;
  /** The page's host, for command `source` URIs. */
  host: string;
  store: Store;
  /** A link failed and the session cookie may be gone: the app checks and shows the login. */
  onFailure?: () => void;
  scheduler?: Scheduler;
  WebSocketImpl?: typeof WebSocket;
  fetchImpl?: typeof fetch;
}

const SUMMARY_TYPES = ['session.*', 'run.*', 'attention.*', 'message.*', 'control.*', 'x.hookmap.answer.*'];
const DEFAULT_ACK_WINDOW_MS = 10_000;
/** A batch this large is a replay or a flood: the next render waits BULK_GAP_MS for more. */
const BULK = 50;
const BULK_GAP_MS = 150;
/** The relay sends an SSE comment at least every 30 s (AEP-0003 §3.3); silence past this is a dead stream. */
const SSE_SILENCE_MS = 45_000;

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/** User Timing entries (visible in the browser's performance tools and to the browser tests). */
function measure(name: string, start: number, items: number): void {
  if (typeof performance === 'undefined' || typeof performance.measure !== 'function') return;
  try {
    performance.measure(name, { start, end: now(), detail: { items } });
  } catch {
    // an old browser without the options form: no timing, nothing else changes
  }
}

const browserScheduler: Scheduler = {
  soon(fn) {
    if (typeof document !== 'undefined' && !document.hidden && typeof requestAnimationFrame === 'function') requestAnimationFrame(() => fn());
    else setTimeout(fn, 50);
  },
  after: (fn, ms) => setTimeout(fn, ms),
  cancel: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

type Opts = ConnectionOptions & { scheduler: Scheduler };

/** Backoff shared by the links: 250 ms doubling to 4 s, reset by a success. */
class Backoff {
  private ms = 250;
  next(): number {
    const v = this.ms;
    this.ms = Math.min(this.ms * 2, 4_000);
    return v;
  }
  reset(): void {
    this.ms = 250;
  }
}

/** One WebSocket with the hello exchange, liveness answers and reconnect. */
class AepSocket {
  readonly status = signal<LinkStatus>('connecting');
  hello: any;
  private ws?: WebSocket;
  private readonly backoff = new Backoff();
  private retry?: unknown;
  private stopped = true;
  private openedAt = 0;

  constructor(
    private readonly o: Opts,
    private readonly instance: string,
    private readonly onReady: () => void,
    private readonly onMessage: (msg: any) => void,
  ) {}

  start(): void {
    this.stopped = false;
    if (!this.ws) this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.o.scheduler.cancel(this.retry);
    const ws = this.ws;
    this.ws = undefined;
    if (ws && ws.readyState <= 1) ws.close(1000, 'inbox closed');
    this.status.value = 'down';
  }

  /** Reconnect now (the page became visible, the network came back). */
  nudge(): void {
    if (this.stopped || this.ws) return;
    this.o.scheduler.cancel(this.retry);
    this.backoff.reset();
    this.connect();
  }

  send(msg: unknown): boolean {
    if (this.status.value !== 'live' || !this.ws || this.ws.readyState !== 1) return false;
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
    return true;
  }

  private connect(): void {
    const WS = this.o.WebSocketImpl ?? WebSocket;
    this.status.value = 'connecting';
    let ws: WebSocket;
    try {
      ws = new WS(`${this.o.base.replace(/^http/, 'ws')}/socket`);
    } catch {
      return this.down();
    }
    this.ws = ws;
    this.openedAt = now();
    ws.onopen = () => {
      ws.send(
        JSON.stringify({
          type: 'hello',
          versions: [AEP_VERSION],
          role: 'consumer',
          identity: { agent: 'hookmap-inbox', instance: this.instance },
          capabilities: {},
        }),
      );
    };
    ws.onmessage = (m) => {
      let msg: any;
      try {
        msg = JSON.parse(String(m.data));
      } catch {
        return;
      }
      if (!msg || typeof msg !== 'object') return;
      if (msg.type === 'ping') {
        ws.send(JSON.stringify({ type: 'pong', t: msg.t })); // AEP-0003 §3.5 rule 5
        return;
      }
      if (!this.hello) {
        if (msg.type !== 'hello') return;
        this.hello = msg;
        measure('inbox:hello', this.openedAt, 0);
        this.backoff.reset();
        this.status.value = 'live';
        this.onReady();
        return;
      }
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      this.down();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  private down(): void {
    this.hello = undefined;
    this.status.value = this.stopped ? 'down' : 'connecting';
    if (this.stopped) return;
    this.o.onFailure?.();
    this.retry = this.o.scheduler.after(() => {
      if (!this.ws && !this.stopped) this.connect();
    }, this.backoff.next());
  }
}

export interface SseHandlers {
  /** The URL to open now (it carries the resume position); undefined: nothing to follow. */
  url(): string | undefined;
  event(ev: Ev): void;
  exhausted(session: string, earliest: Position): void;
  opened(): void;
}

/** One SSE subscription read with fetch (AEP-0003 §3.3), reopened after a drop. */
class SseFeed {
  readonly status = signal<LinkStatus>('down');
  private ctl?: AbortController;
  private gen = 0;
  private readonly backoff = new Backoff();
  private retry?: unknown;
  private stopped = true;

  constructor(
    private readonly o: Opts,
    private readonly name: string,
    private readonly h: SseHandlers,
  ) {}

  start(): void {
    this.stopped = false;
    if (!this.ctl) this.open();
  }

  stop(): void {
    this.stopped = true;
    this.o.scheduler.cancel(this.retry);
    this.ctl?.abort();
    this.ctl = undefined;
    this.gen++;
    this.status.value = 'down';
  }

  /** Drop the current stream and open the one `url()` names now. */
  reopen(): void {
    if (this.stopped) return;
    this.o.scheduler.cancel(this.retry);
    this.ctl?.abort();
    this.ctl = undefined;
    this.gen++;
    this.backoff.reset();
    this.open();
  }

  nudge(): void {
    if (this.stopped || this.ctl) return;
    this.reopen();
  }

  private open(): void {
    const url = this.h.url();
    if (!url) {
      this.status.value = 'down';
      return;
    }
    const gen = ++this.gen;
    const ctl = new AbortController();
    this.ctl = ctl;
    this.status.value = 'connecting';
    const t = now();
    void this.read(url, gen, ctl, t).then(
      (why) => this.ended(gen, why),
      () => this.ended(gen, 'error'),
    );
  }

  private async read(url: string, gen: number, ctl: AbortController, t: number): Promise<string> {
    const f = this.o.fetchImpl ?? fetch;
    const res = await f(url, { headers: { accept: 'text/event-stream' }, credentials: 'same-origin', cache: 'no-store', signal: ctl.signal });
    if (!res.ok || !res.body) return `http ${res.status}`;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    let data: string | undefined;
    let silence: unknown;
    const arm = () => {
      this.o.scheduler.cancel(silence);
      silence = this.o.scheduler.after(() => ctl.abort(), SSE_SILENCE_MS);
    };
    arm();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || gen !== this.gen) return 'ended';
        arm();
        if (this.status.value !== 'live') {
          this.status.value = 'live';
          this.backoff.reset();
          measure(`inbox:${this.name}-open`, t, 0);
          this.h.opened();
        }
        buf += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.charCodeAt(nl - 1) === 13 ? buf.slice(0, nl - 1) : buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line === '') {
            if (data !== undefined) {
              try {
                this.h.event(JSON.parse(data));
              } catch {
                // a malformed event costs that event only
              }
            }
            data = undefined;
          } else if (line.charCodeAt(0) === 58 /* ':' */) {
            const m = /^: replay-exhausted (.+) (\d+):(\d+)$/.exec(line);
            if (m) this.h.exhausted(m[1], { epoch: Number(m[2]), seq: Number(m[3]) });
          } else if (line.startsWith('data:')) {
            const v = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
            data = data === undefined ? v : `${data}\n${v}`;
          }
        }
      }
    } finally {
      this.o.scheduler.cancel(silence);
      reader.cancel().catch(() => {});
    }
  }

  private ended(gen: number, why: string): void {
    if (gen !== this.gen) return; // replaced or stopped on purpose
    this.ctl = undefined;
    if (this.stopped) return;
    this.status.value = 'connecting';
    if (why !== 'ended') this.o.onFailure?.();
    this.retry = this.o.scheduler.after(() => {
      if (!this.ctl && !this.stopped) this.open();
    }, this.backoff.next());
  }
}

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
    if (ev.type === 'session.started' || ev.type === 'session.ended') this.scheduleRoster(300);
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
