// The pieces of `hookmap up` around its start-up sequence (engine/app/up.ts):
// who may connect (the relay's credentials and up's own in-memory one), the
// audit trail, the daemons' share of /healthz, the bridges it runs as
// ordinary consumers of its own relay, and the line it prints per agent.
import type { FastifyInstance } from 'fastify';
import { appendFileSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANONYMOUS, Authorizer, TokenSource } from '../runtime/auth/authorizer.ts';
import { InProcessSource } from '../runtime/auth/in-process.ts';
import type { TlsFiles } from '../runtime/auth/server-limits.ts';
import { tlsClientOptions } from '../runtime/auth/tls.ts';
import { bridgeStatePath, type BridgeConfig } from '../person/bridge/config.ts';
import type { BridgeHandle } from '../person/bridge/run.ts';
import type { Daemon } from '../runtime/daemon/daemon.ts';
import type { AuditRecord, Relay } from '../runtime/relay/index.ts';
import { restoreFromLogs } from '../runtime/daemon/relay-restore.ts';
import type { StreamSubscriber } from '../runtime/surface/stream-subscriber.ts';
import { ensureParent } from '../core/io/paths.ts';
import { processExists } from '../core/io/pid.ts';

export interface UpCredentials {
  token?: string;
  tokenFile?: string;
  home?: string;
  noAuth?: boolean;
}

/** The relay's credentials; `linkToken`: the in-memory one up's own links present (none with --no-auth: watch-only). */
export function authFor(o: UpCredentials, say: (line: string) => void): { auth: Authorizer; linkToken?: string } {
  if (o.noAuth) {
    if (o.token || o.tokenFile) throw new Error('--no-auth cannot be combined with a token');
    return { auth: new Authorizer([], ANONYMOUS) };
  }
  if (!o.token && !o.tokenFile) throw new Error('hookmap up needs a token (token or tokenFile), or noAuth for an explicitly watch-only relay');
  // asked first: a replaced owner token file revokes clients, never up's own links
  const own = new InProcessSource();
  return {
    auth: new Authorizer([own, new TokenSource({ ownerToken: o.token, ownerTokenFile: o.token ? undefined : o.tokenFile, home: o.home, say })]),
    linkToken: own.token,
  };
}

/** The audit trail: one JSON line per command routed or refused, with the authenticated sender. */
export function auditTo(file: string, say: (line: string) => void): (rec: AuditRecord) => void {
  let warned = false;
  let made = false;
  return (rec) => {
    try {
      // the home may not exist yet (a --no-auth relay creates no token there): made at the first line, 0700
      if (!made) made = Boolean(ensureParent(file));
      appendFileSync(file, `${JSON.stringify(rec)}\n`, { mode: 0o600 });
    } catch (e) {
      if (!warned) say(`audit: cannot append to ${file}: ${(e as Error).message}`);
      warned = true;
    }
  };
}

/** Resolves once every daemon's relay link said hello (or after `boundMs`): background work waits for it, not the links. */
export function linksReady(daemons: Map<string, Daemon>, boundMs = 2000): Promise<void> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const look = () => ([...daemons.values()].every((d) => d.relayReady) || Date.now() - t0 > boundMs ? resolve() : setTimeout(look, 10).unref());
    look();
  });
}

/** The relay answers /healthz; add what only the daemons, the channels and the history indexer know (to a reader: a bare `ok` stays bare). */
export function addDaemonHealth(
  app: FastifyInstance,
  daemons: Map<string, Daemon>,
  subscribers: { agent: string; sub: StreamSubscriber }[],
  of: { channels?: () => readonly { name: string; health: { view(): unknown } }[]; history?: () => unknown } = {},
): void {
  app.addHook('onSend', async (req, _reply, payload) => {
    if (req.method !== 'GET' || req.url.split('?')[0] !== '/healthz' || typeof payload !== 'string') return payload;
    try {
      const body = JSON.parse(payload);
      if (!('sessions' in body)) return payload;
      body.relay = daemons.size > 0 && [...daemons.values()].every((d) => d.relayReady);
      body.agents = Object.fromEntries(
        [...daemons].map(([k, d]) => {
          const streams = subscribers.filter((x) => x.agent === k).map((x) => x.sub.status());
          return [k, { relay: d.relayReady, control: d.controlOn, epoch: d.epoch, ...(streams.length ? { streams } : {}) }];
        }),
      );
      const channels = of.channels?.() ?? [];
      if (channels.length) body.channels = Object.fromEntries(channels.map((c) => [c.name, c.health.view()]));
      const history = of.history?.();
      if (history) body.history = history; // the indexer worker's state (GET /history/status says the same)
      return JSON.stringify(body);
    } catch {
      return payload;
    }
  });
}

