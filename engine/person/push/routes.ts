// Web Push on `hookmap up`'s port:
//
//   GET  /push/key                 { publicKey }: the VAPID key a browser subscribes with      (read)
//   GET  /push/devices             the registered devices (name, push service host, who)       (read)
//   POST /push/devices { subscription, name? }  register this browser under the caller        (read)
//   POST /push/devices/revoke { name }          remove a device (its actions die with it)     (control, or its owner)
//   POST /push/test { name? }      a test notification                                         (read)
//   POST /push/presence { tab, visible }        an inbox tab is (not) visible: nobody at the desk = push at once (read)
//   POST /push/action { credential, action, request? }  a notification's button: allow | deny | always
//   POST /push/seen { request, via? }           the caller has seen a pending request (via inbox | push): its ladder's
//                                               later steps are skipped (read: seeing is not answering; attributed)
//
// Authenticated like the rules API (a bearer token, or the inbox cookie from
// this origin), except /push/action, whose one-time credential is its whole
// authentication (action.ts). JSON only, bounded; a cross-origin browser
// request is refused everywhere.
import { throttledSay } from '../../core/io/throttle.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authorizer } from '../../runtime/auth/authorizer.ts';
import { can, type Principal, type Scope } from '../../runtime/auth/principal.ts';
import { jsonOnly } from '../inbox/json-scope.ts';
import { answerAction, type ActionDeps } from './action.ts';
import { DeviceError, parseSubscription, type Device, type DevicePrincipal } from './devices.ts';

const MAX_BODY = 8192;

export interface PushRoutesOptions extends ActionDeps {
  auth: Authorizer;
  /** The token principal a request's principal stands for (a cookie session: the token it was made from). */
  owner: (p: Principal) => DevicePrincipal | undefined;
  /** Does a browser request come from this very origin? */
  sameOrigin: (req: FastifyRequest) => boolean;
  /** Record that `by` saw a pending request (x.hookmap.attention.seen on the stream); false: not pending, or nowhere to record it. */
  seen: (request: string, by: string, via: string) => boolean;
  say?: (line: string) => void;
}

const refuse = (reply: FastifyReply, status: number, error: string, detail: string) => reply.code(status).send({ error, detail });

/** What a device looks like to a client: never its endpoint (a capability URL) or keys. */
export const deviceView = (d: Device) => ({ name: d.name, service: new URL(d.subscription.endpoint).host, principal: d.principal.name, created: d.created });

