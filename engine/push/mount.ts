// Reaching a person away from the desk, in `hookmap up` (docs/push.md,
// docs/channels.md): the moments (engine/channels/moments.ts) told to Web
// Push and to each configured chat channel, the routes they answer through,
// and the principal a registering browser stands for. Off for a `--no-auth`
// up (nobody signs in, nothing can answer).
import type { FastifyInstance } from 'fastify';
import type { Authorizer } from '../auth/authorizer.ts';
import type { Principal } from '../auth/principal.ts';
import type { Daemon } from '../daemon/daemon.ts';
import { SESSION_SOURCE, type Inbox } from '../inbox/index.ts';
import { sameOriginRequest } from '../inbox/routes.ts';
import type { RuleBook } from '../policy/rulebook.ts';
import type { Relay } from '../relay/index.ts';
import { Moments, type MomentSink } from '../channels/moments.ts';
import type { DevicePrincipal } from './devices.ts';
import type { PushConfig } from './escalation.ts';
import { registerPushRoutes, type PushRoutesOptions } from './routes.ts';
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

export interface Away {
  push: PushService;
  moments: Moments;
  /** Add a sink (a chat channel) before start(); `holders` says who its action credentials answer as. */
  add(sink: MomentSink): void;
  holders: NonNullable<PushRoutesOptions['holders']>[];
  start(): void;
  close(): void;
}

export function mountPush(app: FastifyInstance, o: MountPushOptions): Away {
  const live = (p: DevicePrincipal) => o.inbox.creds.isLive(p);
  let moments: Moments | undefined;
  const push = new PushService({ home: o.home, capture: o.config.capture, live: (d) => live(d.principal), ack: (c, ms) => moments!.ack(c, ms), say: o.say, sent: o.sent });
  moments = new Moments({ relay: o.relay, daemons: o.daemons, config: o.config, presence: push.presence, rules: !!o.rules, say: o.say });
  moments.add(push);
  moments.onSettled((id) => push.credentials.settle(id));
  const owner = (p: Principal): DevicePrincipal | undefined => {
    if (p.source === 'token') return { name: p.name, scopes: [...p.scopes], key: p.credential };
    if (p.source === SESSION_SOURCE) return o.inbox.sessions.tokenOf(p.credential);
    return undefined;
  };
  const holders: NonNullable<PushRoutesOptions['holders']>[] = [];
  registerPushRoutes(app, {
    service: push,
    relay: o.relay,
    daemons: o.daemons,
    rules: o.rules,
    auth: o.auth,
    owner,
    holders: (g) => {
      for (const h of holders) {
        const w = h(g);
        if (w) return w;
      }
      return undefined;
    },
    sameOrigin: (req) => sameOriginRequest(req.raw, o.secure, o.publicOrigins),
    say: o.say,
  });
  const m = moments;
  return {
    push,
    moments: m,
    add: (sink) => m.add(sink),
    holders,
    start: () => m.start(),
    close: () => {
      m.close();
      push.close();
    },
  };
}
