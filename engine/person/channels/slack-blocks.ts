// What the Slack channel (slack.ts) posts, as Block Kit: a card's text (mrkdwn,
// Slack's three control characters escaped), its context line, and its
// buttons (Allow / Deny / Allow always, one per choice of a single-choice
// form, Continue on an alert about a session that can be continued), each
// carrying a one-time value (card.ts Buttons); and how a Web API error is
// retried. Slack's own escaping undone for text people type (a slash
// command's text, a thread reply).
import type { Moment } from '../push/moments.ts';
import type { Retryable } from './retry.ts';

export const section = (text: string) => ({
  type: 'section',
  text: { type: 'mrkdwn', text: text.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!) },
});
/** Slack mentions (`<@U0123>`): said unescaped, so only ids of the shape people: allows. */
export const mentionSection = (ids: readonly string[]) => ({ type: 'section', text: { type: 'mrkdwn', text: ids.map((id) => `<@${id}>`).join(' ') } });
export const context = (text: string) => ({ type: 'context', elements: [{ type: 'plain_text', text }] });

export interface SlackButton {
  type: 'button';
  text: { type: 'plain_text'; text: string };
  style?: 'primary' | 'danger';
  action_id: string;
  value: string;
}

const button = (text: string, action_id: string, value: string, style?: 'primary' | 'danger'): SlackButton => ({
  type: 'button',
  text: { type: 'plain_text', text },
  ...(style ? { style } : {}),
  action_id,
  value,
});

/** A request card's buttons (and I'm on it); `issue(choice?)` gives each its one-time value. */
export function requestButtons(m: Moment, choices: { id: string; label: string }[], issue: (choice?: string) => string, always: boolean): SlackButton[] {
  if (m.kind === 'watch') return [];
  // I'm on it: seen here, the ladder's later steps wait (docs/escalation.md)
  const onIt = button("I'm on it", 'hookmap_seen', issue());
  if (m.kind === 'form') return [...choices.map((c, i) => button(c.label, `hookmap_choice_${i}`, issue(c.id))), onIt];
  return [
    button('Allow', 'hookmap_allow', issue(), 'primary'),
    button('Deny', 'hookmap_deny', issue(), 'danger'),
    ...(always ? [button('Allow always', 'hookmap_always', issue())] : []),
    onIt,
  ];
}

/** What a card shows besides its words: the people it mentions, what to do, its buttons. */
export interface Shown {
  ids: string[];
  hint: string;
  buttons: SlackButton[];
}

/** A card's blocks: its mentions, its words, its context line and what to do, its buttons. */
export const cardBlocks = (text: { title: string; body: string; meta: string }, s: Shown) => [
  ...(s.ids.length ? [mentionSection(s.ids)] : []),
  section(`*${text.title}*\n${text.body}`),
  context(`${text.meta} · ${s.hint}`),
  ...(s.buttons.length ? [{ type: 'actions', elements: s.buttons }] : []),
];

/** What a card says to do, under its text. */
export function cardHint(m: Moment, choices: boolean): string {
  if (m.kind === 'watch') return 'Answer it at the agent.';
  if (m.kind !== 'form') return 'Reply in the thread to deny with guidance the agent reads.';
  return choices ? 'Press a choice (or answer it in the inbox).' : 'Answer it in the inbox (a form needs its fields).';
}

/** An alert's Continue button (a new prompt for a session that finished a turn or ended). */
export const continueButton = (value: string): SlackButton => button('Continue', 'hookmap_continue', value);

/** Text as a person typed it: Slack sends &, < and > escaped. */
export const unescapeSlack = (t: string): string => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** @slack/web-api's errors: a rate limit names its wait; a platform error is a refusal. */
export function classify(e: unknown): Retryable {
  const x = e as { code?: string; retryAfter?: number; data?: { error?: string } };
  if (x?.code === 'slack_webapi_rate_limited_error') return { transient: true, retryAfterS: x.retryAfter ?? 1 };
  if (x?.code === 'slack_webapi_platform_error') return { transient: false };
  return { transient: true };
}
