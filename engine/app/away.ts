// Reaching a person away from the desk, in `hookmap up` (docs/push.md,
// docs/channels.md): the moments (engine/person/push/moments.ts) told to Web
// Push and to each configured chat channel, the routes they answer through,
// and the principal a registering browser stands for. Off for a `--no-auth`
// up (nobody signs in, nothing can answer).
import type { FastifyInstance } from 'fastify';
import type { Authorizer } from '../runtime/auth/authorizer.ts';
import type { Principal } from '../runtime/auth/principal.ts';
import { SESSION_SOURCE, type Inbox } from '../person/inbox/index.ts';
import { sameOriginRequest } from '../person/inbox/routes.ts';
import type { RuleBook } from '../runtime/policy/rulebook.ts';
import type { Relay } from '../runtime/relay/index.ts';
import { Moments, type MomentSink, type MomentsOptions } from '../person/push/moments.ts';
import type { Door } from '../person/push/door.ts';
import type { Channel } from '../person/channels/channel.ts';
import type { ChannelsConfig } from '../person/channels/config.ts';
import { openChannels } from '../person/channels/open.ts';
import type { ChatLaunch } from '../person/channels/chat-launch.ts';
import { registerTelegramWebhook } from '../person/channels/telegram-route.ts';
import type { TelegramChannel } from '../person/channels/telegram.ts';
import type { DevicePrincipal } from '../person/push/devices.ts';
import type { PushConfig } from '../person/push/escalation.ts';
import { registerPushRoutes, type PushRoutesOptions } from '../person/push/routes.ts';
import { PushService, type PushServiceOptions } from '../person/push/service.ts';
import { SEEN } from '../person/push/ladder.ts';
import { isOperatorRecord } from '../core/kernel/event.ts';
import type { People } from '../runtime/auth/people.ts';

export interface MountPushOptions {
  home: string;
  /** Named people (engine/runtime/auth/people.ts): a chat account answers only what is routed to its person. */
  people?: People;
  config: PushConfig;
  relay: Relay;
  /** The stream's pending requests and the control commands to their daemons, wherever they run (engine/person/push/door.ts). */
  door: Door;
  auth: Authorizer;
  inbox: Inbox;
  rules?: RuleBook;
  secure: boolean;
  /** Origins this server is also reached at (`up --public-url`). */
  publicOrigins?: readonly string[];
  say?: (line: string) => void;
  /** The chat channels (the up config's `channels:`). */
  channels?: ChannelsConfig;
  /** Observes each send (tests). */
  sent?: PushServiceOptions['sent'];
  /** up's launcher, for the channels' `/new`. */
  launch?: ChatLaunch;
  /** Whether an attention is the watch's own (engine/app/up-watch.ts). */
  watched?: MomentsOptions['watched'];
  /** hookmap's own session, where a seen is recorded (the inbox, a tapped notification, "I'm on it"). */
  operator?: () => { publish(type: string, data: Record<string, unknown>, about: { subject?: string }): unknown } | undefined;
}

export interface Away {
  push: PushService;
  moments: Moments;
  channels: Channel[];
  /** Add a sink before start(). */
  add(sink: MomentSink): void;
  /** Once listening: `base` is where action links point (the --public-url, else up's own address). */
  start(base: string): Promise<void>;
  close(): Promise<void>;
}

export function mountPush(app: FastifyInstance, o: MountPushOptions): Away {
  const live = (p: DevicePrincipal) => o.inbox.creds.isLive(p);
  // the service's acks come from the moments' watcher, made right after it (it needs the service's presence)
  const ref: { moments?: Moments } = {};
  const push = new PushService({
    home: o.home,
    capture: o.config.capture,
    live: (d) => live(d.principal),
    // a device listed under a person is theirs, else it is its token's person's: it hears only what is routed to them
    // a step with people reaches only theirs; a person in their quiet hours is skipped
    reaches:
      o.people &&
      ((d, id, audience) =>
        o.people!.reached(o.people!.personOf(`device:${d.id}`) ?? o.people!.personOf(d.principal.name), o.door.pending(id)?.people, audience, new Date())),
    ack: (c, ms) => ref.moments!.ack(c, ms),
    say: o.say,
    sent: o.sent,
  });
  const moments = (ref.moments = new Moments({
    relay: o.relay,
    door: o.door,
    config: o.config,
    presence: push.presence,
    rules: !!o.rules,
    watched: o.watched,
    own: isOperatorRecord, // an operator session's record, this up's or another's of the fleet
    say: o.say,
  }));
  moments.add(push);
  moments.onSettled((id) => push.credentials.settle(id));
  // someone saw a pending request: hookmap's own record on the stream, which every ladder of the fleet reads (engine/person/push/ladder.ts)
  const seen = (request: string, by: string, via: string): boolean => {
    const op = o.operator?.();
    if (!op || !o.door.pending(request)) return false;
    op.publish(SEEN, { by, via }, { subject: request });
    return true;
  };
  const owner = (p: Principal): DevicePrincipal | undefined => {
    if (p.source === 'token') return { name: p.name, scopes: [...p.scopes], key: p.credential };
    if (p.source === SESSION_SOURCE) return o.inbox.sessions.tokenOf(p.credential);
    return undefined;
  };
  // a channel's action credentials (ntfy, the webhook) answer as the principal its config names, while it is configured
  const channelPrincipal = (name: string): string | undefined =>
    name === 'ntfy' ? o.channels?.ntfy?.principal : name === 'webhook' ? o.channels?.webhook?.principal : undefined;
  const holders: NonNullable<PushRoutesOptions['holders']>[] = [
    (g) => {
      if (!g.device.startsWith('channel:')) return undefined;
      const ch = g.device.slice('channel:'.length);
      const name = channelPrincipal(ch);
      return name ? { name, scopes: ['read', 'control'], via: ch, key: ch } : { refused: `the ${ch} channel is not configured: its actions answer nothing` };
    },
  ];
  registerPushRoutes(app, {
    service: push,
    relay: o.relay,
    door: o.door,
    rules: !!o.rules,
    auth: o.auth,
    owner,
    seen,
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
  const channels: Channel[] = [];
  // webhook mode: the route exists before listening; the channel it feeds is made at start
  if (o.channels?.telegram?.webhook) registerTelegramWebhook(app, () => channels.find((c) => c.name === 'telegram') as TelegramChannel | undefined, o.say);
  return {
    push,
    moments: m,
    channels,
    add: (sink) => m.add(sink),
    async start(base) {
      if (o.channels) {
        const deps = (name: string) => ({
          answer: { relay: o.relay, door: o.door, rules: !!o.rules, personOf: o.people && ((n: string) => o.people!.personOf(n)), people: o.people },
          moments: m,
          credential: (x: { id: string; session: string; expires: number }) =>
            push.credentials.issue({ request: x.id, session: x.session, device: `channel:${name}`, expires: x.expires }),
          say: (l: string) => o.say?.(l),
          seen,
          launch: o.launch,
        });
        channels.push(...openChannels(o.channels, deps, base.replace(/\/+$/, '')));
        for (const ch of channels) {
          m.add(ch);
          // a channel that cannot start (a missing token file, a server down) says why; the others and the hooks go on
          await ch.start().catch((e) => o.say?.(`${ch.name}: not started: ${(e as Error).message}`));
        }
      }
      m.start();
    },
    async close() {
      m.close();
      push.close();
      for (const ch of channels) await ch.close().catch(() => undefined);
    },
  };
}
