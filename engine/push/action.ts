// An answer from a notification's button (or any surface that holds a
// one-time action credential): POST /push/action { credential, action }.
// The credential is the whole authentication, so it is checked for
// everything: issued by this up, unused, unexpired, for a request still
// waiting, from a device still registered whose principal's token is still
// valid and has the control scope. The answer then takes the path every
// other answer takes: a control.attention.respond on the relay, sent as the
// device's principal (so attention.answered `by` names that person), and
// acked by the daemon holding the request.
import { makePrincipal, type Scope } from '../auth/principal.ts';
import { permissiveOption } from '../daemon/rule-answer.ts';
import { refusingOption } from '../daemon/answer.ts';
import type { Daemon } from '../daemon/daemon.ts';
import type { AlwaysSpec, RuleBook } from '../policy/rulebook.ts';
import { makeCommand } from '../relay/client.ts';
import type { Relay } from '../relay/index.ts';
import type { PushService } from './service.ts';

export const PUSH_ACTIONS = ['allow', 'deny', 'always'] as const;
export type PushAction = (typeof PUSH_ACTIONS)[number];

export interface ActionResult {
  status: number;
  body: { answered: true; request: string; option: string; by: string; rule?: string } | { error: string; detail: string };
}

export interface ActionDeps {
  service: PushService;
  relay: Pick<Relay, 'connect'>;
  daemons: ReadonlyMap<string, Daemon>;
  rules?: RuleBook;
}

const refuse = (status: number, error: string, detail: string): ActionResult => ({ status, body: { error, detail } });

export async function answerAction(o: ActionDeps, credential: unknown, action: unknown, request?: unknown): Promise<ActionResult> {
  if (!PUSH_ACTIONS.includes(action as PushAction)) return refuse(400, 'bad-request', `action is one of ${PUSH_ACTIONS.join(', ')}`);
  const r = o.service.credentials.redeem(credential);
  if (!r.ok) return refuse(r.code === 'unknown-credential' ? 403 : 410, r.code, r.detail);
  const g = r.grant;
  // the request the button was shown for, when the caller names it: a credential never answers another
  if (request !== undefined && request !== g.request) return refuse(403, 'wrong-request', 'this action credential was issued for another request');
  const device = o.service.devices.byId(g.device);
  if (!device) return refuse(403, 'device-revoked', 'this device was revoked: its actions answer nothing');
  if (!o.service.isLive(device)) return refuse(403, 'principal-revoked', `the token ${device.principal.name} registered this device with was revoked: its actions answer nothing`);
  if (!device.principal.scopes.includes('control')) return refuse(403, 'forbidden', `${device.principal.name} has no control scope`);
  const open = o.service.open.get(g.request);
  const daemon = open ? o.daemons.get(open.agent) : undefined;
  const hold = daemon?.pending().find((h) => h.id === g.request);
  if (!open || !daemon || !hold) return refuse(409, 'already-settled', 'this request was already answered, timed out or dismissed');
  const options = hold.view.options;
  const option = action === 'deny' ? refusingOption(options) : permissiveOption(options);
  if (!option) return refuse(422, 'no-such-option', `this request offers no ${action === 'deny' ? 'refusing' : 'allowing'} option: open the inbox to answer it`);
  const by = device.principal.name;
  let rule: string | undefined;
  if (action === 'always') {
    const asked = await daemon.askOf(g.request);
    if (!asked || !o.rules) return refuse(422, 'no-rule', 'no rule can be made from this request: open the inbox to answer it');
    const s = asked.subject;
    const spec: AlwaysSpec = { match: s.command !== undefined || s.paths.length ? 'exact' : 'tool', scope: s.project ? 'project' : 'session' };
    try {
      rule = o.rules.learn(s, spec, { by, via: 'push', request: g.request }).rule.id;
    } catch (e) {
      return refuse(422, (e as { code?: string }).code ?? 'no-rule', `no rule made, nothing answered: ${(e as Error).message}`);
    }
  }
  const principal = makePrincipal(by, device.principal.scopes as Scope[], 'push', device.id);
  const conn = o.relay.connect({ identity: { agent: 'hookmap-push', instance: device.id }, role: 'consumer', principal });
  try {
    const cmd = { ...makeCommand('control.attention.respond', g.session, { subject: g.request, data: { answer: { option } } }), agent: 'hookmap-push' };
    cmd.source = cmd.source.replace(/hookmap-cli$/, 'hookmap-push');
    const acked = o.service.ack(cmd.id, 5000);
    const sent = conn.emit(cmd);
    if (!sent.ok) return refuse(409, sent.code, sent.detail);
    const ack = await acked;
    if (!ack) return refuse(504, 'no-ack', 'the agent did not acknowledge the answer in time');
    if (ack.type === 'control.rejected') return refuse(409, String((ack.data as any)?.code ?? 'rejected'), String((ack.data as any)?.reason ?? 'the answer was refused'));
    return { status: 200, body: { answered: true, request: g.request, option, by, ...(rule ? { rule } : {}) } };
  } finally {
    conn.close();
  }
}
