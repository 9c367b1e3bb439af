// Web Push in `hookmap up` (docs/push.md): the service, its routes, and the
// principal a registering browser stands for. Off for a `--no-auth` up
// (nobody signs in, nothing can answer) and for an embedding without a home.
import type { FastifyInstance } from 'fastify';
import type { Authorizer } from '../auth/authorizer.ts';
import type { Principal } from '../auth/principal.ts';
import type { Daemon } from '../daemon/daemon.ts';
import { SESSION_SOURCE, type Inbox } from '../inbox/index.ts';
import { sameOriginRequest } from '../inbox/routes.ts';
import type { RuleBook } from '../policy/rulebook.ts';
import type { Relay } from '../relay/index.ts';
import type { DevicePrincipal } from './devices.ts';
import type { PushConfig } from './escalation.ts';
import { registerPushRoutes } from './routes.ts';
import { PushService, type PushServiceOptions } from './service.ts';

export interface MountPushOptions {
  home: string;
  config: PushConfig;
  relay: Relay;
  daemons: ReadonlyMap<string, Daemon>;
  auth: Authorizer;
  inbox: Inbox;
  rules?: RuleBook;
  secure: boolean;
  /** Origins this server is also reached at (`up --public-url`). */
  publicOrigins?: readonly string[];
  say?: (line: string) => void;
  /** Observes each send (tests). */
  sent?: PushServiceOptions['sent'];
}

export function mountPush(app: FastifyInstance, o: MountPushOptions): PushService {
  const live = (p: DevicePrincipal) => o.inbox.creds.isLive(p);
  const service = new PushService({ home: o.home, config: o.config, relay: o.relay, daemons: o.daemons, live: (d) => live(d.principal), rules: !!o.rules, say: o.say, sent: o.sent });
  const owner = (p: Principal): DevicePrincipal | undefined => {
    if (p.source === 'token') return { name: p.name, scopes: [...p.scopes], key: p.credential };
    if (p.source === SESSION_SOURCE) return o.inbox.sessions.tokenOf(p.credential);
    return undefined;
  };
  registerPushRoutes(app, { service, relay: o.relay, daemons: o.daemons, rules: o.rules, auth: o.auth, owner, sameOrigin: (req) => sameOriginRequest(req.raw, o.secure, o.publicOrigins), say: o.say });
  return service;
}