export function registerPushRoutes(app: FastifyInstance, o: PushRoutesOptions): void {
  app.register(async (scope) => {
    // a malformed body anyone can send: said once a minute at most (engine/core/io/throttle.ts)
    const sayMalformed = throttledSay(o.say);
    jsonOnly(scope, MAX_BODY, (e) => sayMalformed(`push API: ${e.message}`));
    scope.addHook('onRequest', async (req, reply) => {
      if (typeof req.headers.origin === 'string' && !o.sameOrigin(req)) return refuse(reply, 403, 'forbidden', 'cross-origin request refused');
    });
    const who = (req: FastifyRequest, reply: FastifyReply, need: Scope): Principal | undefined => {
      const r = o.auth.authenticate(req.raw);
      if (!r.ok) {
        refuse(reply, 401, 'unauthorized', 'present the hookmap token (Authorization: Bearer) or sign in to the inbox');
        return undefined;
      }
      if (!can(r.principal, need)) {
        refuse(reply, 403, 'forbidden', `${r.principal.name} has no ${need} scope`);
        return undefined;
      }
      return r.principal;
    };
    const service = o.service;

    scope.get('/push/key', async (req, reply) => (who(req, reply, 'read') ? reply.send({ publicKey: service.publicKey }) : reply));

    scope.get('/push/devices', async (req, reply) =>
      who(req, reply, 'read') ? reply.send({ devices: service.devices.list().map(deviceView), capture: service.capture }) : reply,
    );

    scope.post('/push/devices', async (req, reply) => {
      const p = who(req, reply, 'read');
      if (!p) return reply;
      const owner = o.owner(p);
      if (!owner) return refuse(reply, 403, 'forbidden', `${p.name} signed in without a token a device can be bound to`);
      const b = (req.body ?? {}) as Record<string, unknown>;
      try {
        const sub = parseSubscription(b.subscription);
        const name = typeof b.name === 'string' && b.name.trim() ? b.name.trim() : undefined;
        const r = service.devices.add(sub, owner, name);
        o.say?.(`push: ${r.device.name} ${r.replaced ? 're-registered' : 'registered'} by ${owner.name} (${new URL(sub.endpoint).host})`);
        return reply.send({ device: deviceView(r.device), replaced: r.replaced });
      } catch (e) {
        if (e instanceof DeviceError) return refuse(reply, e.code === 'exists' ? 409 : 400, e.code, e.message);
        throw e;
      }
    });

    scope.post('/push/devices/revoke', async (req, reply) => {
      const p = who(req, reply, 'read');
      if (!p) return reply;
      const name = ((req.body ?? {}) as Record<string, unknown>).name;
      if (typeof name !== 'string' || !name) return refuse(reply, 400, 'bad-request', 'send { "name": "<device name>" }');
      const d = service.devices.list().find((x) => x.name === name);
      if (!d) return refuse(reply, 404, 'no-such-device', `no device named '${name}' (hookmap push list)`);
      if (!can(p, 'control') && d.principal.name !== p.name) return refuse(reply, 403, 'forbidden', `${p.name} may revoke only its own devices`);
      service.devices.revoke(d.id);
      service.credentials.forgetDevice(d.id);
      o.say?.(`push: ${d.name} revoked by ${p.name}`);
      return reply.send({ revoked: d.name });
    });

    scope.post('/push/test', async (req, reply) => {
      if (!who(req, reply, 'read')) return reply;
      const name = ((req.body ?? {}) as Record<string, unknown>).name;
      const results = await service.test(typeof name === 'string' && name ? name : undefined);
      if (!results.length)
        return refuse(
          reply,
          404,
          'no-such-device',
          typeof name === 'string' && name ? `no device named '${name}'` : 'no device is registered: press "Notify me" in the inbox on the device',
        );
      return reply.send({
        results: results.map((r) => ({ device: r.device, ok: r.result.ok, status: r.result.status, detail: r.result.ok ? undefined : r.result.detail })),
      });
    });

    scope.post('/push/presence', async (req, reply) => {
      if (!who(req, reply, 'read')) return reply;
      const b = (req.body ?? {}) as Record<string, unknown>;
      if (typeof b.tab !== 'string' || !/^[A-Za-z0-9_-]{8,64}$/.test(b.tab) || typeof b.visible !== 'boolean')
        return refuse(reply, 400, 'bad-request', 'send { "tab": "<8-64 letters>", "visible": true|false }');
      service.presence.report(b.tab, b.visible);
      return reply.code(204).send();
    });

    scope.post('/push/seen', async (req, reply) => {
      const p = who(req, reply, 'read');
      if (!p) return reply;
      const b = (req.body ?? {}) as Record<string, unknown>;
      const via = b.via ?? 'inbox';
      if (typeof b.request !== 'string' || !/^[A-Za-z0-9_.:-]{1,128}$/.test(b.request) || (via !== 'inbox' && via !== 'push'))
        return refuse(reply, 400, 'bad-request', 'send { "request": "<attention id>", "via": "inbox"|"push" }');
      if (!o.seen(b.request, p.name, via)) return refuse(reply, 404, 'not-pending', `no pending request ${b.request}`);
      return reply.code(204).send();
    });

    // a refusal anyone can provoke: said once a minute at most (engine/core/io/throttle.ts)
    const sayRefused = throttledSay(o.say);
    scope.post('/push/action', async (req, reply) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      const r = await answerAction(o, b.credential, b.action, b.request);
      if (r.status !== 200) sayRefused(`push: an action was refused: ${'error' in r.body ? `${r.body.error}: ${r.body.detail}` : ''}`);
      return reply.code(r.status).send(r.body);
    });
  });
}
