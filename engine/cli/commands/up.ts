// `hookmap up`: relay + every enabled agent's daemon, one process, one port
// (`npm start`). Prints a short summary on stderr (where it listens, the
// inbox, the token file, the agents ready, the opt-ins on, what to run next;
// the per-agent detail under --verbose) and, for scripts, the base URL on
// stdout when stdout is not a terminal. A second `up` on the same home or
// address says in one line where the first one runs, exit 2.
import { DURABILITY, type Durability } from '../../runtime/daemon/session-log.ts';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { resolveConfig } from '../config.ts';
import { DEFAULT_HOST } from '../../app/serve.ts';
import { DEFAULT_UP_PORT, startUp } from '../../app/up.ts';
import { recordedUp, summaryNext } from '../../app/up-parts.ts';
import { answersHealthz } from '../../app/healthz-probe.ts';
import type { UpConfig } from '../../app/up-config.ts';
import { PROJECT_LABEL_MODES, UP_CAPTURE } from '../../app/up-options.ts';
import { ConfigError } from '../../core/config/config-error.ts';
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import type { ProjectLabelMode } from '../../core/capture/project.ts';
import { waitForSignal } from '../../app/signals.ts';
import { BridgeConfigError, parseBridgeSpec } from '../../person/bridge/config.ts';
import { BindError } from '../../runtime/auth/bind.ts';
import { TokenFileError } from '../../runtime/auth/tokens.ts';
import { resolveServerAuth, SERVER_AUTH_FLAGS } from './server-auth.ts';
import { PolicyLoadError } from '../../runtime/policy/source.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { clearBackoff, LAUNCHER, writeLauncher } from '../../runtime/shim/autostart.mjs';
import { hookmapVersion } from '../../core/io/version.ts';
import { BACKPLANE_FLAGS, backplaneFromFlags, finishAuth } from '../../runtime/relay/backplane/config.ts';

