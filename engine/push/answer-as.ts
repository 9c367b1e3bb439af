// An answer from away (a notification's button, a chat button or reply, an
// ntfy action, a webhook's action URL), once the surface has said who is
// answering: the answer takes the path every other answer takes, a
// control.attention.respond on the relay sent as that principal (so
// attention.answered `by` names the person), acked by the daemon holding the
// request. "Allow always" makes the narrowest rule first (this exact command
// or these paths, this project), then allows; only from a surface whose
// capture showed the whole command (issue 40), else it answers nothing and
// says to finish in the inbox.
import type { CaptureLevel } from '../aep/schemas.ts';
import { makePrincipal, type Scope } from '../auth/principal.ts';
import { alwaysShown } from './payload.ts';
import { permissiveOption } from '../daemon/answer.ts';
import { refusingOption } from '../daemon/answer.ts';
import type { Daemon } from '../daemon/daemon.ts';
import type { AlwaysSpec, RuleBook } from '../policy/rulebook.ts';
import { makeCommand } from '../relay/client.ts';
import type { AepEvent, Relay } from '../relay/index.ts';

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

export type AnswerResult = { ok: true; option?: string; rule?: string } | { ok: false; status: number; error: string; detail: string };

export interface AnswerDeps {
  relay: Pick<Relay, 'connect'>;
  daemons: ReadonlyMap<string, Daemon>;
  rules?: RuleBook;
  /** The relay's ack of a command (undefined when none came within `ms`). */
  ack(command: string, ms: number): Promise<AepEvent | undefined>;
}

const fail = (status: number, error: string, detail: string): AnswerResult => ({ ok: false, status, error, detail });

/** The agent holding this request and the hold itself, while it waits. */
export function heldBy(daemons: ReadonlyMap<string, Daemon>, agent: string | undefined, request: string) {
  const candidates = agent ? [daemons.get(agent)] : [...daemons.values()];
  for (const d of candidates) {
    const hold = d?.pending().find((h) => h.id === request);
    if (d && hold) return { daemon: d, hold };
  }
  return undefined;
}

/** Send `answer` (an action, or guidance text) for `request` as `who`. */
export async function answerAs(
  o: AnswerDeps,
  who: Answerer,
  request: string,
  answer: { action: PushAction } | { text: string } | { values: Record<string, unknown> },
  agent?: string,
): Promise<AnswerResult> {
  if (!who.scopes.includes('control')) return fail(403, 'forbidden', `${who.name} has no control scope`);
  const held = heldBy(o.daemons, agent, request);
  if (!held) return fail(409, 'already-settled', 'this request was already answered, timed out or dismissed');
  const { daemon, hold } = held;
  let body: Record<string, unknown>;
  let option: string | undefined;
  let rule: string | undefined;
  if ('text' in answer) body = { text: answer.text };
  else if ('values' in answer) body = { values: answer.values };
  else {
    option = answer.action === 'deny' ? refusingOption(hold.view.options, hold.view.effects) : permissiveOption(hold.view.options, hold.view.effects);
    if (!option)
      return fail(422, 'no-such-option', `this request offers no ${answer.action === 'deny' ? 'refusing' : 'allowing'} option: open the inbox to answer it`);
    body = { option };
    if (answer.action === 'always') {
      const asked = await daemon.askOf(request);
      if (!asked || !o.rules) return fail(422, 'no-rule', 'no rule can be made from this request: open the inbox to answer it');
      const s = asked.subject;
      // a rule covers the command (or the paths) exactly: a surface that did not show them all cannot save one (forged or replayed alike)
      if (!alwaysShown({ text: s.command, paths: s.paths.length }, who.capture ?? 'metadata', (t) => daemon.redactor.text(t)))
        return fail(
          422,
          'finish-in-inbox',
          `${who.via} did not show the whole ${s.command !== undefined ? 'command' : 'list of paths'} a rule would cover ` +
            `(capture ${who.capture ?? 'metadata'}): ` +
            'nothing was answered; open the inbox to see it and make the rule there',
        );
      const spec: AlwaysSpec = { match: s.command !== undefined || s.paths.length ? 'exact' : 'tool', scope: s.project ? 'project' : 'session' };
      try {
        rule = o.rules.learn(s, spec, { by: who.name, via: who.via, request }).rule.id;
      } catch (e) {
        return fail(422, (e as { code?: string }).code ?? 'no-rule', `no rule made, nothing answered: ${(e as Error).message}`);
      }
    }
  }
  const principal = makePrincipal(who.name, who.scopes as Scope[], who.via, who.key);
  const conn = o.relay.connect({ identity: { agent: `hookmap-${who.via}`, instance: who.key }, role: 'consumer', principal });
  try {
    const cmd = { ...makeCommand('control.attention.respond', hold.session, { subject: request, data: { answer: body } }), agent: `hookmap-${who.via}` };
    cmd.source = cmd.source.replace(/hookmap-cli$/, `hookmap-${who.via}`);
    const acked = o.ack(cmd.id, 5000);
    const sent = conn.emit(cmd);
    if (!sent.ok) return fail(409, sent.code, sent.detail);
    const ack = await acked;
    if (!ack) return fail(504, 'no-ack', 'the agent did not acknowledge the answer in time');
    if (ack.type === 'control.rejected')
      return fail(409, String((ack.data as any)?.code ?? 'rejected'), String((ack.data as any)?.reason ?? 'the answer was refused'));
    return { ok: true, option, rule };
  } finally {
    conn.close();
  }
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
