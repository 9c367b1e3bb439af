// People at a held request (issue 43, docs/people.md; engine/runtime/auth/people.ts):
// the daemon that holds a request routes it before it is published (the
// people it goes to and how many different people must allow it, stamped on
// the attention.requested event), and judges every answer by who sent it:
// a person it is not routed to is refused; where two people must allow, a
// first allow is recorded on the stream (x.hookmap.approval.partial) and the
// request stays pending until a different person allows it too; any deny
// settles it. A rule's allow never stands in for a person there.
import { projectLabel, type ProjectLabels } from '../../core/capture/project.ts';
import { APPROVALS_ATTR, approvalsOf, mayReach, OWNER_PERSON, PARTIAL_TYPE, PEOPLE_ATTR, routedTo, type People } from '../auth/people.ts';
import { effectOf, permits } from '../../core/kernel/option-effects.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import type { Applied } from './answer.ts';
import type { DaemonCore } from './core.ts';
import type { PendingHold } from './holds.ts';
import { decideByRules, subjectOfHold, type AnswerRules } from './rule-answer.ts';

export type Ruled = Awaited<ReturnType<typeof decideByRules>>;
type Parts = Pick<PendingHold, 'kind' | 'hook' | 'session' | 'rule' | 'request' | 'payload'>;

export interface PeopleAtHolds {
  people: People;
  projects?: ProjectLabels;
}

/** One allow of a request that needs several people: who (the person) and as which principal. */
export interface Approval {
  person: string;
  by: string;
}

const METADATA = 'metadata' as const;

/**
 * Route a request about to be published: the rules' decision (kept, so open() asks them once), the floor row it
 * hits, the people whose rows match, stamped on the event. An allow rule never answers what needs two people.
 */
export async function routeHold(core: DaemonCore, p: PeopleAtHolds, rules: AnswerRules | undefined, o: Parts): Promise<Ruled> {
  const ruled = o.kind === 'form' || !rules ? undefined : await decideByRules(core, rules, o);
  const subject = ruled?.subject ?? (o.kind === 'form' ? undefined : await subjectOfHold(core, o).catch(() => undefined));
  const floor = ruled?.decision.floor?.row ?? (subject ? rules?.floor?.(subject)?.row : undefined);
  const cwd = subject?.cwd ?? (o.payload as { cwd?: unknown }).cwd;
  const route = p.people.route({ agent: core.vendor, project: projectLabel(cwd, p.projects), kind: o.kind, floor, rule: ruled?.decision.rule?.id });
  const req = o.request as Record<string, unknown>;
  req[PEOPLE_ATTR] = route.people.join(',');
  if (route.approvals > 1) req[APPROVALS_ATTR] = route.approvals;
  core.say(
    `hold ${o.request.id} (${o.hook}) routed to ${route.people.join(', ') || 'the owner only'}` +
      `${route.approvals > 1 ? `; ${route.approvals} different people must allow it${floor ? ` (floor row ${floor})` : ''}` : ''}`,
  );
  if (route.approvals > 1 && ruled?.decision.verb === 'allow')
    return { ...ruled, decision: { ...ruled.decision, verb: 'ask', why: `rule ${ruled.decision.rule?.id} would allow this; two people decide it` } };
  return ruled;
}

export type Judged =
  { go: 'settle' } | { go: 'refuse'; reason: string; detail: string } | { go: 'partial'; approvals: Approval[]; need: number; event: AepEvent };

/** What an answer from `by` does to `h`: settle it, stay pending as a partial approval (its event), or be refused. */
export function judgeAnswer(
  core: DaemonCore,
  people: People | undefined,
  h: PendingHold & { approvals?: Approval[] },
  by: string | undefined,
  applied: Applied,
): Judged {
  const person = people?.personOf(by);
  if (!mayReach(person, h.request as Record<string, unknown>)) {
    const to = routedTo(h.request as Record<string, unknown>) ?? [];
    return refuse('refused', `not-routed: ${by} (${person}) is not among the people this request is routed to (${to.join(', ') || 'the owner only'})`);
  }
  const need = approvalsOf(h.request as Record<string, unknown>);
  if (need < 2 || !permits(effectOf(applied.option, h.view.effects))) return { go: 'settle' }; // any deny settles it
  if (!person) return refuse('refused', `no-person: ${by ?? 'an unnamed sender'} is no person of the up config; ${need} named people must allow this request`);
  const prior = h.approvals ?? [];
  const same = prior.find((a) => a.person === person);
  if (same) return refuse('refused', `same-person: ${person} already allowed this (as ${same.by}); a different person must allow it`);
  const approvals = [...prior, { person, by: by! }];
  if (approvals.length >= need) return { go: 'settle' };
  h.approvals = approvals;
  const event = core.events.make({
    type: PARTIAL_TYPE,
    session: h.session,
    subject: h.id,
    cause: h.id,
    run: h.request.run,
    data: { approved: approvals.length, need, by: approvals.map((a) => a.person), option: applied.option },
    gates: { approved: METADATA, need: METADATA, by: METADATA, option: METADATA },
  });
  return { go: 'partial', approvals, need, event };
}

/** May `by` ask about (or make a rule from) a request: the routing of `answer` without the counting. */
export function mayAsk(people: People | undefined, h: PendingHold | undefined, by: string | undefined): string | undefined {
  if (!h) return undefined;
  const person = people?.personOf(by);
  if (mayReach(person, h.request as Record<string, unknown>)) return undefined;
  return `not-routed: ${by} (${person}) is not among the people this request is routed to`;
}

/** A first allow of a request that needs more people: the command accepted (its result says so), the approval on the stream. */
export function partial(core: DaemonCore, h: PendingHold, j: Extract<Judged, { go: 'partial' }>, accept: (result: Record<string, unknown>) => void): void {
  const people = j.approvals.map((a) => a.person);
  accept({ partial: true, approved: people, need: j.need });
  core.publish([j.event]);
  core.say(`hold ${h.id}: ${partialLine(people, j.need)}; it waits for a different person`);
}

/** "1 of 2, allowed by alice" */
export const partialLine = (approvals: readonly string[], need: number): string => `${approvals.length} of ${need}, allowed by ${approvals.join(', ')}`;

const refuse = (reason: string, detail: string): Judged => ({ go: 'refuse', reason, detail });

export { OWNER_PERSON };
