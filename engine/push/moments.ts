// The moments worth reaching a person away from the desk, for every surface
// that does (Web Push, the chat channels): a held request (permission, form,
// tool gate), its settling (answered anywhere, timed out, dismissed), and
// the alerts (a run failed, the agent idle waiting for input, a session
// ended on an error, a turn finished: opt-in). Read off the relay, after the
// hook was held, so nothing here is on a hook's path. One escalation policy
// (engine/push/escalation.ts: delay, quiet hours, kinds) decides when each
// sink hears of a moment; a sink that throws or hangs never delays another.
import { basename } from 'node:path';
import type { AepEvent, Relay } from '../relay/index.ts';
import { escalate, type PushConfig } from './escalation.ts';
import { alwaysShown, type AlertKind } from './payload.ts';
import type { CaptureLevel } from '../aep/schemas.ts';
import type { Presence } from './presence.ts';
import type { Door } from './door.ts';
import { ATTENTION_FOLLOWERS, isAttentionTerminal, isSessionTerminal, opens, RUN_TERMINALS, runEnd, SESSION_TERMINALS, UNITS } from '../kernel/lifecycle.ts';
import { answerOf, requestFate, StoryFold } from '../kernel/fold/index.ts';
import { answerableViaControl } from '../kernel/option-effects.ts';
import { BUDGET_REACHED, BUDGET_WARNED } from '../usage/budgets.ts';

const BUDGET_ALERTS = [BUDGET_WARNED, BUDGET_REACHED]; // a budget's warning and its cap reached: alerts of their own kind

export interface Moment {
  id: string;
  session: string;
  agent: string;
  kind: 'permission' | 'form' | 'gate' | 'watch'; // watch: informational (AEP-0008 respond_via without control), never answered here
  words?: string; // what the watch says to do (kind watch)
  /** Epoch ms the request stops waiting. */
  expires: number;
  tool?: string;
  /** The project folder's name (never its path). */
  project?: string;
  /** The command or question text as the holding daemon redacted it (door.ts): a sink shows it only above metadata, through `redact`. */
  text?: string;
  /** Redaction for what the sink shows (the text came redacted already). */
  redact: (s: string) => string;
  /** Whether rules can be made from it ("Allow always"); a surface offers it only where alwaysShown (payload.ts) says it shows what the rule covers. */
  rulable: boolean;
  /** How many paths the request names (a rule for them is made where they are shown). */
  paths: number;
  /** A form of one single-choice question whose labels are real text (the stream's capture is redacted or above): its choices, answerable as buttons. */
  form?: { field: string; question?: string; choices: { id: string; label: string }[] };
}

/** Whether a surface at this capture offers "Allow always" for the moment: only where it shows all the rule would cover. */
export const offersAlways = (m: Moment, capture: CaptureLevel): boolean => m.rulable && alwaysShown({ text: m.text, paths: m.paths }, capture, m.redact);

export interface Settlement {
  how: 'answered' | 'timed out' | 'dismissed';
  /** Who answered (a principal, `rule:<id>`), when someone did. */
  by?: string;
  /** Said in place of the card's buttons. */
  text: string;
}

export interface Alert {
  kind: AlertKind;
  agent: string;
  session?: string;
  title: string;
}

export interface MomentSink {
  readonly name: string;
  /** Whether it reaches anyone now (Web Push: a device is registered); absent: yes. Nobody reached: nothing is asked of the agent. */
  reaches?(): boolean;
  request(m: Moment): void | Promise<void>;
  settled(m: Moment, s: Settlement): void | Promise<void>;
  alert(a: Alert): void | Promise<void>;
}

/** What moments read: requests and what follows them (the kernel's lifecycle), run and session ends, status. */
const TYPES = [...UNITS.attention.opens, ...ATTENTION_FOLLOWERS, ...RUN_TERMINALS, ...SESSION_TERMINALS, 'progress.status', ...BUDGET_ALERTS];
const DEFAULT_WINDOW_MS = 55_000;
/** An informational request declares no deadline: its card stands this long at most unless settled. */
const INFORMATIONAL_MS = 24 * 3_600_000;
const WORDS: Record<AlertKind, string> = {
  permission: 'is waiting for you',
  question: 'has a question',
  run_failed: 'a run failed',
  idle: 'is waiting for your input',
  session_error: 'the session ended on an error',
  turn_finished: 'finished its turn',
  budget: 'a budget',
};

/** A form a chat can answer with one button per choice: one single-select field, at most 8 choices, labels real (never placeholders). */
export function singleChoice(view: {
  kind: string;
  labelsReal: boolean;
  fields?: { id: string; type: string; label?: string; multi?: boolean; choices?: { id: string; label?: string }[] }[];
}): Moment['form'] {
  const f = view.fields;
  if (view.kind !== 'form' || !view.labelsReal || f?.length !== 1) return undefined;
  const q = f[0];
  if (q.type !== 'select' || q.multi || !q.choices?.length || q.choices.length > 8 || q.choices.some((c) => !c.label)) return undefined;
  return { field: q.id, question: q.label, choices: q.choices.map((c) => ({ id: c.id, label: c.label! })) };
}

