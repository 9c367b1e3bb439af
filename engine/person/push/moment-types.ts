// What a moment is to the surfaces that reach a person (moments.ts reads them
// off the stream): a held request or the watch's card, how it settled, an
// alert, and the sink each surface is (Web Push, the chat channels).
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import type { Audience } from '../../runtime/auth/people.ts';
import { alwaysShown, type AlertKind } from './payload.ts';
import type { Seen } from './ladder.ts';

export interface Moment {
  id: string;
  session: string;
  agent: string;
  kind: 'permission' | 'form' | 'gate' | 'watch'; // watch: informational (AEP-0008 respond_via without control), never answered here
  words?: string; // what the watch says to do (kind watch)
  /** Epoch ms the request stops waiting. */
  expires: number;
  tool?: string;
  /** The project folder's name (never its path). */
  project?: string;
  /** The command or question text as the holding daemon redacted it (door.ts): a sink shows it only above metadata, through `redact`. */
  text?: string;
  /** Redaction for what the sink shows (the text came redacted already). */
  redact: (s: string) => string;
  /** Whether rules can be made from it ("Allow always"); a surface offers it only where alwaysShown (payload.ts) says it shows what the rule covers. */
  rulable: boolean;
  /** How many paths the request names (a rule for them is made where they are shown). */
  paths: number;
  /** A form of one single-choice question whose labels are real text (the stream's capture is redacted or above): its choices, answerable as buttons. */
  form?: { field: string; question?: string; choices: { id: string; label: string }[] };
  /** Who has seen it so far, and where (x.hookmap.attention.seen on the stream): a card shows it (ladder.ts seenLine). */
  seen?: Seen[];
  /** Two people must allow it and some have: "1 of 2, allowed by alice" (x.hookmap.approval.partial on the stream). */
  partial?: string;
}

/** Whether a surface at this capture offers "Allow always" for the moment: only where it shows all the rule would cover. */
export const offersAlways = (m: Moment, capture: CaptureLevel): boolean => m.rulable && alwaysShown({ text: m.text, paths: m.paths }, capture, m.redact);

export interface Settlement {
  how: 'answered' | 'timed out' | 'dismissed';
  /** Who answered (a principal, `rule:<id>`), when someone did. */
  by?: string;
  /** Said in place of the card's buttons. */
  text: string;
}

export interface Alert {
  kind: AlertKind;
  agent: string;
  session?: string;
  title: string;
}

export interface MomentSink {
  readonly name: string;
  /** Whether it reaches anyone now (Web Push: a device is registered); absent: yes. Nobody reached: nothing is asked of the agent. */
  reaches?(): boolean;
  /** `audience`: a step with people reaches only theirs (engine/runtime/auth/people.ts); called once per step that adds someone. */
  request(m: Moment, audience?: Audience): void | Promise<void>;
  settled(m: Moment, s: Settlement): void | Promise<void>;
  /** What the card says changed while it waits (a first of two allows): the card edited in place, its buttons kept. */
  updated?(m: Moment): void | Promise<void>;
  alert(a: Alert): void | Promise<void>;
}
