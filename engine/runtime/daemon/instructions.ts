// What a daemon carries on its agent's next eligible hook reply: the
// per-session FIFO of accepted delivered commands (steering instructions,
// cancels) and the operator's policy rules, combined into one Decider for
// the mapper (engine/core/map/decide.ts). Every step is on the stream: a delivery
// authors `x.<vendor>.instruction.delivered` (cause = the command), a session
// that ends with instructions queued authors `x.<vendor>.instruction.dropped`
// per instruction, a delivered cancel authors `run.cancelled` (by control),
// a policy decision `x.<vendor>.policy.applied`. The steering design record
// (control-steering-design.md: queueing, cap, eligibility, audit events);
// AEP-0004 §5-§6 (outcomes cause-linked to the command).
import type { CompiledCommand, CompiledHook, Verb } from '../../core/descriptor/types.ts';
import { evaluate } from '../../core/expr/compile.ts';
import type { Authored, Decider, Decision, FiringView } from '../../core/map/decide.ts';
import type { Policy, PolicyRule } from '../policy/policy.ts';
import type { BudgetGate } from '../usage/budgets.ts';
import type { BudgetAsks } from './budget-asks.ts';
import { BUDGET_BLOCKED } from '../usage/budgets.ts';
import { TYPE, opens } from '../../core/kernel/lifecycle.ts';

/** One accepted command waiting for a hook reply that can carry it. */
export interface Queued {
  id: string;
  source: string;
  spec: CompiledCommand;
  /** deliver context: the instruction. */
  text?: string;
  /** deliver cancel: the run it stops, and why. */
  run?: string;
  reason?: string;
  /** When it was accepted (queued_ms on delivery). */
  at: number;
}

export class InstructionQueue {
  private readonly bySession = new Map<string, Queued[]>();

  constructor(private readonly maxSessions = 10_000) {}

  list(session: string): readonly Queued[] {
    return this.bySession.get(session) ?? [];
  }

  count(session: string, type: string): number {
    return this.list(session).filter((q) => q.spec.type === type).length;
  }

  add(session: string, q: Queued): void {
    const list = this.bySession.get(session) ?? [];
    list.push(q);
    this.bySession.delete(session);
    this.bySession.set(session, list);
    // a daemon never holds queues for more sessions than its engine state remembers
    while (this.bySession.size > this.maxSessions) this.bySession.delete(this.bySession.keys().next().value as string);
  }

  /** Put commands back at the head of the session's queue (a carrier that could not deliver them). */
  unshift(session: string, items: readonly Queued[]): void {
    if (!items.length) return;
    this.bySession.set(session, [...items, ...this.list(session)]);
  }

  remove(session: string, items: readonly Queued[]): void {
    const left = this.list(session).filter((q) => !items.includes(q));
    if (left.length) this.bySession.set(session, left);
    else this.bySession.delete(session);
  }

  /** Every queued command, by session (a stopping daemon drops them, audited). */
  all(): [string, readonly Queued[]][] {
    return [...this.bySession];
  }
}

export interface DeciderOptions {
  vendor: string;
  queue: InstructionQueue;
  /** The policy in force now (it may be swapped while the daemon runs). */
  policy: () => Policy | undefined;
  /** Spending caps (engine/runtime/usage/budgets.ts): one at its cap refuses the next tool call (a cancel where the hook cannot block). */
  budgets?: BudgetGate;
  /** No hook of the agent can refuse a tool call: a budget at its cap cancels the run instead. */
  budgetCancels?: boolean;
  /** `at_cap: ask` (budget-asks.ts): which budgets a run may pass, and the note that holds a tool call with a card. */
  budgetAsks?: Pick<BudgetAsks, 'skip' | 'note'>;
  now: () => number;
  /** A rule whose `when` or `reason` failed on an event: reported, never fatal. */
  say?: (line: string) => void;
}

const METADATA = 'metadata' as const;

