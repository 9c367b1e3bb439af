// Budgets with `at_cap: ask` (docs/usage.md "Budgets"): at the cap, the
// next tool call of a session the budget counts is held with a card, an
// attention.requested (kind permission) in the agent's own session: "project
// shop-api has spent $10.02 of $10 today (UTC)" with three options: `finish`
// (this run goes on; the budget asks again in the session's next run),
// `more` (the cap of that scope and window grows by the budget's raise_by:
// x.hookmap.budget.raised on the stream with who allowed it, so every machine
// of a fleet folds the same cap), `stop` (the call is refused as `block`
// refuses it). The answer arrives like any answer (control.attention.respond,
// attention.answered with the sender's principal). Nobody answering (the hold
// times out, the agent hangs up, control is off) is a stop: never an allow.
//
// The decider (instructions.ts) only notes the ask while the firing is
// mapped; the hold opens after the firing's events are logged and is waited
// on outside the daemon's serial queue (as a held permission request is), so
// other sessions' firings go on. Tool calls that reach the same scope while
// its card is open wait on that one card.
import type { AepEvent } from '../../core/map/envelope.ts';
import { answerBindings, renderDecision, type DraftView, type FiringView } from '../../core/map/decide.ts';
import type { MapResult } from '../../core/map/mapper.ts';
import { decidedShape } from '../../core/map/reply-shape.ts';
import { EFFECTS_ATTR, formatEffects } from '../../core/kernel/option-effects.ts';
import { amount } from '../usage/budget-text.ts';
import type { Budget } from '../usage/budget-schema.ts';
import { BUDGET_BLOCKED, type BudgetGate, type BudgetVerdict } from '../usage/budgets.ts';
import { askRule, UNANSWERED } from './asks.ts';
import type { DaemonCore } from './core.ts';
import type { HoldLifecycle } from './hold-lifecycle.ts';
import type { HookReply } from './holds.ts';
import { TYPE } from '../../core/kernel/lifecycle.ts';

/** The hold's pseudo hook name (never a descriptor hook). */
export const BUDGET_HOOK = '@budget';
const META = 'metadata' as const;

interface Noted {
  verdict: BudgetVerdict;
  hook: string;
  session: string;
  run?: string;
  tool: DraftView;
}

/** What became of a card: the option taken (undefined: nobody answered), by whom, and how the hold ended. */
interface Outcome {
  option?: string;
  by?: string;
  request: string;
  how?: string;
}

export class BudgetAsks {
  private noted?: Noted;
  /** budget, scope and window -> the open card's outcome. */
  private readonly cards = new Map<string, Promise<Outcome>>();

  constructor(
    private readonly core: DaemonCore,
    private readonly holds: HoldLifecycle,
    private readonly gate: BudgetGate,
  ) {}

  /** The ask budgets a person let this run pass ("let this run finish": the book's, as said on the stream). */
  skip(session: string, run: string | undefined): ((b: Budget) => boolean) | undefined {
    return this.gate.finishing.passes(session, run) ? (b) => b.atCap === 'ask' : undefined;
  }

  /** The decider's note while the firing is mapped: its tool call is held once its events are logged. */
  note(verdict: BudgetVerdict, view: FiringView, tool: DraftView): void {
    this.noted = { verdict, hook: view.hook, session: view.session, run: view.runBefore ?? view.runAfter, tool };
  }

  /** The note of this firing (its tool call among its events), if any: taken once. */
  take(result: MapResult): Noted | undefined {
    const n = this.noted;
    this.noted = undefined;
    return n && n.session === result.session && result.events.some((e) => e.id === n.tool.id) ? n : undefined;
  }

  /** In the serial queue: the card (or the one already open for the scope); the promise is the hook's reply, waited on outside it. */
  hold(n: Noted, payload: unknown, signal?: AbortSignal): Promise<HookReply> {
    const d = n.verdict.data;
    const key = `${d.budget}\u0000${d.name}\u0000${d.window ?? ''}`;
    let card = this.cards.get(key);
    const mine = !card;
    if (!card) {
      card = this.open(n, signal);
      this.cards.set(key, card);
      void card.finally(() => this.cards.get(key) === card && this.cards.delete(key));
    }
    return card.then((o) => this.core.serial.run(() => this.settle(n, o, payload, mine)));
  }

