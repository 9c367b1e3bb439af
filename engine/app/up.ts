// `hookmap up`: the relay and every enabled agent's daemon in ONE process on ONE port. The hook routes and the relay's
// routes share one fastify instance; each daemon still talks to the relay as an AEP emitter (hello, claims, routed
// commands) with the same WebSocket protocol code as a separate `hookmap serve`, over a socket pair in this process
// (relay.dial) instead of loopback TCP: one code path.
import Fastify from 'fastify';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { assertBindAllowed, exposureNotice } from '../runtime/auth/bind.ts';
import { Guard, installGuard } from '../runtime/auth/guard.ts';
import { applyServerLimits, serverOptions, type ServerLimits, type TlsFiles } from '../runtime/auth/server-limits.ts';
import { readTokenFile } from '../runtime/auth/tokens.ts';
import { listVendors } from '../core/descriptor/registry.ts';
import type { BridgeHandle } from '../person/bridge/run.ts';
import { mountInbox } from '../person/inbox/index.ts';
import { mountPush, type Away } from './away.ts';
import type { PushServiceOptions } from '../person/push/service.ts';
import { describeFailedOpen, emptySummary, mergeFailedOpen, readFailedOpen, takeFailedOpen } from '../core/io/failed-open.ts';
import { createRelay, openBackplane, redacting, resolveLimits } from '../runtime/relay/index.ts';
import type { Daemon } from '../runtime/daemon/daemon.ts';
import { openDaemons } from './up-daemons.ts';
import { installHookGuard } from '../runtime/daemon/hook-guard.ts';
import { hookFrameworkErrors, registerHookRoutes } from '../runtime/daemon/http.ts';
import { registerToolRoutes } from '../runtime/daemon/tool-routes.ts';
import { can } from '../runtime/auth/principal.ts';
import { attachTeeEndpoint } from '../runtime/surface/tee-endpoint.ts';
import { registerOtlpRoutes, type OtlpReceiver } from '../runtime/surface/otlp-receiver.ts';
import type { StreamSubscriber } from '../runtime/surface/stream-subscriber.ts';
import { startSubscribers } from './up-streams.ts';
import { agentLogDir, defaultHome } from '../core/io/paths.ts';
import { Redactor, type RedactionSettings } from '../core/capture/redact.ts';
import { DEFAULT_HOST } from './serve.ts';
import { urlOf } from '../core/io/address.ts';
import type { AgentEntry, UpConfig } from './up-config.ts';
import { PolicySource } from '../runtime/policy/source.ts';
import type { OperatorLog } from '../runtime/daemon/operator-log.ts';
import { RuleBook } from '../runtime/policy/rulebook.ts';
import { registerRulesRoutes } from './rules-routes.ts';
import { Door } from '../person/push/door.ts';
import { mountLaunch } from './up-launch.ts';
import { pricesOf, startHistory, type HistoryHandle } from './history-routes.ts';
import { warmValidators } from '../core/aep/schemas.ts';
import { compilePending } from '../core/expr/compile.ts';
import { addDaemonHealth, auditTo, authFor, daemonLines, recordRunning, refillFromLogs, startBridges, summaryHead, warmAfterLinks } from './up-parts.ts';
import { upWatch } from './up-watch.ts';
import { announcePolicy } from './up-policy.ts';
import { startBudgets } from './up-budgets.ts';
import { keepHome } from '../core/io/home-modes.ts';
import { channelSecretFiles } from '../person/channels/config.ts';
import { DEFAULT_PORT as DEFAULT_UP_PORT } from '../core/config/defaults.ts';
export { DEFAULT_PORT as DEFAULT_UP_PORT } from '../core/config/defaults.ts';

