// Which chats a request's card goes to once people are configured (issue 43,
// engine/auth/people.ts): a private chat whose user is a person the request
// is not routed to gets no card (a group chat, or a user who is no person,
// gets it as before); a button pressed there is refused anyway
// (engine/push/answer-as.ts).
import { mayReach, PEOPLE_ATTR } from '../auth/people.ts';
import type { AnswerDeps } from '../push/answer-as.ts';

/** The chats of `chatIds` that may see `request`; `users` maps a chat user id to the principal name it answers as. */
export function chatsFor(chatIds: readonly number[], users: Readonly<Record<string, string>>, deps: AnswerDeps, request: string, kind = 'telegram'): number[] {
  if (!deps.personOf) return [...chatIds];
  const routed = deps.door.pending(request)?.people;
  return chatIds.filter((chat) => mayReach(deps.personOf!(users[String(chat)] ?? `${kind}:${chat}`), { [PEOPLE_ATTR]: routed }));
}
