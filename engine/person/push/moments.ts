// The moments worth reaching a person away from the desk, for every surface
// that does (Web Push, the chat channels): a held request (permission, form,
// tool gate), its settling (answered anywhere, timed out, dismissed), and
// the alerts (a run failed, the agent idle waiting for input, a session
// ended on an error, a turn finished: opt-in). Read off the relay, after the
// hook was held, so nothing here is on a hook's path. One escalation policy
// (engine/person/push/escalation.ts: delay, quiet hours, kinds) and its ladder
// (ladder.ts: which sinks, when, skipped once someone has seen it, read off
// the stream's x.hookmap.attention.seen) decide when each sink hears of a moment; a
// sink that throws or hangs never delays another.
import { basename } from 'node:path';
import type { AepEvent, Relay } from '../../runtime/relay/index.ts';
import { delayFor, escalate, type PushConfig } from './escalation.ts';
import { ladderKind, reaches, SEEN, stepsFor, waitOf, type LadderKind, type Step } from './ladder.ts';
import type { Presence } from './presence.ts';
import type { Door } from './door.ts';
import { ATTENTION_FOLLOWERS, isAttentionTerminal, opens, RESPOND, RUN_TERMINALS, SESSION_TERMINALS, UNITS } from '../../core/kernel/lifecycle.ts';
import { answerOf, requestFate, StoryFold } from '../../core/kernel/fold/index.ts';
import { answerableViaControl } from '../../core/kernel/option-effects.ts';
import { alertKind, BUDGET_ALERTS, informational, singleChoice, WORDS, limitAlert } from './moment-kinds.ts';
import { Sightings } from './sightings.ts';
import { FailureCoalescer } from './coalesce.ts';
import { LIMIT_REACHED, LIMIT_RESUMED } from '../../core/kernel/limits.ts';
import { PARTIAL_TYPE } from '../../runtime/auth/people.ts';

export { alertKind, singleChoice } from './moment-kinds.ts';
export { offersAlways, type Alert, type Moment, type MomentSink, type Settlement } from './moment-types.ts';
import type { Alert, Moment, MomentSink, Settlement } from './moment-types.ts';

/** What moments read: requests and what follows them (the kernel's lifecycle), run and session ends, status. */
const TYPES = [
  ...UNITS.attention.opens,
  ...ATTENTION_FOLLOWERS,
  ...RUN_TERMINALS,
  ...SESSION_TERMINALS,
  'progress.status',
  ...BUDGET_ALERTS,
  LIMIT_REACHED,
  LIMIT_RESUMED,
  SEEN,
  RESPOND,
  PARTIAL_TYPE,
];
const DEFAULT_WINDOW_MS = 55_000;

export interface MomentsOptions {
  relay: Pick<Relay, 'subscribe'>;
  /** What a pending request asks is asked of the daemon holding it, through the relay (door.ts). */
  door: Door;
  config: PushConfig;
  presence: Presence;
  rules: boolean;
  /** Whether an event is the watch's own (engine/person/watch): its cards are shown, answered at the agent. */
  watched?: (ev: AepEvent) => boolean;
  /** Whether an event is hookmap's own record (an up's operator session): only those say someone saw a request. */
  own?: (ev: AepEvent) => boolean;
  say?: (line: string) => void;
  now?: () => number;
}

interface Open {
  m: Moment;
  timers: ReturnType<typeof setTimeout>[];
  /** The sinks told of it (each hears of its settling). */
  told: Set<MomentSink>;
  /** The sinks told for everyone, and the people each was told for by a step with people (a person is told once per sink). */
  toldAll: Set<MomentSink>;
  toldPeople: Map<MomentSink, Set<string>>;
  /** Per sink, what it was last told of this moment: the next waits for it (a card is posted before a second step or the settling edits it). */
  turns: Map<MomentSink, Promise<void>>;
}

export class Moments {
  private readonly sinks: MomentSink[] = [];
  private readonly open = new Map<string, Open>();
  /** Requests whose subject is being asked (door.ts): one settled meanwhile leaves this set and is never pushed. */
  private readonly preparing = new Set<string>();
  /** The stream's one fold (engine/core/kernel/fold): what became of each request is read there. Bounded by its own caps. */
  private readonly fold = new StoryFold({ calls: false });
  private readonly settledHooks: ((id: string) => void)[] = [];
  /** Who has seen each pending request, and each answer's surface (off the stream; a seen may come before its card is shown). */
  private readonly sightings = new Sightings();
  private sub?: { close(): void };
  private readonly now: () => number;
  /** A run that failed on a limit: one alert, the limit's (coalesce.ts). */
  private readonly failures: FailureCoalescer;

  constructor(private readonly o: MomentsOptions) {
    this.now = o.now ?? Date.now;
    this.failures = new FailureCoalescer(this.now);
  }

  add(sink: MomentSink): void {
    this.sinks.push(sink);
  }