/** Which opt-in alert an event is, if any. */
export function alertKind(ev: AepEvent): AlertKind | undefined {
  const d = (ev.data ?? {}) as Record<string, unknown>;
  const end = runEnd(ev.type);
  if (end === 'failed') return 'run_failed';
  if (end === 'finished') return 'turn_finished';
  if (isSessionTerminal(ev.type)) return d.reason === 'error' ? 'session_error' : undefined;
  if (ev.type === 'progress.status' && (ev.subject === 'idle_prompt' || d.status === 'idle')) return 'idle';
  if (BUDGET_ALERTS.includes(ev.type)) return 'budget';
  return undefined;
}

export interface MomentsOptions {
  relay: Pick<Relay, 'subscribe'>;
  /** What a pending request asks is asked of the daemon holding it, through the relay (door.ts). */
  door: Door;
  config: PushConfig;
  presence: Presence;
  rules: boolean;
  /** Whether an event is the watch's own (engine/watch): its cards are shown, answered at the agent. */
  watched?: (ev: AepEvent) => boolean;
  say?: (line: string) => void;
  now?: () => number;
}

interface Open {
  m: Moment;
  timer?: ReturnType<typeof setTimeout>;
  /** The sinks told of it (each hears of its settling). */
  told: Set<MomentSink>;
}

export class Moments {
  private readonly sinks: MomentSink[] = [];
  private readonly open = new Map<string, Open>();
  /** Requests whose subject is being asked (door.ts): one settled meanwhile leaves this set and is never pushed. */
  private readonly preparing = new Set<string>();
  /** The stream's one fold (engine/kernel/fold): what became of each request is read there. Bounded by its own caps. */
  private readonly fold = new StoryFold({ calls: false });
  private readonly settledHooks: ((id: string) => void)[] = [];
  private sub?: { close(): void };
  private readonly now: () => number;

  constructor(private readonly o: MomentsOptions) {
    this.now = o.now ?? Date.now;
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
    for (const r of this.open.values()) if (r.timer) clearTimeout(r.timer);
    this.open.clear();
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
      if (this.o.watched?.(ev)) this.show(this.informational(ev, d, agent, deadline), w.afterMs);
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
    this.show(m, w.afterMs);
  }

  private informational(ev: AepEvent, d: Record<string, any>, agent: string, deadline: number): Moment {
    const about = d.watch && typeof d.watch === 'object' ? (d.watch as Record<string, unknown>) : {};
    const s = (v: unknown) => (typeof v === 'string' && v ? v.slice(0, 200) : undefined);
    return {
      id: ev.id,
      session: s(about.session) ?? String(ev.session ?? ''),
      agent: s(about.agent) ?? agent,
      kind: 'watch',
      words: s(d.prompt) ?? '',
      expires: Number.isFinite(deadline) ? deadline : this.now() + INFORMATIONAL_MS,
      tool: s(about.tool),
      project: s(about.project),
      redact: (t) => t,
      rulable: false,
      paths: 0,
    };
  }

  private show(m: Moment, afterMs: number): void {
    const r: Open = { m, told: new Set() };
    this.open.set(m.id, r);
    const fire = () => {
      r.timer = undefined;
      if (!this.open.has(m.id)) return;
      for (const sink of this.sinks) r.told.add(sink);
      this.each((sink) => sink.request(m));
    };
    if (afterMs === 0) fire();
    else r.timer = setTimeout(fire, afterMs);
  }

  private settled(ev: AepEvent): void {
    const id = String(ev.subject ?? ev.cause ?? '');
    this.preparing.delete(id);
    for (const fn of this.settledHooks) fn(id);
    const r = this.open.get(id);
    if (!r) return;
    this.open.delete(id);
    if (r.timer) clearTimeout(r.timer);
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
              ? { how: 'answered', by: a.by, text: `Answered by ${a.by}` }
              : { how: 'answered', text: 'Settled' };
    this.each((sink) => sink.settled(r.m, s), r.told);
  }

  private alert(ev: AepEvent): void {
    const kind = alertKind(ev);
    if (!kind) return;
    const agent = String(ev.agent ?? '');
    const w = escalate(this.o.config, kind, agent, { now: new Date(this.now()), inboxVisible: this.o.presence.visible });
    if (!w.push) return;
    // a budget's own words (engine/usage/budgets.ts: labels and amounts, metadata): "project shop-api has spent $10.02 of $10.00 today ..."
    const said = kind === 'budget' ? String((ev.data as Record<string, unknown> | undefined)?.text ?? '').slice(0, 300) : '';
    const a: Alert = { kind, agent, session: ev.session, title: said || `${agent}: ${WORDS[kind]}` };
    if (w.afterMs === 0) this.each((sink) => sink.alert(a));
    else setTimeout(() => this.each((sink) => sink.alert(a)), w.afterMs).unref?.();
  }
}