const SPEC = {
  port: { type: 'string' },
  host: { type: 'string' },
  config: { type: 'string' },
  policy: { type: 'string' },
  'attention-timeout-ms': { type: 'string' },
  durability: { type: 'string' },
  bridge: { type: 'string', multiple: true },
  capture: { type: 'string' },
  'project-label': { type: 'string' },
  'push-delay-ms': { type: 'string' },
  'public-url': { type: 'string' },
  verbose: { type: 'boolean', short: 'v' },
  ...SERVER_AUTH_FLAGS,
  ...BACKPLANE_FLAGS,
} as const;

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let cfg: UpConfig = {};
  let flags;
  try {
    ({ flags } = parseArgs(argv, SPEC));
    // the config's schema (zod) loads only when there is a file to check
    if (flags.config) cfg = (await import('../../app/up-config.ts')).loadUpConfig(flags.config as string, process.env);
    if (flags.durability !== undefined) {
      if (!DURABILITY.includes(flags.durability as Durability)) throw new ArgError(`--durability must be one of ${DURABILITY.join(', ')}`);
      cfg = { ...cfg, durability: flags.durability as Durability };
    }
    if (flags.capture !== undefined) {
      if (!UP_CAPTURE.includes(flags.capture as CaptureLevel)) throw new ArgError(`--capture must be one of ${UP_CAPTURE.join(', ')}`);
      cfg = { ...cfg, capture: flags.capture as CaptureLevel };
    }
    if (flags['project-label'] !== undefined) {
      if (!PROJECT_LABEL_MODES.includes(flags['project-label'] as ProjectLabelMode))
        throw new ArgError(`--project-label must be one of ${PROJECT_LABEL_MODES.join(', ')}`);
      cfg = { ...cfg, projects: { ...cfg.projects, mode: flags['project-label'] as ProjectLabelMode } };
    }
    const pub = flags['public-url'] as string | undefined;
    if (pub !== undefined && !/^https:\/\/[^/\s]+\/?$/.test(pub))
      throw new ArgError(`--public-url must be an https origin such as https://laptop.tail1234.ts.net (got ${pub})`);
    if (flags['push-delay-ms'] !== undefined) {
      // the flag is the delay everywhere: it overrides the config's and each agent's own
      const delayMs = intFlag(flags['push-delay-ms'], 'push-delay-ms', 0);
      const agents = Object.fromEntries(Object.entries(cfg.push?.agents ?? {}).map(([k, v]) => [k, { ...v, delayMs: undefined }]));
      cfg = { ...cfg, push: { ...cfg.push, delayMs, agents } };
    }
    const specs = (flags.bridge as string[] | undefined) ?? [];
    if (specs.length) cfg.bridges = [...(cfg.bridges ?? []), ...specs.map(parseBridgeSpec)];
    const secrets = { password: config.backplanePassword, token: config.backplaneToken };
    const bp = backplaneFromFlags(flags, secrets);
    if (bp) cfg.backplane = bp;
    else if (cfg.backplane) {
      try {
        cfg.backplane = { ...cfg.backplane, auth: finishAuth(cfg.backplane.auth, secrets, `${flags.config}: backplane`) };
      } catch (e) {
        throw new ConfigError((e as Error).message);
      }
    }
  } catch (e) {
    if (/--backplane/.test((e as Error).message)) {
      process.stderr.write(`hookmap up: ${(e as Error).message}\n`);
      return 2;
    }
    if (e instanceof ArgError || e instanceof ConfigError || e instanceof BridgeConfigError) {
      process.stderr.write(`hookmap up: ${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }
  const say = (l: string) => process.stderr.write(`${l}\n`);
  const verbose = Boolean(flags.verbose);
  let up;
  try {
    const host = (flags.host as string | undefined) ?? cfg.host ?? DEFAULT_HOST;
    const port = flags.port === undefined ? (cfg.port ?? DEFAULT_UP_PORT) : intFlag(flags.port, 'port', DEFAULT_UP_PORT);
    // before anything is created or opened: one that runs already is one line, not a lock error per agent
    const running = await alreadyRunning(config.home, host, port, Boolean(flags['tls-cert']));
    if (running) {
      say(`hookmap up: ${running}`);
      return 2;
    }
    const sec = resolveServerAuth(flags, process.env, say);
    const flagTimeout = flags['attention-timeout-ms'] === undefined ? undefined : intFlag(flags['attention-timeout-ms'], 'attention-timeout-ms', 0);
    up = await startUp({
      ...cfg,
      host,
      port,
      attentionTimeoutMs: flagTimeout ?? cfg.attentionTimeoutMs ?? config.attentionTimeoutMs,
      ...sec,
      policy: (flags.policy as string | undefined) ?? cfg.policy,
      publicUrl: flags['public-url'] as string | undefined,
      hostId: config.hostId,
      optionVars: config.options,
      redaction: { ...config.redaction, env: process.env },
      launchEnv: process.env,
      say,
      detail: verbose ? say : () => {},
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      say(
        `hookmap up: ${(e as Error).message.replace(/^listen EADDRINUSE: address already in use /, '')} ` +
          `is taken by another program (no hookmap answers there): --port N picks another`,
      );
      return 2;
    }
    process.stderr.write(`hookmap up: ${(e as Error).message}\n`);
    return e instanceof ArgError || e instanceof BindError || e instanceof TokenFileError || e instanceof PolicyLoadError ? 2 : 1;
  }
  afterStart(config.home);
  for (const l of summaryNext(up.url, config.url, !up.control)) say(l);
  say(`Ctrl-C stops it.${verbose ? '' : " --verbose shows each agent's endpoint, log folder, opt-ins and options."}`);
  // for scripts (url=$(hookmap up | head -1)); a terminal has the address in the summary already
  if (!process.stdout.isTTY) process.stdout.write(`${up.url}\n`);
  const code = await waitForSignal(() => up.close());
  say(code === 0 ? `hookmap up: stopped (${up.url})` : `hookmap up: stopped, but the drain hung (${up.url})`);
  return code;
}

/**
 * A start that works ends a start-on-demand back-off, and points the
 * launcher the shims start `up` through at this hookmap (an upgrade or a
 * moved checkout; only where setup wrote one: engine/runtime/shim/autostart.mjs).
 */
function afterStart(home: string): void {
  try {
    clearBackoff(home);
    if (existsSync(join(home, LAUNCHER))) writeLauncher(home, hookmapVersion());
  } catch {
    // best effort: the daemon runs either way
  }
}

/** Where an `up` already runs for this home or this address, as one sentence; undefined when none does. */
async function alreadyRunning(home: string, host: string, port: number, tls: boolean): Promise<string | undefined> {
  const fix = 'stop it first (Ctrl-C where it runs), or give this one its own --port and HOOKMAP_HOME';
  const rec = recordedUp(home);
  if (rec && (await answersHealthz(rec.url))) return `already running at ${rec.url} (pid ${rec.pid}, HOOKMAP_HOME ${home}): ${fix}`;
  if (port === 0 || tls) return undefined;
  const probe = `http://${host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host}:${port}`;
  if (await answersHealthz(probe))
    return `already running at ${probe} (pid unknown: it was started with another HOOKMAP_HOME, or it is a hookmap relay): ${fix}`;
  return undefined;
}
