// `hookmap serve`: one daemon, its own fastify on loopback, linked to a
// relay as an AEP emitter. In-process API so tests (and `hookmap up`'s
// sibling) start exactly what the CLI starts.
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { Authorizer, TokenSource } from '../runtime/auth/authorizer.ts';
import { followTokenFile } from '../runtime/auth/tokens.ts';
import { assertBindAllowed, exposureNotice } from '../runtime/auth/bind.ts';
import { Guard, installGuard } from '../runtime/auth/guard.ts';
import { applyServerLimits, serverOptions } from '../runtime/auth/server-limits.ts';
import type { Descriptor } from '../core/descriptor/types.ts';
import { Daemon } from '../runtime/daemon/daemon.ts';
import { agentLogDir, defaultHome } from '../core/io/paths.ts';
import type { RedactionSettings } from '../core/capture/redact.ts';
import type { Durability } from '../runtime/daemon/session-log.ts';
import { installHookGuard } from '../runtime/daemon/hook-guard.ts';
import { hookFrameworkErrors, registerHookRoutes } from '../runtime/daemon/http.ts';
import { registerToolRoutes } from '../runtime/daemon/tool-routes.ts';
import { registerOtlpRoutes } from '../runtime/surface/otlp-receiver.ts';
import { can } from '../runtime/auth/principal.ts';
import { attachTeeEndpoint } from '../runtime/surface/tee-endpoint.ts';
import { warmValidators } from '../core/aep/schemas.ts';
import { compilePending } from '../core/expr/compile.ts';
import { urlOf } from '../core/io/address.ts';

export const DEFAULT_SERVE_PORT = 8788;
export const DEFAULT_HOST = '127.0.0.1';

export interface ServeOptions {
  descriptor: Descriptor;
  host?: string;
  /** 0 = ephemeral. */
  port?: number;
  /** Relay base URL; undefined = no relay (events are logged only, holds fail open). */
  relay?: string;
  /** The relay token; also what a peer off this machine must present to the hook endpoint (with `home`'s named tokens). */
  token?: string;
  /**
   * The file `token` was read from: followed while serve runs (a replaced token is presented from the link's next
   * reconnect and accepted at the hook endpoint).
   */
  tokenFile?: string;
  /** $HOOKMAP_HOME, for named tokens accepted from off-machine hook senders, and the hook key (created when missing). */
  home?: string;
  /** The hook key callers must present (engine/runtime/auth/hook-key.mjs); default the home's; `false`: none. */
  hookKey?: string | false;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** This agent's log folder (default $HOOKMAP_HOME/logs/<agent>). */
  logDir?: string;
  attentionTimeoutMs?: number;
  maxBody?: number;
  config?: Record<string, unknown>;
  /** The host in every event's source URI (HOOKMAP_HOST_ID; default the hostname). */
  hostId?: string;
  /** HOOKMAP_<AGENT>_<KEY> values by variable name (RuntimeConfig.options). */
  optionVars?: Readonly<Record<string, string>>;
  /** Operator redaction settings (HOOKMAP_SECRET_NAMES / HOOKMAP_REDACT_PII and the environment holding the values). */
  redaction?: RedactionSettings;
  durability?: Durability;
  say?: (line: string) => void;
}

export interface Served {
  url: string;
  port: number;
  daemon: Daemon;
  close(): Promise<void>;
}

export async function startServe(o: ServeOptions): Promise<Served> {
  const say = o.say ?? (() => {});
  const host = o.host ?? DEFAULT_HOST;
  // peers off this machine (a non-loopback bind) need a token; none at all means loopback only
  const auth = o.token
    ? new Authorizer([new TokenSource({ ownerToken: o.tokenFile ? undefined : o.token, ownerTokenFile: o.tokenFile, home: o.home, say })])
    : undefined;
  assertBindAllowed(host, Boolean(auth));
  const logDir = o.logDir ?? agentLogDir(o.home ?? defaultHome(), o.descriptor.vendor);
  const daemon = Daemon.open({
    descriptor: o.descriptor,
    logDir,
    host: o.hostId,
    attentionTimeoutMs: o.attentionTimeoutMs,
    config: o.config,
    optionVars: o.optionVars,
    redaction: o.redaction,
    durability: o.durability,
    say: (l) => say(`[${o.descriptor.vendor}] ${l}`),
  });
  const daemons = new Map([[daemon.vendor, daemon]]);
  const app = Fastify({ ...serverOptions(), frameworkErrors: hookFrameworkErrors(daemons, say) });
  applyServerLimits(app.server);
  const guard = new Guard({ bind: host, allowedHosts: o.allowedHosts, allowedOrigins: o.allowedOrigins });
  installGuard(app, guard);
  const hookKey = installHookGuard(app, { daemons, auth, hookKey: o.hookKey, home: o.home, say });
  registerHookRoutes(app, { daemons, maxBody: o.maxBody, say });
  registerOtlpRoutes(app, { daemons, auth, maxBody: o.maxBody, say });
  registerToolRoutes(app, {
    daemons,
    say,
    authorize: auth
      ? (req) => {
          const r = auth.authenticate(req.raw);
          return r.ok && can(r.principal, 'emit');
        }
      : undefined,
  });
  const tee = attachTeeEndpoint(app.server, { daemons, say, guard, hookKey });
  app.get('/healthz', async () => ({ ok: true, relay: daemon.relayReady }));
  try {
    await app.listen({ host, port: o.port ?? DEFAULT_SERVE_PORT });
  } catch (e) {
    await daemon.close();
    auth?.close();
    throw e;
  }
  const { url } = urlOf(app.server.address() as AddressInfo);
  for (const l of exposureNotice(host, url, false)) say(l);
  if (o.relay)
    daemon.connectRelay(
      o.relay,
      o.token && o.tokenFile ? followTokenFile(o.tokenFile, o.token, (m) => say(`${m}: still presenting the token read before`)) : o.token,
    );
  void warmValidators(); // compiled now, not while the first hook waits
  void compilePending(); // so are the expressions of a descriptor built from the validated cache
  say(`${daemon.vendor} daemon listening on ${url}/hooks/${daemon.vendor} (epoch ${daemon.epoch}, logs ${daemon.logDir})`);
  say(
    o.relay
      ? `relay ${o.relay}: ${o.token ? 'token set, control on' : 'no token: watch-only, holds fail open at once'}`
      : 'no relay: events are logged only, holds fail open at once',
  );
  let closing: Promise<void> | undefined;
  return {
    url,
    port: (app.server.address() as AddressInfo).port,
    daemon,
    close: () =>
      (closing ??= (async () => {
        tee.close();
        await daemon.close(); // frees held hooks with neutral bytes before the server stops
        await app.close();
        auth?.close();
      })()),
  };
}