/** Bridges are ordinary consumers of this relay over loopback (AEP-0005 §3.5), checkpointed per bridge. */
export async function startBridges(
  list: BridgeConfig[],
  o: { self: string; linkToken?: string; tls?: TlsFiles; stateDir: string; say: (line: string) => void },
): Promise<BridgeHandle[]> {
  const bridges: BridgeHandle[] = [];
  if (!list.length) return bridges;
  // loaded only when a bridge is configured: the OpenTelemetry packages are not `up`'s start-up cost otherwise
  const { runBridge } = await import('../person/bridge/run.ts');
  const { makeTarget } = await import('../person/bridge/targets.ts');
  for (const b of list) {
    const tag = `[bridge ${b.kind}]`;
    const h = runBridge({
      target: makeTarget(b),
      input: {
        kind: 'relay',
        url: o.self,
        token: o.linkToken,
        tls: o.tls ? tlsClientOptions(o.tls) : undefined,
        filter: b.filter,
        capture: b.capture,
        start: 'all',
        statePath: bridgeStatePath(b, 'up', o.stateDir),
      },
      batchMax: b.batchMax,
      batchMs: b.batchMs,
      delivery: { timeoutMs: b.timeoutMs, maxRetries: b.retries, headers: b.headers },
      say: (l) => o.say(`${tag} ${l}`),
    });
    h.done.catch((e) => o.say(`${tag} stopped: ${(e as Error).message}`));
    bridges.push(h);
    o.say(`  bridge:   ${b.kind} → ${b.endpoint ?? 'stdout'} (capture ceiling ${b.capture})`);
  }
  return bridges;
}

/** Where one agent's moments arrive, as `up` prints it. */
export function surfaceLine(d: Daemon, url: string): string {
  if (d.surfaceKind === 'stream-subscriber') return "subscribes to its configured instances' event streams";
  if (d.surfaceKind === 'otlp-receiver') return `POST ${url}/otlp/${d.vendor}/v1/logs (OTLP/HTTP logs, protobuf or JSON)`;
  if (d.surfaceKind === 'stdio-tee') return `${url.replace(/^http/, 'ws')}/surfaces/${d.vendor}/tee (hookmap tee ${d.vendor} -- <agent command>)`;
  return `POST ${url}/hooks/${d.vendor}[/<hook>]`;
}

export interface SummaryInput {
  url: string;
  tokenFile?: string;
  noAuth: boolean;
  daemons: Map<string, Daemon>;
  /** Agents whose descriptor could not start (each already said why). */
  failed: string[];
}

/** The head of `up`'s summary: where it listens, the inbox, the token, the agents ready (one line), the opt-ins in effect. */
export function summaryHead(s: SummaryInput): string[] {
  const agents = [...s.daemons.keys()];
  const optIns = [...s.daemons.values()].flatMap((d) => d.optIns().map((x) => ({ agent: d.vendor, ...x })));
  const on = optIns.filter((x) => x.on);
  const token = s.noAuth
    ? 'none (--no-auth): control: OFF, the relay is watch-only; nobody can answer, held hooks fail open at once'
    : s.tokenFile
      ? `${s.tokenFile} (local clients read it; reading the stream and answering need it)`
      : 'given by --token / HOOKMAP_TOKEN (clients need the same HOOKMAP_TOKEN)';
  const more = `${optIns.length - on.length} off; --verbose lists each with the variable that turns it on`;
  // every other descriptor option in effect: the ones set away from their defaults by name, the rest counted
  const options = [...s.daemons.values()].flatMap((d) =>
    d
      .options()
      .filter((x) => !x.optIn)
      .map((x) => ({ agent: d.vendor, ...x })),
  );
  const changed = options.filter((x) => x.changed);
  const atDefault = `${options.length - changed.length} at their defaults; --verbose lists each`;
  const changedList = changed.map((x) => `${x.agent} ${x.key}=${JSON.stringify(x.value)} (${x.env})`).join(', ');
  const allDefault = `all ${options.length} at their defaults (--verbose lists each)`;
  return [
    `hookmap up: listening on ${s.url} (relay + every agent's hooks, one port)`,
    `  inbox:    ${s.url}/${s.noAuth ? ' (nobody can sign in: --no-auth)' : ' (hookmap open prints a one-time sign-in link)'}`,
    `  token:    ${token}`,
    `  agents:   ${agents.length} ready: ${agents.join(', ') || 'none'}${s.failed.length ? `; NOT started: ${s.failed.join(', ')} (see above)` : ''}`,
    `  opt-ins:  ${on.length ? `${on.map((x) => `${x.agent} ${x.key} (${x.env})`).join(', ')} on; ${more}` : `none on (${more})`}`,
    `  options:  ${changed.length ? `${changedList}; ${atDefault}` : allDefault}`,
  ];
}

