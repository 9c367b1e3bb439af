// Answer rules at a held request (issue 22, docs/rules.md): what the request
// asks is read by the hold's `match` expressions (over the payload, before
// capture gating, on this machine), the rule book decides, and an allow or
// deny is applied exactly as a human's answer is (the same decision bytes,
// attention.answered `by: "rule:<id>"`, attention.resolved, the outcomes),
// with `x.hookmap.answer.ruled` naming the rule and its file's digest. An
// allow the floor keeps is said on the stream (`x.hookmap.answer.floor`)
// next to the card, so every surface can say "a rule would allow this; the
// floor keeps it for you".
import type { CompiledHold } from '../../core/descriptor/types.ts';
import { evaluate } from '../../core/expr/compile.ts';
import { answerBindings } from '../../core/map/decide.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import type { AnswerDecision } from '../policy/decide-answer.ts';
import type { Actor, AlwaysSpec } from '../policy/rulebook.ts';
import { subjectOf, type AskSubject, type RawSubject } from '../policy/subject.ts';
import type { OptionView } from './answer.ts';
import { optionWith, type Effects } from '../../core/kernel/option-effects.ts';
import type { DaemonCore } from './core.ts';

/** The rule book as a daemon sees it (engine/runtime/policy/rulebook.ts). */
export interface AnswerRules {
  decide(subject: AskSubject, request: AepEvent): Promise<AnswerDecision>;
  /** A rule answered a request: its use counted and audited. */
  used(decision: AnswerDecision, subject: AskSubject, request: AepEvent): void;
  /** An "Allow always" asked of this daemon (door.ts): the rule saved in this machine's book. */
  learn?(
    subject: AskSubject,
    spec: AlwaysSpec,
    who: Actor,
  ): { rule: { id: string; command?: { kind: string; text: string } }; existed: boolean; note?: string };
  /** The floor row this request hits, if any. */
  floor?(subject: AskSubject): { row: string } | undefined;
  /** The rules in force, as listed (a learned one is shown as saved). */
  list?(): { id: string }[];
}

const METADATA = 'metadata' as const;
/** hookmap's own extension types (AEP-0002 §5.4 `x.<namespace>.*`), the same for every agent: a rule answered a held request, or the floor kept it. */
export const RULE_APPLIED_TYPE = 'x.hookmap.answer.ruled';
export const RULE_FLOOR_TYPE = 'x.hookmap.answer.floor';
/** The option that asks the agent to remember an allow itself, when the card offers one. */
export function alwaysOption(options: OptionView[], effects?: Effects): string | undefined {
  return optionWith('always', options, effects);
}

/**
 * What the request asks. A `match` expression that fails leaves the request
 * unreadable: `undefined`, and no rule answers it (a tool-wide allow must
 * never answer a command nobody could read).
 */
export async function subjectOfHold(
  core: DaemonCore,
  o: { hook: string; session: string; rule: CompiledHold; request: AepEvent; payload: Record<string, unknown> },
): Promise<AskSubject | undefined> {
  const base = { agent: core.vendor, session: o.session, hook: o.hook, fallbackTool: typeof o.request.subject === 'string' ? o.request.subject : undefined };
  const m = o.rule.match;
  if (!m) return subjectOf(base, {});
  const b = await answerBindings(core.d, {
    hook: o.hook,
    session: o.session,
    request: o.request,
    payload: o.payload,
    config: core.config,
    applied: {},
    answer: undefined,
  });
  const raw: RawSubject = {};
  try {
    for (const [k, e] of Object.entries(m) as [keyof RawSubject, NonNullable<(typeof m)[keyof typeof m]>][]) raw[k] = await evaluate(e, o.payload, b);
  } catch (e) {
    core.say(`hold on ${o.hook}: its match could not be read (${(e as Error).message}): no rule answers it`);
    return undefined;
  }
  return subjectOf(base, raw);
}

/** The stream's record of a rule's decision, cause-linked to the request. */
export function ruleRecord(core: DaemonCore, request: AepEvent, d: AnswerDecision, hook: string): AepEvent | undefined {
  const r = d.rule;
  if (!r) return undefined;
  const origin = r.origin.learned ? 'learned' : 'policy';
  if (d.floor) {
    return core.events.make({
      type: RULE_FLOOR_TYPE,
      session: request.session!,
      subject: request.id,
      cause: request.id,
      run: request.run,
      data: { rule: r.id, row: d.floor.row, policy: r.origin.digest, origin, hook },
      gates: { rule: METADATA, row: METADATA, policy: METADATA, origin: METADATA, hook: METADATA },
    });
  }
  if (d.verb !== 'allow' && d.verb !== 'deny') return undefined;
  return core.events.make({
    type: RULE_APPLIED_TYPE,
    session: request.session!,
    subject: request.id,
    cause: request.id,
    run: request.run,
    data: { rule: r.id, verb: d.verb, policy: r.origin.digest, origin, hook },
    gates: { rule: METADATA, verb: METADATA, policy: METADATA, origin: METADATA, hook: METADATA },
  });
}

/** What the rules say of a request about to be held; undefined when nothing could be read (a human is asked). */
export async function decideByRules(
  core: DaemonCore,
  rules: AnswerRules,
  o: { hook: string; session: string; rule: CompiledHold; request: AepEvent; payload: Record<string, unknown> },
): Promise<{ decision: AnswerDecision; subject: AskSubject } | undefined> {
  try {
    const subject = await subjectOfHold(core, o);
    if (!subject) return undefined;
    const decision = await rules.decide(subject, o.request);
    if (decision.floor) core.say(`hold ${o.request.id} (${o.hook}): ${decision.why}`);
    return { decision, subject };
  } catch (e) {
    core.say(`hold ${o.request.id} (${o.hook}): the rules could not decide (${(e as Error).message}): a human is asked`);
    return undefined;
  }
}

/**
 * How the agent itself can persist an allow ("Allow always, natively"): its own always option, or an
 * `allow_always` decision; undefined: only hookmap's rule persists.
 */
export function nativeAlways(h: { view: { options: OptionView[]; effects?: Effects }; rule: CompiledHold }): string | undefined {
  const opt = alwaysOption(h.view.options, h.view.effects);
  if (opt) return `the card's own ${opt} option`;
  return h.rule.decisions.has('allow_always') ? 'the allow_always decision (the agent writes the rule to its own settings)' : undefined;
}
