// A held request's answer as bytes (engine/runtime/daemon/hold-lifecycle.ts keeps the hold's life): the
// bindings its templates see, the "always, natively" upgrade of an allow, the reply body and outcome
// drafts of an accepted answer, and the bytes of its `cancel` decision. Each throws when a template
// fails (the request stays pending).
import { answerBindings, renderHoldDecision, renderOutcomes, type OutcomeDraft } from '../../core/map/decide.ts';
import type { Interpretation } from './answer.ts';
import { ASK_HOOK, askBindings } from './asks.ts';
import type { DaemonCore } from './core.ts';
import type { PendingHold } from './holds.ts';
import { permissiveOption } from './answer.ts';
import { alwaysOption } from './rule-answer.ts';

export type Answered = Extract<Interpretation, { ok: true }>;

/** The bindings of a hold's templates for an interpreted answer (an ask's own; a hook's: the answer, then the descriptor's vars). */
async function bindings(core: DaemonCore, h: PendingHold, it: Answered, answer: unknown): Promise<Record<string, unknown>> {
  if (h.hook === ASK_HOOK || h.hook.startsWith('@')) return askBindings(h, it); // hookmap's own cards (ask_human, budgets)
  return answerBindings(core.d, {
    hook: h.hook,
    session: h.session,
    request: h.request,
    payload: h.payload,
    config: core.config,
    applied: it.applied,
    answer,
    always: h.always,
  });
}

/** A human's allow on a request marked "always, natively": the agent's own always option, or its `allow_always` decision. */
export function withAlways(h: PendingHold, it: Answered): Answered {
  if (!h.always || it.applied.option === undefined || it.applied.option !== permissiveOption(h.view.options, h.view.effects)) return it;
  const opt = alwaysOption(h.view.options, h.view.effects);
  if (opt) return { ok: true, decision: h.rule.decisions.has(opt) ? opt : undefined, applied: { option: opt } };
  return h.rule.decisions.has('allow_always') ? { ...it, decision: 'allow_always' } : it;
}

/** An answer's reply bytes and outcome drafts. */
export async function prepareAnswer(core: DaemonCore, h: PendingHold, it: Answered, answer: unknown): Promise<{ body: string; outcome: OutcomeDraft[] }> {
  const b = await bindings(core, h, it, answer);
  const body = it.decision === undefined ? h.neutral.body : await renderHoldDecision(h.rule, it.decision, h.payload, b, h.neutral.body);
  const outcome = await renderOutcomes(h.rule, h.payload, b, h.session, h.request.run);
  return { body, outcome };
}

/** The hold's `cancel` decision bytes, `$reason` bound. */
export async function cancelBody(core: DaemonCore, h: PendingHold, reason: string): Promise<string> {
  const b = await bindings(core, h, { ok: true, decision: 'cancel', applied: {} }, undefined);
  b.reason = reason;
  return renderHoldDecision(h.rule, 'cancel', h.payload, b, h.neutral.body);
}
