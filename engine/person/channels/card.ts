// What a chat card says: the same words a notification says
// (engine/person/push/payload.ts, capture-gated: the command only above metadata,
// through redaction), with the session, the machine and the time left.
// Never a token or a sign-in link.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import { allowsText, AT_AGENT, requestText } from '../push/payload.ts';
import { timeLeft } from '../push/service.ts';
import type { Moment } from '../push/moments.ts';
import { seenLine } from '../push/ladder.ts';

export interface CardText {
  title: string;
  body: string;
  /** session · machine · time left (· 1 of 2, allowed by alice) (· seen by alice via inbox) */
  meta: string;
}

export function cardText(m: Moment, capture: CaptureLevel, now = Date.now()): CardText {
  const t = requestText({ kind: m.kind, agent: m.agent, tool: m.tool, project: m.project, text: m.text, words: m.words }, capture, m.redact);
  const question = m.form?.question && allowsText(capture) ? `Question: ${m.redact(m.form.question)}` : undefined;
  const left = m.kind === 'watch' ? AT_AGENT : `${timeLeft(m.expires - now)} to answer`;
  const seen = seenLine(m.seen);
  const more = [m.partial, seen].filter(Boolean).map((x) => ` · ${x}`);
  return { title: t.title, body: question ?? t.body, meta: `session ${m.session.slice(0, 12)} · on ${hostname()} · ${left}${more.join('')}` };
}

/** The form's choices as buttons, where this channel may show their text (redacted or above); else none (the inbox answers it). */
export function choiceButtons(m: Moment, capture: CaptureLevel): { id: string; label: string }[] {
  if (!m.form || !allowsText(capture)) return [];
  return m.form.choices.map((c) => ({ id: c.id, label: m.redact(c.label).slice(0, 60) }));
}

export const plainCard = (c: CardText) => `${c.title}\n${c.body}\n${c.meta}`;

/** One-time button ids for the chats whose buttons carry a short string (Telegram: 64 bytes): bound to a request and a message, spent once. */
export class Buttons {
  private readonly byNonce = new Map<string, { request: string; message?: string; used: boolean; expires: number; choice?: string; group?: string }>();

  /** `choice`: the form choice this button answers; buttons of one `group` (a card's choices) are spent together. */
  issue(request: string, expires: number, choice?: string, group?: string): string {
    const t = Date.now();
    for (const [k, v] of this.byNonce) if (v.expires < t) this.byNonce.delete(k);
    const nonce = randomNonce();
    this.byNonce.set(nonce, { request, used: false, expires, choice, group });
    return nonce;
  }

  /** The message the buttons were sent on (a tap must come from that message). */
  bind(nonce: string, message: string): void {
    const b = this.byNonce.get(nonce);
    if (b) b.message = message;
  }

  /** The request a button answers, without spending it. */
  peek(nonce: string): string | undefined {
    return this.byNonce.get(nonce)?.request;
  }

  /** Spend a button: the request it answers, or why not. */
  take(nonce: string, message: string): { request: string; choice?: string } | { refused: string } {
    const b = this.byNonce.get(nonce);
    if (!b) return { refused: 'unknown button (forged, or its request was settled)' };
    if (b.message !== undefined && b.message !== message) return { refused: 'this button belongs to another message' };
    if (b.used) return { refused: 'this button was used already' };
    b.used = true;
    if (b.group) for (const v of this.byNonce.values()) if (v.group === b.group) v.used = true;
    return { request: b.request, choice: b.choice };
  }

  settle(request: string): void {
    for (const [k, v] of this.byNonce) if (v.request === request) this.byNonce.delete(k);
  }
}

function randomNonce(): string {
  return randomBytes(12).toString('base64url');
}

/** What a Telegram card says to do under its text. */
export function tapHint(m: Moment, choices: boolean): string {
  if (m.kind !== 'form') return 'Reply to this message to deny with guidance the agent reads.';
  return choices ? 'Tap a choice (or answer it in the inbox).' : 'Answer it in the inbox (a form needs its fields).';
}

export type Keyboard = { text: string; callback_data: string }[][];

/**
 * A Telegram card's buttons for `chat` and the one-time nonces they carry: one per choice of a single-choice question
 * (spent together: one answer per card), else Allow / Deny (/ Allow always); and I'm on it.
 */
export function cardKeyboard(m: Moment, choices: { id: string; label: string }[], always: boolean, buttons: Buttons, chat: number) {
  const issue = () => buttons.issue(m.id, m.expires);
  const n = { a: issue(), d: issue(), w: issue(), s: issue() };
  const rows = choices.map((c) => {
    const nonce = buttons.issue(m.id, m.expires, c.id, `${m.id}:${chat}`);
    return { nonce, row: [{ text: c.label, callback_data: `c:${nonce}` }] };
  });
  const answer = [
    { text: 'Allow', callback_data: `a:${n.a}` },
    { text: 'Deny', callback_data: `d:${n.d}` },
  ];
  const more = always ? [[{ text: 'Allow always', callback_data: `w:${n.w}` }]] : [];
  const keyboard: Keyboard = [...(m.kind === 'form' ? rows.map((x) => x.row) : [answer, ...more]), [{ text: "I'm on it", callback_data: `s:${n.s}` }]];
  return { keyboard, nonces: [...Object.values(n), ...rows.map((x) => x.nonce)] };
}