  /** Told of every request that settles (its credentials die). */
  onSettled(fn: (id: string) => void): void {
    this.settledHooks.push(fn);
  }

  start(): void {
    this.sub = this.o.relay.subscribe({ filter: { type: TYPES }, live: true }, (ev) => this.onEvent(ev));
  }

  close(): void {
    this.sub?.close();
    for (const r of this.open.values()) r.timers.forEach(clearTimeout);
    this.open.clear();
    this.failures.close();
  }

  isOpen(id: string): boolean {
    return this.open.has(id);
  }

  /** The relay's ack of a command an away surface sent (undefined when none came within `ms`). */
  ack(command: string, ms: number): Promise<AepEvent | undefined> {
    return this.o.door.ack(command, ms);
  }

  private onEvent(ev: AepEvent): void {
    try {
      if (ev.type === SEEN) return void (this.o.own?.(ev) && this.sightings.seen(ev, (id) => this.open.has(id) || !!this.o.door.pending(id)));
      if (ev.type === RESPOND) return this.sightings.command(ev);
      if (ev.type === PARTIAL_TYPE) return this.partial(ev);
      this.fold.add(ev);
      if (opens(ev.type) === 'attention') void this.requested(ev);
      else if (isAttentionTerminal(ev.type)) this.settled(ev);
      else if (!ev.type.startsWith('attention.')) this.alert(ev);
    } catch (e) {
      this.o.say?.(`${ev.type} ${ev.id}: ${(e as Error).message}`);
    }
  }

  private each(fn: (s: MomentSink) => void | Promise<void>, sinks: Iterable<MomentSink> = this.sinks): void {
    for (const s of sinks) {
      try {
        void Promise.resolve(fn(s)).catch((e) => this.o.say?.(`${s.name}: ${(e as Error).message}`));
      } catch (e) {
        this.o.say?.(`${s.name}: ${(e as Error).message}`);
      }
    }
  }

  /** Each sink told of a moment in order: what it is told waits for what it was told before (never for another sink). */
  private inTurn(r: Open, fn: (s: MomentSink) => void | Promise<void>, sinks: Iterable<MomentSink>): void {
    for (const s of sinks) {
      const next = (r.turns.get(s) ?? Promise.resolve()).then(() => fn(s)).catch((e) => this.o.say?.(`${s.name}: ${(e as Error).message}`));
      r.turns.set(s, next);
    }
  }

  private async requested(ev: AepEvent): Promise<void> {
    const d = (ev.data ?? {}) as Record<string, any>;
    const agent = String(ev.agent ?? '');
    const deadline = Date.parse(String(d.expires_at ?? ''));
    const at = { now: new Date(this.now()), inboxVisible: this.o.presence.visible };
    const w = escalate(this.o.config, d.kind === 'form' ? 'question' : 'permission', agent, at);
    if (!w.push || !this.sinks.some((x) => x.reaches?.() ?? true)) return;
    // the watch's "answer at the agent" (AEP-0008: respond_via without control): shown, no buttons, nothing asked.
    // Its words are shown at every capture, so only the watch's own emitter is believed (a forged one is dropped).
    if (d.watch && !answerableViaControl(d)) {
      if (this.o.watched?.(ev)) this.show(informational(ev, d, agent, deadline, this.now()), !at.inboxVisible, Date.parse(ev.time));
      else this.o.say?.(`${ev.id}: a watch attention not from this up's watch: not shown`);
      return;
    }
    // settled while it is asked (an answer at once, a rule): never pushed with buttons that answer nothing
    this.preparing.add(ev.id);
    const s = await this.o.door.ask(undefined, ev.id, agent);
    if (!this.preparing.delete(ev.id)) return;
    const m: Moment = {
      id: ev.id,
      session: String(ev.session ?? ''),
      agent,
      kind: s?.kind ?? (d.kind === 'form' ? 'form' : 'permission'),
      expires: Number.isFinite(deadline) ? deadline : this.now() + DEFAULT_WINDOW_MS,
      tool: s?.tool ?? (typeof ev.subject === 'string' ? ev.subject : undefined),
      project: s?.project ? basename(s.project) : undefined,
      text: s?.command,
      redact: (t) => t,
      // the command crossed redacted: a rule is offered only for one redaction left whole
      rulable: this.o.rules && !!s?.rulable && s.clean !== false,
      paths: s?.paths?.length ?? 0,
      form: s?.form ? singleChoice(s.form) : undefined,
    };
    this.show(m, !at.inboxVisible, Date.parse(ev.time));
  }