export interface UpOptions extends UpConfig {
  /** The owner token itself (flag/env) ... */
  token?: string;
  /** ... or the file holding it ($HOOKMAP_HOME/token, created by the CLI), watched for changes. */
  tokenFile?: string;
  /** $HOOKMAP_HOME (default ~/.hookmap): named tokens (tokens.json), the inbox's browser sessions, logs/, state/. */
  home?: string;
  /** The host in every event's source URI (HOOKMAP_HOST_ID; default the hostname). */
  hostId?: string;
  /** HOOKMAP_<AGENT>_<KEY> values by variable name (RuntimeConfig.options); a config file's agent options override them. */
  optionVars?: Readonly<Record<string, string>>;
  /** Operator redaction settings (HOOKMAP_SECRET_NAMES / HOOKMAP_REDACT_PII and the environment holding the values). */
  redaction?: RedactionSettings;
  /** Explicitly token-less (watch-only, loopback only). */
  noAuth?: boolean;
  hookKey?: string | false; // the key the hook, waiter and tee routes require (default: the home's; no home, false: none)
  allowedHosts?: string[];
  allowedOrigins?: string[];
  tls?: TlsFiles;
  /** Append one JSON line per command routed or refused (0600). */
  auditFile?: string;
  /** What matters (the summary, warnings, problems). */
  say?: (line: string) => void;
  /** The per-agent detail (endpoints, log folders, opt-ins, each relay link's hello): `up --verbose`; default: say. */
  detail?: (line: string) => void;
  /** Bridge checkpoints (default $HOOKMAP_HOME/state). */
  stateDir?: string;
  /** The https address people reach this up at through a TLS-terminating proxy (Tailscale serve, a tunnel): its host and origin are this server's own. */
  publicUrl?: string;
  /** OTLP records waiting to be mapped past which an export is answered 429 (default DEFAULT_OTLP_MAX_PENDING). */
  otlpMaxPending?: number;
  otlpRecordsPerSecond?: number; // LogRecords an OTLP receiver maps per second on average (engine/runtime/surface/otlp-receiver.ts)
  serverLimits?: Partial<ServerLimits>; // sockets and timeouts of the one listener (engine/runtime/auth/server-limits.ts)
  pushSent?: PushServiceOptions['sent']; // observes each Web Push send (tests, bench)
  launchEnv?: Readonly<Record<string, string | undefined>>; // the environment `hookmap run`'s agents start with (the CLI's)
  budgetClock?: () => number; // the clock budget windows are read with (default Date.now; tests cross a day)
}

export interface Up {
  url: string;
  port: number;
  daemons: Map<string, Daemon>;
  bridges: BridgeHandle[];
  /** Web Push and the chat channels (undefined with --no-auth). */ away?: Away;
  /** Answers can be routed (false: --no-auth, watch-only). */ control: boolean;
  /** The OTLP receiver's counts and backlog. */ otlp: OtlpReceiver;
  /** Settles once the start's background work is done (links up, validators warmed, expressions compiled). */ warmed: Promise<void>;
  /** The history database and its indexer (none without a home; opened once the links are up). */ history?: HistoryHandle['service'];
  close(): Promise<void>;
}