/** The audit event of an instruction or cancel that never reached the agent. */
export function droppedEvent(vendor: string, q: Queued, reason: string): Authored {
  const what = q.spec.deliver === 'cancel' ? 'cancel' : 'instruction';
  return { type: `x.${vendor}.${what}.dropped`, cause: q.id, data: { reason }, gates: { reason: METADATA } };
}

/**
 * The daemon's Decider: a session ending drops what is queued; a queued
 * cancel rides the first reply that can stop the run it addresses; else the
 * first policy rule that matches an event of the firing decides; else queued
 * instructions ride a reply that can carry context, joined in arrival order
 * within the agent's cap. A held firing never gets here (the mapper).
 */
export function makeDecider(o: DeciderOptions): Decider {
  const fired = new Map<string, number>(); // session\0run\0rule -> times a policy rule decided
  return async (view: FiringView): Promise<Decision | undefined> => {
    const items = o.queue.list(view.session);
    const authored: Authored[] = [];
    const consumed: Queued[] = [];
    const commit = () => o.queue.remove(view.session, consumed);
    if (view.endsSession) {
      for (const q of items) authored.push(droppedEvent(o.vendor, q, 'session-ended'));
      consumed.push(...items);
      return items.length ? { authored, commit } : undefined;
    }
    let decision: Decision | undefined;
    for (const q of items.filter((x) => x.spec.deliver === 'cancel')) {
      if (q.run !== view.runBefore || view.closesRun) {
        // the run it addressed ended before a reply could stop it
        authored.push(droppedEvent(o.vendor, q, 'run-ended'));
        consumed.push(q);
      } else if (!decision && view.verbs.has('cancel')) {
        const reason = q.reason ?? 'cancelled over hookmap';
        decision = { verb: 'cancel', reason, authored };
        authored.push({ type: TYPE.runCancelled, cause: q.id, data: { by: 'control', reason }, closesRun: true });
        consumed.push(q);
      }
    }
    if (!decision) decision = budgetDecision(o, view, authored);
    if (!decision) decision = await policyDecision(o, view, fired, authored);
    if (!decision && view.verbs.has('context')) {
      const instructions = items.filter((x) => x.spec.deliver === 'context');
      const taken: Queued[] = [];
      let length = 0;
      for (const q of instructions) {
        const add = chars(q.text!) + (taken.length ? 2 : 0);
        const cap = q.spec.maxChars ?? Number.POSITIVE_INFINITY;
        if (taken.length && length + add > cap) break; // the rest rides a later reply
        taken.push(q);
        length += add;
      }
      if (taken.length) {
        const now = o.now();
        for (const q of taken)
          authored.push({
            type: `x.${o.vendor}.instruction.delivered`,
            cause: q.id,
            data: { queued_ms: Math.max(0, Math.round(now - q.at)), hook: view.hook, carrier: 'hook-reply' },
            gates: { queued_ms: METADATA, hook: METADATA, carrier: METADATA },
          });
        consumed.push(...taken);
        decision = { verb: 'context', text: taken.map((q) => q.text).join('\n\n'), authored };
      }
    }
    if (!decision && !authored.length) return undefined;
    decision ??= { authored };
    const own = decision.commit;
    decision.commit = () => {
      commit();
      own?.();
    };
    return decision;
  };
}

/** A budget at its cap: a firing that asks for a tool call is refused (block), else a run it can stop is cancelled. */
function budgetDecision(o: DeciderOptions, view: FiringView, authored: Authored[]): Decision | undefined {
  if (!o.budgets) return undefined;
  const tool = view.events.find((e) => opens(e.type) === 'tool');
  const verb =
    tool && view.verbs.has('block')
      ? 'block'
      : o.budgetCancels && view.verbs.has('cancel') && view.runBefore !== undefined && !view.closesRun
        ? 'cancel'
        : undefined;
  if (!verb) return undefined;
  const v = o.budgets.verdict(view.agent, view.session, o.budgetAsks?.skip(view.session, view.runBefore));
  if (!v) return undefined;
  // ask: the reply stays neutral while the firing is mapped; the daemon holds it with a card once its events are logged
  if (v.budget.atCap === 'ask' && verb === 'block' && tool && o.budgetAsks) {
    o.budgetAsks.note(v, view, tool);
    return { authored };
  }
  const cause = (tool ?? view.events[0])?.id;
  const gates = Object.fromEntries(Object.keys(v.data).map((k) => [k, METADATA]));
  authored.push({ type: BUDGET_BLOCKED, cause, data: { ...v.data, verb, hook: view.hook }, gates: { ...gates, verb: METADATA, hook: METADATA } });
  if (verb === 'cancel') authored.push({ type: TYPE.runCancelled, cause, data: { by: 'policy', reason: v.reason }, closesRun: true });
  return { verb, reason: v.reason, authored };
}