  /** The moment's ladder: each step at its time (from the request's `at`) tells the sinks it names (not told yet), unless someone has seen it by then. */
  private show(m: Moment, away: boolean, at: number): void {
    const late = Number.isFinite(at) ? Math.max(0, this.now() - at) : 0; // the time asking the daemon took (a clock ahead of ours: none)
    const r: Open = { m, told: new Set(), toldAll: new Set(), toldPeople: new Map(), turns: new Map(), timers: [] };
    m.seen = this.sightings.of(m.id);
    this.open.set(m.id, r);
    for (const step of this.steps(ladderKind(m.kind), m.agent, m.project)) {
      const fire = () => {
        if (!this.open.has(m.id)) return;
        if (m.seen!.length && !step.evenIfSeen) return; // someone has seen it: this step is skipped
        this.tell(r, step);
      };
      const wait = waitOf(step, away) - late;
      if (wait <= 0) fire();
      else r.timers.push(setTimeout(fire, wait));
    }
  }

  /** A step's sinks hear of the moment: each once for everyone, or once per person a step with people names. */
  private tell(r: Open, step: Step): void {
    for (const x of this.sinks.filter((x) => reaches(step, x.name) && !r.toldAll.has(x))) {
      if (!step.people) {
        r.told.add(x);
        r.toldAll.add(x);
        this.inTurn(r, (sink) => sink.request(r.m), [x]);
        continue;
      }
      const had = r.toldPeople.get(x) ?? new Set<string>();
      const people = step.people.filter((p) => !had.has(p));
      if (!people.length) continue;
      for (const p of people) had.add(p);
      r.toldPeople.set(x, had);
      r.told.add(x);
      this.inTurn(r, (sink) => sink.request(r.m, { people }), [x]);
    }
  }

  /** A first allow of a request two people must allow (the holding daemon's record, in the request's session): every card says so. */
  private partial(ev: AepEvent): void {
    const r = this.open.get(String(ev.subject ?? ''));
    const d = (ev.data ?? {}) as { by?: unknown; need?: unknown };
    if (!r || ev.session !== r.m.session || !Array.isArray(d.by) || typeof d.need !== 'number') return;
    const by = d.by.filter((x): x is string => typeof x === 'string').map((x) => x.slice(0, 64));
    r.m.partial = `${by.length} of ${d.need}, allowed by ${by.join(', ')}`;
    this.inTurn(r, (sink) => sink.updated?.(r.m), r.told);
  }

  private steps(kind: LadderKind, agent: string, project: string | undefined): Step[] {
    return stepsFor(this.o.config.ladder, kind, agent, project, delayFor(this.o.config, agent));
  }

  private settled(ev: AepEvent): void {
    const id = String(ev.subject ?? ev.cause ?? '');
    this.preparing.delete(id);
    this.sightings.settled(id);
    for (const fn of this.settledHooks) fn(id);
    const r = this.open.get(id);
    if (!r) return;
    this.open.delete(id);
    r.timers.forEach(clearTimeout); // the first answer anywhere: the pending steps never fire
    const q = this.fold.request(ev, id);
    const fate = q ? requestFate(q) : undefined;
    const a = q ? answerOf(q) : undefined;
    const s: Settlement =
      r.m.kind === 'watch'
        ? { how: 'dismissed', text: 'The agent moved on' }
        : fate === 'timed-out'
          ? { how: 'timed out', text: 'Timed out: the agent decided by its own rules' }
          : a?.inAgentDialog || fate === 'dismissed'
            ? { how: 'dismissed', text: 'Answered in the terminal' }
            : a?.by
              ? { how: 'answered', by: a.by, text: `Answered by ${a.by}${this.sightings.answeredVia(a.by, a.event.cause)}` }
              : { how: 'answered', text: 'Settled' };
    this.inTurn(r, (sink) => sink.settled(r.m, s), r.told);
  }

  private alert(ev: AepEvent): void {
    const kind = alertKind(ev);
    if (!kind) return;
    const limit = kind === 'limit' ? limitAlert(ev) : undefined; // a resumption is hookmap's event about an agent's session
    const agent = limit?.agent ?? String(ev.agent ?? '');
    const w = escalate(this.o.config, kind, agent, { now: new Date(this.now()), inboxVisible: this.o.presence.visible });
    if (!w.push) return;
    // a budget's own words (engine/runtime/usage/budgets.ts: labels and amounts, metadata): "project shop-api has spent $10.02 of $10.00 today ..."
    const said = kind === 'budget' ? String((ev.data as Record<string, unknown> | undefined)?.text ?? '').slice(0, 300) : '';
    const a: Alert = { kind, agent, session: limit ? limit.session : ev.session, title: limit?.title ?? (said || `${agent}: ${WORDS[kind]}`) };
    if (kind === 'run_failed') return this.failures.failed(a.session, () => this.fire(a));
    if (ev.type === LIMIT_REACHED) this.failures.limit(a.session);
    this.fire(a);
  }

  private fire(a: Alert): void {
    const away = !this.o.presence.visible;
    for (const step of this.steps(a.kind, a.agent, undefined)) {
      const fire = () =>
        this.each(
          (sink) => sink.alert(a),
          this.sinks.filter((x) => reaches(step, x.name)),
        );
      const wait = waitOf(step, away);
      if (wait === 0) fire();
      else setTimeout(fire, wait).unref?.();
    }
  }
}
