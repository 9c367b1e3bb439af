// `hookmap run`'s launcher mounted on `up` (engine/person/launch): its descriptors
// are the running daemons' own, it learns sessions from the relay's stream,
// and it audits on hookmap's own session (x.hookmap.launch.*).
import type { FastifyInstance } from 'fastify';
import type { Authorizer } from '../runtime/auth/authorizer.ts';
import type { OperatorLog } from '../runtime/daemon/operator-log.ts';
import { loadVendor } from '../core/descriptor/registry.ts';
import type { Descriptor } from '../core/descriptor/types.ts';
import type { ChatLaunch } from '../person/channels/chat-launch.ts';
import { launchCatalog } from '../person/launch/catalog.ts';
import { Launcher, type LaunchConfig, type StreamEvent } from '../person/launch/launcher.ts';
import { registerLaunchRoutes } from './launch-routes.ts';
import { PROJECT_ATTR } from '../core/capture/project.ts';
import { lineOf } from '../core/kernel/fold/story.ts';
import { ResumeAtReset } from '../person/launch/resume-at-reset.ts';
import { makePrincipal } from '../runtime/auth/principal.ts';
import { makeCommand } from '../runtime/relay/client.ts';
import type { Relay } from '../runtime/relay/index.ts';

const MAX_LABELS = 10_000;
import type { AgentEntry } from './up-config.ts';

export interface UpLaunchOptions {
  app: FastifyInstance;
  auth: Authorizer;
  relay: {
    subscribe(spec: { filter?: unknown; live?: boolean }, onEvent: (ev: StreamEvent) => void): { close(): void };
    connect: Relay['connect'];
  };
  /** The agents this up runs (their daemons' names): only they can be started, their hooks tell the session. */
  daemons: { has(agent: string): boolean };
  entries: readonly AgentEntry[];
  home: string;
  env?: Readonly<Record<string, string | undefined>>;
  config?: LaunchConfig;
  operator: () => OperatorLog | undefined;
  say: (line: string) => void;
}

/** Mounts the launch API; returns what the chat channels may use of it (`/new`). */
export function mountLaunch(o: UpLaunchOptions): ChatLaunch {
  const byVendor = new Map<string, Descriptor>();
  const loaded = (): Map<string, Descriptor> => {
    if (!byVendor.size)
      for (const e of o.entries) {
        try {
          const d = loadVendor(e.descriptor);
          byVendor.set(d.vendor, d);
        } catch {
          // a descriptor that did not load has no daemon either
        }
      }
    return byVendor;
  };
  // only an agent this up runs: its hooks are what tell the session
  const descriptor = (agent: string): Descriptor | undefined => (o.daemons.has(agent) ? loaded().get(agent) : undefined);
  const launcher = new Launcher({
    descriptor,
    home: o.home,
    env: o.env ?? {},
    url: () => ownUrl(o.app),
    config: o.config,
    subscribe: (onEvent) => o.relay.subscribe({ live: true }, onEvent),
    audit: (type, data) => {
      try {
        const op = o.operator();
        if (!op) throw new Error('the operator session is not open yet');
        op.publish(`x.hookmap.launch.${type}`, data);
      } catch (e) {
        o.say(`could not put the launch ${type} record on the stream: ${(e as Error).message}`);
      }
    },
    say: o.say,
  });
  const catalog = () =>
    launchCatalog(
      [...loaded().values()].filter((d) => o.daemons.has(d.vendor)),
      o.home,
      o.config?.projects,
    );
  registerLaunchRoutes(o.app, { launcher, catalog, auth: o.auth, say: o.say });
  // each session's project label (its session.started's, the folder's name) since up started: what a chat's Continue resumes in
  const labels = new Map<string, string>();
  const labelled = o.relay.subscribe({ live: true }, (ev) => {
    const label = (ev as { [PROJECT_ATTR]?: unknown })[PROJECT_ATTR];
    if (typeof label !== 'string' || !ev.session) return;
    labels.set(lineOf(ev.session), label);
    if (labels.size > MAX_LABELS) labels.delete(labels.keys().next().value!);
  });
  // opt-in: a session the agent stopped on a limit is continued at the reset (docs/usage.md)
  const after = o.config?.afterLimit;
  const resumer =
    after &&
    new ResumeAtReset({
      ...after,
      start: (r, who) => launcher.start(r, who),
      projectOf: (s) => labels.get(lineOf(s)),
      instruct: (agent, session, text) => instructAs(o.relay, agent, session, text),
      audit: (type, data) => o.operator()?.publish(type, data),
      say: o.say,
    });
  const limits = resumer && o.relay.subscribe({ live: true }, (ev) => resumer.seen(ev as Parameters<ResumeAtReset['seen']>[0]));
  o.app.addHook('onClose', async () => {
    limits?.close();
    resumer?.close();
    labelled.close();
    launcher.close(); // up's close: headless runs are its children, stopped with it
  });
  return { start: (r, who) => launcher.start(r, who), get: (id) => launcher.get(id), catalog, projectOf: (s) => labels.get(lineOf(s)) };
}

/** The continue prompt to a session still open, through the relay as principal `hookmap` (after-limit), like any steer. */
function instructAs(relay: UpLaunchOptions['relay'], agent: string, session: string, text: string): { ok: true; id: string } | { ok: false; why: string } {
  const principal = makePrincipal('hookmap', ['control'], 'after-limit', 'after-limit');
  const conn = relay.connect({ identity: { agent: 'hookmap-after-limit' }, role: 'consumer', principal });
  try {
    const cmd = { ...makeCommand(`x.${agent}.control.instruct`, session, { data: { text } }), agent: 'hookmap-after-limit' };
    const sent = conn.emit(cmd);
    return sent.ok ? { ok: true, id: cmd.id } : { ok: false, why: `${sent.code}: ${sent.detail}` };
  } finally {
    conn.close();
  }
}

/** This up's address as its runs' hooks reach it (loopback when it listens on every interface); undefined before it listens. */
export function ownUrl(app: FastifyInstance): string | undefined {
  const a = app.server.address();
  if (!a || typeof a === 'string') return undefined;
  const host = a.address === '0.0.0.0' || a.address === '::' ? '127.0.0.1' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return `${app.initialConfig.https ? 'https' : 'http'}://${host}:${a.port}`;
}
