// hookmap's own control commands (AEP-0002 §5.4 `x.hookmap.*`), the one door
// every surface away from the agent's machine goes through (issue 39): they
// are routed like any command (engine/runtime/relay/core.ts: only from a principal
// with the control scope, across the fleet backplane to the relay holding
// the session) and answered in the command's outcome, the control.accepted
// whose `data.result` the relay hands only to control subscribers
// (engine/runtime/relay/subscription.ts forControlOnly).
//
//   x.hookmap.control.ask     subject: a pending request. What the stream does not carry at a watcher's capture:
//                             its kind and options, the command (redacted, and whether redaction changed it),
//                             the paths (redacted), the project, what an "Allow always" could be.
//   x.hookmap.control.always  subject: a pending request; data { match, prefix?, scope, native?, via? }. This
//                             daemon saves the rule in its own rule book (so this machine's next identical
//                             request is answered), attributed to the sender the relay authenticated.
import type { AepEvent } from '../../core/map/envelope.ts';
import { proposePrefixes, quoteArgv, type AlwaysSpec } from '../policy/rulebook.ts';
import { readPlainCommand } from '../policy/shell/match.ts';
import type { AskSubject } from '../policy/subject.ts';
import { permissiveOption, refusingOption } from './answer.ts';
import type { DaemonCore } from './core.ts';
import type { PendingHold } from './holds.ts';
import { nativeAlways, subjectOfHold, type AnswerRules } from './rule-answer.ts';

export const ASK_COMMAND = 'x.hookmap.control.ask';
export const ALWAYS_COMMAND = 'x.hookmap.control.always';
export const DOOR_COMMANDS: readonly string[] = [ASK_COMMAND, ALWAYS_COMMAND];

type Obj = Record<string, unknown>;
export type DoorOutcome = { ok: true; result: Obj } | { ok: false; reason: string; detail: string };

const MATCHES = ['exact', 'prefix', 'tool'];
const SCOPES = ['session', 'project', 'user'];
const no = (reason: string, detail: string): DoorOutcome => ({ ok: false, reason, detail });

export interface DoorParts {
  core: DaemonCore;
  hold(id: string): PendingHold | undefined;
  rules?: AnswerRules;
}

/** One x.hookmap.control.* command for a request held in `session`; `by` is the sender the relay authenticated. */
export async function doorCommand(p: DoorParts, cmd: AepEvent, session: string, by: string | undefined): Promise<DoorOutcome> {
  const id = typeof cmd.subject === 'string' ? cmd.subject : '';
  const h = p.hold(id);
  if (!h || h.session !== session) return no('invalid', `no-such-request: no pending attention request ${id || '(subject missing)'} in this session`);
  const subject = h.kind === 'form' ? undefined : await subjectOfHold(p.core, h);
  if (cmd.type === ASK_COMMAND) return { ok: true, result: describe(p, h, subject) };
  const d = (cmd.data ?? {}) as Obj;
  if (!subject || !p.rules?.learn) return no('refused', 'no-rule: no rule can be made from this request here');
  if (!MATCHES.includes(d.match as string) || !SCOPES.includes(d.scope as string)) return no('invalid', 'bad-rule: match and scope are required');
  if (d.prefix !== undefined && (typeof d.prefix !== 'string' || d.prefix.length > 500)) return no('invalid', 'bad-rule: prefix is words');
  const native = d.native === true ? nativeAlways(h) : undefined;
  if (d.native === true && !native) return no('refused', `no-native: ${subject.agent} cannot persist an allow itself`);
  const spec: AlwaysSpec = { match: d.match as AlwaysSpec['match'], prefix: d.prefix as string | undefined, scope: d.scope as AlwaysSpec['scope'] };
  const via = typeof d.via === 'string' && /^[a-z][a-z0-9-]{0,31}$/.test(d.via) ? d.via : 'api';
  try {
    const r = p.rules.learn(subject, spec, { by: by ?? 'unknown', via, request: h.id, native });
    if (native) {
      const c = r.rule.command;
      h.always = {
        match: spec.match,
        scope: spec.scope,
        tool: subject.tool,
        command: c?.kind === 'exact' ? c.text : subject.command,
        prefix: c?.kind === 'prefix' ? c.text : undefined,
      };
    }
    p.core.say(`rule ${r.rule.id} ${r.existed ? 'already existed' : 'learned'} for ${h.id} (by ${by ?? 'unknown'} via ${via})`);
    const view = p.rules.list?.().find((x) => x.id === r.rule.id);
    return { ok: true, result: { rule: r.rule.id, existed: r.existed, note: r.note, native: native ?? null, view } };
  } catch (e) {
    return no('refused', `${(e as { code?: string }).code ?? 'no-rule'}: ${(e as Error).message}`);
  }
}

/** What a card, a push or a rule proposal needs of a pending request: text redacted as every card's is. */
function describe(p: DoorParts, h: PendingHold, s: AskSubject | undefined): Obj {
  const red = (t: string) => p.core.events.redactor.text(t);
  const v = h.view;
  const out: Obj = {
    request: h.id,
    kind: h.kind,
    allow: permissiveOption(v.options, v.effects),
    deny: refusingOption(v.options, v.effects),
    form: h.kind === 'form' ? { kind: v.kind, labelsReal: v.labelsReal, fields: v.fields } : undefined,
    rulable: !!s,
  };
  if (!s) return out;
  const plain = s.command === undefined ? undefined : readPlainCommand(s.command);
  const floor = p.rules?.floor?.(s);
  return {
    ...out,
    agent: s.agent,
    tool: s.tool,
    session: s.session,
    project: s.project,
    command: s.command === undefined ? undefined : red(s.command),
    // an "Allow always" is saved only where all it covers was shown: a command redaction changed never is
    clean: s.command === undefined ? true : red(s.command) === s.command,
    plain: plain ? !('refused' in plain) : undefined,
    refused: plain && 'refused' in plain ? plain.refused : undefined,
    exact: plain && !('refused' in plain) ? red(quoteArgv(plain.words)) : undefined,
    prefixes: s.command === undefined ? [] : proposePrefixes(s.command).map(red),
    paths: s.paths.map(red),
    native: nativeAlways(h),
    floor: floor ? floor.row : undefined,
  };
}
