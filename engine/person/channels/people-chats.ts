// Which chats a request's card goes to once people are configured (issue 43,
// engine/runtime/auth/people.ts): a private chat whose user is a person the request
// is not routed to gets no card (a group chat, or a user who is no person,
// gets it as before); a button pressed by such a person is refused without
// spending it (its owner can still press it), and answerAs refuses too.
import { mayReach, PEOPLE_ATTR, type Audience } from '../../runtime/auth/people.ts';
import type { AnswerDeps } from '../push/answer-as.ts';

/**
 * The chats of `chatIds` a step reaches for `request`; `users` maps a chat user id to the principal name it answers as.
 * A step with people (`audience`) reaches only their private chats; a person in their quiet hours is skipped.
 */
export function chatsFor(
  chatIds: readonly number[],
  users: Readonly<Record<string, string>>,
  deps: AnswerDeps,
  request: string,
  kind = 'telegram',
  audience?: Audience,
): number[] {
  if (!deps.people) return audience ? [] : [...chatIds];
  const routed = deps.door.pending(request)?.people;
  const now = new Date();
  return chatIds.filter((chat) => deps.people!.reached(deps.people!.personOf(users[String(chat)] ?? `${kind}:${chat}`), routed, audience, now));
}

/** Why `name` may not answer `request` (a person it is not routed to), or undefined. */
export function notRouted(deps: AnswerDeps, name: string, request: string | undefined): string | undefined {
  const person = deps.personOf?.(name);
  if (request === undefined || mayReach(person, { [PEOPLE_ATTR]: deps.door.pending(request)?.people })) return undefined;
  return `${name} (${person}) is not among the people this request is routed to: nothing was answered`;
}

/** The Slack user ids a step with people mentions on a card (those it reaches now: routed to them, not in their quiet hours). */
export function mentionsFor(deps: AnswerDeps, request: string, audience?: Audience): string[] {
  if (!deps.people || !audience?.people) return [];
  const routed = deps.door.pending(request)?.people;
  const now = new Date();
  return audience.people.filter((p) => deps.people!.reached(p, routed, audience, now)).flatMap((p) => deps.people!.slackOf(p));
}