export async function startUp(o: UpOptions): Promise<Up> {
  const say = o.say ? redacting(o.say) : () => {}; // every line (up.log too) through the one URL redactor
  const detail = o.detail ? redacting(o.detail) : say;
  // a link's first hello is detail; every other line of a daemon (a link down, a refused hello, an error) matters
  const tagged = (tag: string) => (l: string) => (/^relay link up: /.test(l) ? detail : say)(`[${tag}] ${l}`);
  const host = o.host ?? DEFAULT_HOST;
  const { auth, linkToken } = authFor(o, say);
  try {
    assertBindAllowed(host, auth.controlPossible);
  } catch (e) {
    auth.close();
    throw e;
  }
  const ownerToken = o.token ?? (o.tokenFile ? readTokenFile(o.tokenFile) : undefined);
  const daemons = new Map<string, Daemon>();
  // forceCloseConnections: an idle keep-alive (a consumer's pooled socket) must not hold shutdown hostage
  const app = Fastify({ ...serverOptions({ tls: o.tls }), forceCloseConnections: true, frameworkErrors: hookFrameworkErrors(daemons, say) });
  applyServerLimits(app.server, o.serverLimits);
  // Node hands an upgrading socket over with no error listener: a client resetting while its
  // upgrade is answered, refused or left to another listener must not take `up` down.
  app.server.prependListener('upgrade', (_req: IncomingMessage, socket: Duplex) => socket.on('error', () => socket.destroy()));
  const pub = o.publicUrl ? new URL(o.publicUrl) : undefined;
  const publicOrigins = pub ? [pub.origin.toLowerCase()] : [];
  const allowedHosts = [...(o.allowedHosts ?? []), ...(pub ? [pub.host] : [])];
  const guard = new Guard({ bind: host, allowedHosts, allowedOrigins: [...(o.allowedOrigins ?? []), ...publicOrigins] });
  installGuard(app, guard);
  // with a backplane the relay's store is the shared JetStream stream (opened, and caught up, before anything listens),
  // its messages signed with a key derived from the owner token
  const store = o.backplane
    ? await openBackplane({ ...o.backplane, token: ownerToken, tokenFile: o.token ? undefined : o.tokenFile }, resolveLimits({}), say).catch((e) => {
        auth.close();
        throw e;
      })
    : undefined;
  const audit = o.auditFile ? auditTo(o.auditFile, say) : undefined;
  const relay = createRelay({ app, guard, auth, prefix: '', audit, log: say, store, redactor: new Redactor(o.redaction) });
  if (o.people) relay.core.personOf = (p) => o.people!.personOf(p.name); // a person's views hold only what is routed to them
  const home = o.home ?? defaultHome();
  // what the shims wrote while nothing answered: taken (reported once, below) only once this up listens
  let missed = emptySummary();
  const inbox = mountInbox(app, { auth, home, secure: Boolean(o.tls), publicOrigins, failedOpen: () => mergeFailedOpen(missed, readFailedOpen(home)) });
  const subscribers: { agent: string; sub: StreamSubscriber }[] = [];
  const entries: AgentEntry[] = o.agents ?? listVendors().map((descriptor) => ({ descriptor }));
  // a broken policy file refuses the start (PolicyLoadError, coded): nothing runs under half a policy
  const policy = o.policy ? new PolicySource(o.policy, listVendors()) : undefined;
  // hookmap's own session (below): the policy's loads and refusals, rules added and revoked
  const op: { log?: OperatorLog } = {};
  const rules = new RuleBook({
    home: o.home,
    policy: policy ? () => policy.current : undefined,
    knownAgents: listVendors(),
    // hookmap's own files outside its home too: the floor keeps them for a person whatever they are called
    own: () => [o.tokenFile, ...channelSecretFiles(o.channels)],
    say: tagged('rules'),
    audit: (type, data) => {
      try {
        if (!op.log) throw new Error('the operator session is not open yet');
        op.log.publish(`x.hookmap.rule.${type}`, data);
      } catch (e) {
        say(`[rules] could not put the ${type} record on the stream: ${(e as Error).message}`);
      }
    },
  });
  const prices = pricesOf(home, tagged('usage'));
  const budgets = startBudgets({ app, relay, auth, prices }, o, () => op.log, tagged('budget'));
  const opened = await openDaemons(entries, daemons, {
    base: (e, vendor) => ({
      host: o.hostId,
      optionVars: o.optionVars,
      redaction: o.redaction,
      attentionTimeoutMs: e.attentionTimeoutMs ?? o.attentionTimeoutMs,
      config: e.config,
      durability: o.durability,
      capture: o.capture,
      projects: o.projects,
      prices,
      policy: policy ? () => policy.current : undefined,
      rules,
      people: o.people,
      budgets,
      say: tagged(vendor),
    }),
    logDir: (vendor) => (o.logDir ? join(o.logDir, vendor) : agentLogDir(home, vendor)),
    operator: { logDir: o.logDir ? join(o.logDir, '_operator') : agentLogDir(home, '_operator'), say: tagged('operator'), hostId: o.hostId },
    say,
  }).catch(async (e) => {
    policy?.close();
    auth.close();
    await store?.close();
    throw e;
  });
  const { instances, failed, operator } = opened;
  op.log = operator;
  const hookKey = installHookGuard(app, { daemons, auth, hookKey: o.hookKey, home: o.home, say }); // loopback is not an identity
  registerHookRoutes(app, { daemons, maxBody: o.maxBody, say });
  const otlp = registerOtlpRoutes(app, { daemons, auth, maxBody: o.maxBody, maxPending: o.otlpMaxPending, recordsPerSecond: o.otlpRecordsPerSecond, say });
  const canEmit = (r: ReturnType<typeof auth.authenticate>) => r.ok && can(r.principal, 'emit'); // asking a human, appending events (--no-auth: anonymous)
  registerToolRoutes(app, { daemons, say, authorize: (req) => canEmit(auth.authenticate(req.raw)) });
  const door = new Door(relay).started(); // the surfaces away read the stream and command through the relay (engine/person/push/door.ts)
  registerRulesRoutes(app, { book: rules, door, auth, say: tagged('rules') });
  const launch = mountLaunch({ app, auth, relay, daemons, entries, home, env: o.launchEnv, config: o.launch, operator: () => op.log, say: tagged('launch') });
  // the history database (an embedding without a home of its own has none): opened once the links are up, indexed from the logs in the background
  const logRoot = o.logDir ?? join(home, 'logs');
  const history = o.home ? startHistory(app, { home: o.home, logRoot, auth, say: tagged('history'), relay, people: o.people }) : undefined;
  const watch = upWatch(o.watch, tagged('watch')); // nothing waits unseen (engine/person/watch): started once the operator session is linked
  const away = auth.controlPossible // Web Push and the chat channels (engine/person/push, engine/person/channels): only where someone can sign in and answer
    ? mountPush(app, {
        home,
        config: o.push ?? {},
        people: o.people,
        relay,
        door,
        auth,
        inbox,
        rules,
        secure: Boolean(o.tls),
        publicOrigins,
        channels: o.channels,
        say: tagged('away'),
        sent: o.pushSent,
        launch,
        watched: watch.watched,
        operator: () => op.log,
      })
    : undefined;
  const tee = attachTeeEndpoint(app.server, { daemons, say, guard, hookKey });
  // durable resume: the replay buffer starts from the logs, so a subscriber resuming after a restart loses nothing
  refillFromLogs(relay, [...[...daemons.values()].map((d) => d.logDir), operator.logDir], detail);
  addDaemonHealth(app, daemons, subscribers, { channels: () => away?.channels ?? [], history: () => history?.service()?.status() });
  try {
    await app.listen({ host, port: o.port ?? DEFAULT_UP_PORT });
  } catch (e) {
    for (const d of daemons.values()) await d.close();
    await history?.close();
    auth.close();
    policy?.close();
    await operator.close();
    await store?.close();
    throw e;
  }
  const addr = app.server.address() as AddressInfo;
  const url = o.tls ? urlOf(addr).url.replace(/^http:/, 'https:') : urlOf(addr).url;
  // the home kept (tightened, the shims' scratch swept) and this `up` recorded in it, so a second one says where it runs
  const homeOff = o.home ? [keepHome(o.home, say), recordRunning(o.home, url)] : [];
  // daemons dial the relay over loopback even when the server listens on every interface
  const wildcard = addr.address === '0.0.0.0' || addr.address === '::';
  const self = wildcard ? `${o.tls ? 'https' : 'http'}://${addr.family === 'IPv6' ? '[::1]' : '127.0.0.1'}:${addr.port}` : url;
  // in this process: each link is a socket pair into the relay (the same protocol, no loopback TCP and HTTP upgrade each)
  for (const d of daemons.values()) d.connectRelay(self, linkToken, { dial: relay.dial });
  // stream-subscriber agents: the daemon attaches to each configured instance's event stream
  subscribers.push(...startSubscribers(daemons, instances, say, detail));
  await away?.start(o.publicUrl ?? url);
  // up's own credential, as the daemons' links have it
  operator.connectRelay(self, linkToken, { dial: relay.dial });
  watch.start(relay, operator);
  if (policy) announcePolicy(policy, operator, say);
  // the first hook would otherwise compile the AEP validators while an agent waits; descriptors built from the
  // validated cache compile each expression on first use: the rest now. Both once the links are up (they would slow them).
  const warmed = warmAfterLinks(daemons, () => history?.open(), [warmValidators, compilePending]);
  for (const l of summaryHead({ url, tokenFile: o.tokenFile, noAuth: !auth.controlPossible, daemons, failed })) say(l);
  for (const l of exposureNotice(host, url, Boolean(o.tls))) say(`  ${l}`);
  // what the shims traced while nothing answered: said once (a problem: those moments left no events), then moved aside
  missed = takeFailedOpen(home);
  if (missed.count) say(`  missed:   ${describeFailedOpen(missed)}, while hookmap was not answering: their events were not recorded (hookmap doctor)`);
  detail(`  relay: ${url}/events (POST, discovery, SSE) ${url}/stream (SSE) ${url.replace(/^http/, 'ws')}/socket (WebSocket)`);
  for (const d of daemons.values()) for (const l of daemonLines(d, url)) detail(l);
  const bridges = await startBridges(o.bridges ?? [], { self, linkToken, tls: o.tls, stateDir: o.stateDir ?? join(o.home ?? defaultHome(), 'state'), say });
  let closing: Promise<void> | undefined;
  return {
    url,
    port: addr.port,
    daemons,
    bridges,
    away,
    control: auth.controlPossible,
    otlp,
    warmed,
    history: history?.service,
    close: () =>
      (closing ??= (async () => {
        for (const b of bridges) await b.stop();
        await away?.close();
        tee.close();
        for (const x of subscribers) await x.sub.close();
        policy?.close();
        for (const d of daemons.values()) await d.close();
        watch.close(); // its open attentions resolved (dismissed) before the operator session closes
        await operator.close();
        await app.close();
        await history?.close();
        auth.close();
        for (const off of homeOff) off();
      })()),
  };
}
