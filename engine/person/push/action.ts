// An answer from a notification's button (or any surface that holds a
// one-time action credential: an ntfy action, a webhook's action URL):
// POST /push/action { credential, action, request? }. The credential is the
// whole authentication, so it is checked for everything: issued by this up,
// unused, unexpired, presented for the request it was issued for, from a
// holder still valid (a device still registered whose token still holds, or
// a configured channel). Then answer-as.ts sends it as that principal.
import { answerAs, PUSH_ACTIONS, type AnswerDeps, type Answerer, type PushAction } from './answer-as.ts';
import type { Grant } from './credentials.ts';
import type { PushService } from './service.ts';

export { PUSH_ACTIONS, type PushAction } from './answer-as.ts';

export interface ActionResult {
  status: number;
  body: { answered: true; request: string; option?: string; by: string; rule?: string } | { error: string; detail: string };
}

export interface ActionDeps extends AnswerDeps {
  service: PushService;
  /** Who a grant not issued to a push device answers as (a channel's credentials: ntfy, webhook). */
  holders?: (g: Grant) => Answerer | { refused: string } | undefined;
}

const refuse = (status: number, error: string, detail: string): ActionResult => ({ status, body: { error, detail } });

export async function answerAction(o: ActionDeps, credential: unknown, action: unknown, request?: unknown): Promise<ActionResult> {
  if (!PUSH_ACTIONS.includes(action as PushAction)) return refuse(400, 'bad-request', `action is one of ${PUSH_ACTIONS.join(', ')}`);
  const r = o.service.credentials.redeem(credential);
  if (!r.ok) return refuse(r.code === 'unknown-credential' ? 403 : 410, r.code, r.detail);
  const g = r.grant;
  // the request the button was shown for, when the caller names it: a credential never answers another
  if (request !== undefined && request !== g.request) return refuse(403, 'wrong-request', 'this action credential was issued for another request');
  let who: Answerer;
  const other = o.holders?.(g);
  if (other && 'refused' in other) return refuse(403, 'holder-refused', other.refused);
  if (other) who = other;
  else {
    const device = o.service.devices.byId(g.device);
    if (!device) return refuse(403, 'device-revoked', 'this device was revoked: its actions answer nothing');
    if (!o.service.isLive(device))
      return refuse(403, 'principal-revoked', `the token ${device.principal.name} registered this device with was revoked: its actions answer nothing`);
    who = { name: device.principal.name, scopes: device.principal.scopes, via: 'push', key: device.id, capture: o.service.capture };
  }
  const a = await answerAs(o, who, g.request, { action: action as PushAction });
  if (!a.ok) return refuse(a.status, a.error, a.detail);
  return { status: 200, body: { answered: true, request: g.request, option: a.option, by: who.name, ...(a.rule ? { rule: a.rule } : {}) } };
}