/**
 * A block rule of `policy` that could apply to a firing of `hook` (its agent, and a type the hook can emit or its
 * block decision replaces them with: a type written as an expression could be any), for a firing nobody could read.
 */
export function blockRuleFor(policy: Policy | undefined, agent: string, hook: CompiledHook): PolicyRule | undefined {
  const emits = [...hook.emit, ...(hook.decide.get('block')?.emit ?? [])];
  const dynamic = emits.some((e) => e.typeText !== e.type);
  return policy?.rules.find((r) => r.decide === 'block' && (!r.agents || r.agents.has(agent)) && (dynamic || emits.some((e) => r.on.has(e.type))));
}

async function policyDecision(o: DeciderOptions, view: FiringView, fired: Map<string, number>, authored: Authored[]): Promise<Decision | undefined> {
  const policy = o.policy();
  if (!policy) return undefined;
  for (const rule of policy.rules) {
    if (rule.agents && !rule.agents.has(view.agent)) continue;
    if (!view.verbs.has(rule.decide)) continue;
    if (rule.decide === 'cancel' && view.runBefore === undefined) continue;
    const key = `${view.session}\u0000${view.runBefore ?? ''}\u0000${rule.id}`;
    if (rule.maxPerRun !== undefined && (fired.get(key) ?? 0) >= rule.maxPerRun) continue;
    const b = { agent: view.agent, hook: view.hook, session: view.session, run: view.runBefore };
    for (const ev of view.events) {
      if (!rule.on.has(ev.type)) continue;
      try {
        if (rule.when && !(await evaluate(rule.when, ev, b))) continue;
        const said = 'literal' in rule.say ? rule.say.literal : await evaluate(rule.say.expr, ev, b);
        if (typeof said !== 'string' || said.trim() === '')
          throw new Error(`${rule.decide === 'context' ? 'text' : 'reason'} evaluated to ${JSON.stringify(said)}`);
        return applied(o, rule, policy, view, ev.id, said, fired, key, authored);
      } catch (e) {
        o.say?.(`policy rule ${rule.id} could not be evaluated on ${ev.type} (${view.hook}): ${(e as Error).message}; skipped`);
      }
    }
  }
  return undefined;
}

function applied(
  o: DeciderOptions,
  rule: PolicyRule,
  policy: Policy,
  view: FiringView,
  cause: string,
  said: string,
  fired: Map<string, number>,
  key: string,
  authored: Authored[],
): Decision {
  authored.push({
    type: `x.${o.vendor}.policy.applied`,
    cause,
    data: { rule: rule.id, verb: rule.decide, policy: policy.digest, hook: view.hook },
    gates: { rule: METADATA, verb: METADATA, policy: METADATA, hook: METADATA },
  });
  if (rule.decide === 'cancel') authored.push({ type: TYPE.runCancelled, cause, data: { by: 'policy', reason: said }, closesRun: true });
  const verb: Verb = rule.decide;
  return {
    verb,
    ...(verb === 'context' ? { text: said } : { reason: said }),
    authored,
    commit: () => {
      const n = (fired.get(key) ?? 0) + 1;
      fired.delete(key);
      fired.set(key, n);
      while (fired.size > 10_000) fired.delete(fired.keys().next().value as string);
    },
  };
}

/** Characters as a person counts them (code points), the unit vendors state caps in. */
export function chars(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
