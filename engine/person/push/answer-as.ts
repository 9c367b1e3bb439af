// An answer from away (a notification's button, a chat button or reply, an
// ntfy action, a webhook's action URL), once the surface has said who is
// answering: the answer takes the path every other answer takes, a
// control.attention.respond on the relay sent as that principal (so
// attention.answered `by` names the person), acked by the daemon holding the
// request, on whichever machine of the fleet (door.ts: the request is known
// from the stream, its options asked of that daemon). "Allow always" has
// that daemon save the narrowest rule first (this exact command or these
// paths, this project), then allows; only from a surface whose capture
// showed the whole command (issue 40), else it answers nothing and says to
// finish in the inbox.
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import { makePrincipal, type Scope } from '../../runtime/auth/principal.ts';
import { mayReach, PEOPLE_ATTR, type People } from '../../runtime/auth/people.ts';
import { alwaysShown } from './payload.ts';
import { ALWAYS_COMMAND, type Door } from './door.ts';
import { makeCommand } from '../../runtime/relay/client.ts';
import type { Relay } from '../../runtime/relay/index.ts';

export const PUSH_ACTIONS = ['allow', 'deny', 'always'] as const;
export type PushAction = (typeof PUSH_ACTIONS)[number];

export interface Answerer {
  name: string;
  scopes: readonly string[];
  /** The surface it answers from (`push`, `telegram`, ...): the principal's source, in the audit. */
  via: string;
  /** Its key within that surface (a device id, a chat user id). */
  key: string;
  /** The most of a request this surface shows (its capture; absent: metadata): "Allow always" saves only what it showed. */
  capture?: CaptureLevel;
}

export type AnswerResult =
  | { ok: true; option?: string; rule?: string; /** "1 of 2, allowed by alice; …": more people must allow it */ partial?: string }
  | { ok: false; status: number; error: string; detail: string };

export interface AnswerDeps {
  relay: Pick<Relay, 'connect'>;
  /** The stream's pending requests and the control commands to their daemons (door.ts). */
  door: Door;
  /** Rules can be made ("Allow always"). */
  rules?: boolean;
  /** The person a principal name is (engine/runtime/auth/people.ts): a request routed to others is not theirs to answer. */
  personOf?: (name: string) => string | undefined;
  /** The people (a ladder step's audience, quiet hours, Slack ids): who a card reaches. */
  people?: Pick<People, 'reached' | 'slackOf' | 'personOf'>;
}

const fail = (status: number, error: string, detail: string): AnswerResult => ({ ok: false, status, error, detail });

/** Send `answer` (an action, or guidance text) for `request` as `who`. */
export async function answerAs(
  o: AnswerDeps,
  who: Answerer,
  request: string,
  answer: { action: PushAction } | { text: string } | { values: Record<string, unknown> },
  agent?: string,
): Promise<AnswerResult> {
  if (!who.scopes.includes('control')) return fail(403, 'forbidden', `${who.name} has no control scope`);
  const held = o.door.pending(request, agent);
  if (!held) return fail(409, 'already-settled', 'this request was already answered, timed out or dismissed');
  const person = o.personOf?.(who.name);
  if (!mayReach(person, { [PEOPLE_ATTR]: held.people }))
    return fail(403, 'not-routed', `${who.name} (${person}) is not among the people this request is routed to: nothing was answered`);
  let body: Record<string, unknown>;
  let option: string | undefined;
  let rule: string | undefined;
  if ('text' in answer) body = { text: answer.text };
  else if ('values' in answer) body = { values: answer.values };
  else {
    // what the request offers and asks, from the daemon holding it (a control query through the relay)
    const asked = await o.door.ask(who, request, agent);
    if (!asked) return fail(409, 'already-settled', 'this request was already answered, timed out or dismissed');
    option = answer.action === 'deny' ? asked.deny : asked.allow;
    if (!option)
      return fail(422, 'no-such-option', `this request offers no ${answer.action === 'deny' ? 'refusing' : 'allowing'} option: open the inbox to answer it`);
    body = { option };
    if (answer.action === 'always') {
      if (!asked.rulable || !o.rules) return fail(422, 'no-rule', 'no rule can be made from this request: open the inbox to answer it');
      const paths = asked.paths?.length ?? 0;
      // a rule covers the command (or the paths) exactly: a surface that did not show them all cannot save one (forged or replayed alike);
      // the command crossed redacted: one redaction changed is never all shown
      if ((asked.command !== undefined && !asked.clean) || !alwaysShown({ text: asked.command, paths }, who.capture ?? 'metadata', (t) => t))
        return fail(
          422,
          'finish-in-inbox',
          `${who.via} did not show the whole ${asked.command !== undefined ? 'command' : 'list of paths'} a rule would cover ` +
            `(capture ${who.capture ?? 'metadata'}): ` +
            'nothing was answered; open the inbox to see it and make the rule there',
        );
      const spec = { match: asked.command !== undefined || paths ? 'exact' : 'tool', scope: asked.project ? 'project' : 'session', via: who.via };
      const saved = await o.door.send(who, ALWAYS_COMMAND, held, spec);
      if (!saved.ok) return fail(422, saved.error === 'no-ack' ? 'no-rule' : saved.error, `no rule made, nothing answered: ${saved.detail}`);
      rule = String((saved.ack.data as { result?: { rule?: unknown } }).result?.rule ?? '');
    }
  }
  const sent = await o.door.send(who, 'control.attention.respond', held, { answer: body });
  if (!sent.ok) return fail(sent.status, sent.error, sent.status === 504 ? 'the agent did not acknowledge the answer in time' : sent.detail);
  const r = (sent.ack.data as { result?: { partial?: boolean; approved?: string[]; need?: number } } | undefined)?.result;
  return {
    ok: true,
    option,
    rule,
    partial: r?.partial ? `${r.approved?.length ?? 1} of ${r.need}, allowed by ${r.approved?.join(', ')}; a different person must allow it too` : undefined,
  };
}

/** A steering instruction for a running session as `who` (a chat reply to a session's message). */
export function steerAs(o: Pick<AnswerDeps, 'relay'>, who: Answerer, agent: string, session: string, text: string): AnswerResult {
  if (!who.scopes.includes('control')) return fail(403, 'forbidden', `${who.name} has no control scope`);
  const principal = makePrincipal(who.name, who.scopes as Scope[], who.via, who.key);
  const conn = o.relay.connect({ identity: { agent: `hookmap-${who.via}`, instance: who.key }, role: 'consumer', principal });
  try {
    const cmd = { ...makeCommand(`x.${agent}.control.instruct`, session, { data: { text } }), agent: `hookmap-${who.via}` };
    const sent = conn.emit(cmd);
    return sent.ok ? { ok: true } : fail(409, sent.code, sent.detail);
  } finally {
    conn.close();
  }
}
