// A rule's allow or deny at a held request (docs/rules.md), applied as a
// human's answer is: the same decision bytes and events, attributed to
// `rule:<id>`, the rule's use counted. Split from hold-lifecycle.ts.
import type { OutcomeDraft } from '../../core/map/decide.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import type { AnswerDecision } from '../policy/decide-answer.ts';
import type { AskSubject } from '../policy/subject.ts';
import { interpretAnswer, permissiveOption, refusingOption } from './answer.ts';
import type { DaemonCore } from './core.ts';
import { prepareAnswer, type Answered } from './hold-render.ts';
import type { PendingHold } from './holds.ts';
import { ruleRecord, type AnswerRules } from './rule-answer.ts';

type Answer = (h: PendingHold, cmd: AepEvent, it: Answered, by: string | undefined, prepared: { body: string; outcome: OutcomeDraft[] }) => void;

/** A rule's allow or deny, applied as a human's answer is; false (and said) when it cannot be, leaving the request to a human. */
export async function answerByRule(
  core: DaemonCore,
  rules: AnswerRules,
  h: PendingHold,
  d: AnswerDecision,
  subject: AskSubject,
  answered: Answer,
): Promise<boolean> {
  const id = d.rule!.id;
  const option = d.verb === 'allow' ? permissiveOption(h.view.options, h.view.effects) : refusingOption(h.view.options, h.view.effects);
  const answer = option === undefined ? undefined : d.verb === 'deny' && d.rule!.reason ? { option, text: d.rule!.reason } : { option };
  const it = answer ? interpretAnswer(answer, h.view) : undefined;
  if (!it?.ok) {
    core.say(`rule ${id} cannot answer ${h.id}: the card offers no ${d.verb} option; a human is asked`);
    return false;
  }
  let prepared: { body: string; outcome: OutcomeDraft[] };
  try {
    prepared = await prepareAnswer(core, h, it, answer);
  } catch (e) {
    core.say(`rule ${id}: the decision for ${h.id} could not be built (${(e as Error).message}); a human is asked`);
    return false;
  }
  core.publish([ruleRecord(core, h.request, d, h.hook)!]);
  answered(h, h.request, it, `rule:${id}`, prepared);
  rules.used(d, subject, h.request);
  return true;
}
