// What a notification says, and the bytes it is sent as. The payload is
// encrypted for the device (RFC 8291), but the push service still sees its
// size and timing: every payload is padded to one fixed size, so a long
// command and a short one look alike. What it says follows capture: at the
// default ceiling (metadata) the agent, the tool, the project folder's name
// and the kind of request; the command or question text only at `redacted`
// or above, and then through the redactor. Never a token or a sign-in link:
// the only secret in a payload is the one-time action credential, which
// answers this request from this device and nothing else.
import type { CaptureLevel } from '../../core/aep/schemas.ts';

/** The plaintext size of every payload (aes128gcm adds 103 bytes; a push service takes up to 4096). */
export const PAD_SIZE = 2048;
const TEXT_MAX = 400;

export type AlertKind = 'permission' | 'question' | 'run_failed' | 'idle' | 'session_error' | 'turn_finished' | 'budget' | 'limit';
export const ALERT_KINDS: readonly AlertKind[] = ['permission', 'question', 'run_failed', 'idle', 'session_error', 'turn_finished', 'budget', 'limit'];

export interface Action {
  /** allow | deny | always */
  action: string;
  title: string;
}

export interface Message {
  /** `request` (answerable), `settled` (replaces a request's notification), `alert`, `test` */
  type: 'request' | 'settled' | 'alert' | 'test';
  /** The notification's tag: a request's id, so a later message replaces it instead of stacking. */
  tag: string;
  title: string;
  body: string;
  request?: string;
  session?: string;
  actions?: Action[];
  credential?: string;
  /** Epoch ms the request stops waiting. */
  expires?: number;
  /** Where a tap on the body opens the inbox (a path and fragment of this origin). */
  url: string;
}

export interface RequestFacts {
  /** `watch`: the watch's attention (engine/person/watch): answered at the agent, never here. */
  kind: 'permission' | 'form' | 'gate' | 'watch';
  agent: string;
  tool?: string;
  /** The project folder's name (never its path). */
  project?: string;
  /** The command or question text, unredacted: shown only above metadata, through `redact`. */
  text?: string;
  /** The watch's words (structural facts only, so shown at every ceiling). */
  words?: string;
}

/** What a card of the watch says in place of a time left to answer. */
export const AT_AGENT = 'answer at the agent';

const RANK: Record<string, number> = { none: 0, metadata: 1, redacted: 2, full: 3 };
export const allowsText = (ceiling: CaptureLevel) => (RANK[ceiling] ?? 0) >= RANK.redacted;

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const where = (p?: string) => (p ? ` in ${p}` : '');

/** The command text a notification at this ceiling shows (empty at metadata). */
const shownText = (text: string, ceiling: CaptureLevel, redact: (s: string) => string) =>
  allowsText(ceiling) ? cut(redact(text).replace(/\s+/g, ' ').trim(), TEXT_MAX) : '';

/**
 * Whether a surface at this ceiling shows this command exactly as it is (not
 * hidden by the capture, not redacted, not cut): only then can it save a rule
 * that covers the command ("Allow always"); otherwise it offers the inbox.
 */
export const showsExactly = (text: string, ceiling: CaptureLevel, redact: (s: string) => string) => shownText(text, ceiling, redact) === text;

/** What a request's "Allow always" would save, and whether a surface at this ceiling showed all of it. */
export function alwaysShown(f: { text?: string; paths: number }, ceiling: CaptureLevel, redact: (s: string) => string): boolean {
  if (f.text !== undefined) return showsExactly(f.text, ceiling, redact);
  // a card never lists paths: a rule for these paths is made where they are shown (the inbox)
  return f.paths === 0;
}

/** The title and body of a held request's notification at this ceiling. */
export function requestText(f: RequestFacts, ceiling: CaptureLevel, redact: (s: string) => string): { title: string; body: string } {
  if (f.kind === 'watch')
    return { title: cut(`${f.agent} waits at its terminal${where(f.project)}`, 120), body: cut(`Answer at the agent: ${f.words ?? ''}`, TEXT_MAX) };
  const verb = f.kind === 'form' ? 'has a question' : f.tool ? `wants to run ${f.tool}` : 'is waiting for you';
  const title = `${f.agent} ${verb}${where(f.project)}`;
  const kind = f.kind === 'form' ? 'Question' : f.kind === 'gate' ? 'Tool gate' : 'Permission request';
  const text = f.text ? shownText(f.text, ceiling, redact) : '';
  return { title: cut(title, 120), body: text ? `${kind}: ${text}` : kind };
}

/** The message as the bytes to encrypt: JSON padded with spaces to exactly PAD_SIZE bytes. */
export function encodeMessage(m: Message): Buffer {
  let doc = { v: 1, ...m };
  let json = JSON.stringify(doc);
  // a body that does not fit is shortened, never sent longer than the others
  while (Buffer.byteLength(json) > PAD_SIZE - 8 && doc.body.length > 0) {
    doc = { ...doc, body: cut(doc.body, Math.max(0, Math.floor(doc.body.length * 0.8))) };
    json = JSON.stringify(doc);
  }
  const len = Buffer.byteLength(json);
  if (len > PAD_SIZE) throw new Error(`push message of ${len} bytes does not fit ${PAD_SIZE}`);
  return Buffer.concat([Buffer.from(json), Buffer.alloc(PAD_SIZE - len, 0x20)]);
}

/** The inbox address of a session (its held request's card is at the top there). */
export const cardUrl = (session?: string) => (session ? `/#/s/${encodeURIComponent(session)}` : '/');