  private open(n: Noted, signal?: AbortSignal): Promise<Outcome> {
    const { core } = this;
    const b = n.verdict.budget;
    const options = [
      { id: 'finish', label: 'Let this run finish' },
      { id: 'more', label: `Allow ${amount(b.unit, b.raiseBy)} more` },
      { id: 'stop', label: 'Stop' },
    ];
    if (!core.control) {
      core.say(`budget ${b.id} at its cap (ask): nobody can answer (control is off): the call is refused`);
      return Promise.resolve({ request: n.tool.id, how: 'control off' });
    }
    const request = core.events.make({
      type: TYPE.attentionRequested,
      session: n.session,
      run: n.run,
      cause: n.tool.id,
      subject: `budget:${b.id}`,
      data: { kind: 'permission', prompt: `${n.verdict.headline} (budget ${b.id})`, options, respond_via: ['control'] },
      gates: { prompt: META },
    });
    request[EFFECTS_ATTR] = formatEffects({ finish: 'allow', stop: 'deny' });
    const timeoutMs = this.holds.timeoutFor(undefined);
    this.holds.persist(request, timeoutMs);
    if (core.publishChecked([request]).invalid) {
      this.holds.unpersist(request.id);
      return Promise.resolve({ request: n.tool.id, how: 'the card failed its schema check' });
    }
    core.say(`budget ${b.id} at its cap (ask): ${n.hook} of session ${n.session} held with card ${request.id}`);
    const neutral = { body: UNANSWERED, exit: 0, contentType: 'application/json' };
    const rule = askRule(options);
    const held = this.holds.hold(
      { kind: 'permission', hook: BUDGET_HOOK, session: n.session, rule, request, payload: { options }, neutral, timeoutMs },
      signal,
    );
    const h = this.holds.get(request.id);
    return held.then((reply) => {
      const option = reply.body === UNANSWERED ? undefined : (JSON.parse(reply.body) as { option?: string }).option;
      return { option, by: h?.by, request: request.id, how: this.holds.howEnded(request.id) };
    });
  }

  /** The card's answer applied (once, by the firing that opened it) and this firing's reply. */
  private async settle(n: Noted, o: Outcome, payload: unknown, mine: boolean): Promise<HookReply> {
    const { core } = this;
    const neutral = core.neutralReply(n.hook);
    if (o.option === 'finish') {
      if (mine && n.run !== undefined) this.gate.finishing.let(n.verdict.budget.id, n.session, n.run, o.by, o.request); // said on the stream
      return neutral;
    }
    if (o.option === 'more') {
      if (mine) this.gate.raise(n.verdict, o.by, o.request); // said by the book, on the stream and here
      return neutral;
    }
    return this.refuse(n, o, payload, neutral);
  }

  /** Stop, or nobody answered: the agent's own block reply with the budget's reason; the refusal on the stream. */
  private async refuse(n: Noted, o: Outcome, payload: unknown, neutral: HookReply): Promise<HookReply> {
    const { core } = this;
    const entry = core.d.hooks.get(n.hook)?.decide.get('block');
    const v = n.verdict;
    const why = o.option === 'stop' ? `stopped by ${o.by ?? '(no authenticated sender)'}` : `nobody answered (${o.how ?? 'no answer'})`;
    let reply = neutral;
    try {
      if (!entry) throw new Error(`${n.hook} has no block reply`);
      const bind = await answerBindings(core.d, {
        hook: n.hook,
        session: n.session,
        request: { run: n.run },
        payload,
        config: core.config,
        applied: {},
        answer: undefined,
      });
      const body = await renderDecision(entry, { verb: 'block', reason: v.reason, authored: [] }, payload, bind);
      const s = decidedShape(core.d, n.hook, entry);
      reply = { ...core.reply(body, s.exit, s.stream), decided: 'block' };
    } catch (e) {
      core.say(`budget ${v.budget.id}: the block reply of ${n.hook} could not be rendered (${(e as Error).message}): neutral bytes`);
    }
    if (o.how === 'dismissed') return reply; // the session ended or the agent hung up: nothing waits for the call
    const events: AepEvent[] = [];
    const gates = Object.fromEntries([...Object.keys(v.data), 'verb', 'hook', 'answer'].map((k) => [k, META]));
    const data = { ...v.data, verb: 'block', hook: n.hook, answer: o.option === 'stop' ? 'stop' : 'none' };
    try {
      events.push(core.events.make({ type: BUDGET_BLOCKED, session: n.session, run: n.run, cause: o.request, data, gates }));
      const tool = n.tool.data.tool;
      const denied = { tool: tool && typeof tool === 'object' ? tool : { name: n.tool.subject ?? 'unknown' }, by: 'policy' };
      if (reply.decided)
        events.push(core.events.make({ type: TYPE.toolDenied, session: n.session, run: n.run, subject: n.tool.subject, cause: n.tool.id, data: denied }));
      core.publish(events);
    } catch (e) {
      core.say(`budget ${v.budget.id}: the refusal could not be put on the stream: ${(e as Error).message}`);
    }
    core.say(`budget ${v.budget.id}: ${n.hook} of session ${n.session} refused: ${why}`);
    return reply;
  }
}