/** The tail of `up`'s summary: the commands to run next, in another terminal; `clientUrl`: where they look (HOOKMAP_URL or its default). */
export function summaryNext(url: string, clientUrl: string, noAuth: boolean): string[] {
  const steps = [
    ['hookmap setup <agent>', "wire an agent's hooks (--dry-run shows the change first)"],
    ['hookmap tail', 'watch the stream; it prints the command that answers a waiting agent'],
    ...(noAuth ? [] : [['hookmap open', 'the web inbox, signed in']]),
  ];
  const w = Math.max(...steps.map(([c]) => c.length));
  return [
    ...(url === clientUrl ? [] : [`  clients:  export HOOKMAP_URL=${url} (they look at ${clientUrl} unless told)`]),
    ...steps.map(([c, what], i) => `  ${i === 0 ? 'next:' : ''}`.padEnd(12) + `${c.padEnd(w)}  ${what}`),
  ];
}

/** `$HOOKMAP_HOME/up.json`: which `up` holds this home (pid, url), so a second one can say where the first runs. */
export const runningFile = (home: string) => join(home, 'up.json');

export interface RunningUp {
  pid: number;
  url: string;
}

/** Record this process as the home's `up` (0600); the returned function removes the record if it is still ours. */
export function recordRunning(home: string, url: string): () => void {
  const file = ensureParent(runningFile(home));
  const mine = JSON.stringify({ pid: process.pid, url, started: new Date().toISOString() });
  try {
    writeFileSync(file, `${mine}\n`, { mode: 0o600 });
  } catch {
    return () => {};
  }
  return () => {
    try {
      if (readFileSync(file, 'utf8').trim() === mine) unlinkSync(file);
    } catch {
      // gone already
    }
  };
}

/** The `up` recorded in the home, if its process still lives (a stale record from a crash is ignored). */
export function recordedUp(home: string): RunningUp | undefined {
  let rec: RunningUp;
  try {
    rec = JSON.parse(readFileSync(runningFile(home), 'utf8'));
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(rec?.pid) || typeof rec.url !== 'string' || rec.pid === process.pid) return undefined;
  return processExists(rec.pid) ? rec : undefined;
}

/** What `up --verbose` says of one daemon: where it listens, its logs, and every option in effect. */
export function daemonLines(d: Daemon, url: string): string[] {
  const out = [`  ${d.vendor}: ${surfaceLine(d, url)}  logs ${d.logDir} (epoch ${d.epoch})`];
  for (const x of d.optIns())
    out.push(
      `    ${x.key}: ${x.on ? 'ON' : 'off'} (${x.env}=${x.on ? 'false' : 'true'} to turn it ${x.on ? 'off' : 'on'}; ` +
        `${x.commands.join(', ')})${x.doc ? `: ${x.doc}` : ''}`,
    );
  for (const x of d.options().filter((o) => !o.optIn))
    out.push(
      `    ${x.key}: ${JSON.stringify(x.value)} (${x.changed ? `set; default ${JSON.stringify(x.default)}` : 'default'}; ` +
        `${x.env})${x.doc ? `: ${x.doc}` : ''}`,
    );
  return out;
}

/** Once every link is up: open what waited for them, then run the warm-ups; settles (never rejects) when all are done. */
export function warmAfterLinks(daemons: Map<string, Daemon>, open: () => void, warm: (() => Promise<unknown>)[]): Promise<void> {
  return linksReady(daemons)
    .then(() => (open(), Promise.all(warm.map((w) => w()))))
    .then(
      () => undefined,
      () => undefined,
    );
}

/** Durable resume: the relay's replay buffer refilled from the session logs (said as detail). */
export function refillFromLogs(relay: Relay, logDirs: string[], detail: (line: string) => void): void {
  const restored = restoreFromLogs(relay.core.store, (line) => relay.core.prepare(line), logDirs, relay.core.limits);
  if (restored.events)
    detail(
      `relay: replay buffer refilled from the session logs: ${restored.events} events in ${restored.sessions} ` +
        `sessions (${(restored.bytes / 2 ** 20).toFixed(1)} MiB, ${restored.ms} ms)${restored.skipped ? `, ${restored.skipped} unreadable lines skipped` : ''}`,
    );
}
