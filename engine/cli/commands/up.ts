// `hookmap up`: relay + every enabled agent's daemon, one process, one port
// (`npm start`). Prints the base URL on stdout, what listens where and
// whether control is on to stderr.
import { DURABILITY, type Durability } from '../../daemon/session-log.ts';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { envAttentionTimeout } from '../../daemon/daemon.ts';
import { DEFAULT_HOST } from '../../daemon/serve.ts';
import { DEFAULT_UP_PORT, startUp } from '../../daemon/up.ts';
import { ConfigError, loadUpConfig, type UpConfig } from '../../daemon/up-config.ts';
import { waitForSignal } from '../../daemon/signals.ts';
import { BridgeConfigError, parseBridgeSpec } from '../../bridge/config.ts';
import { BindError } from '../../auth/bind.ts';
import { TokenFileError } from '../../auth/tokens.ts';
import { resolveServerAuth, SERVER_AUTH_FLAGS, SERVER_AUTH_HELP } from './server-auth.ts';
import { PolicyLoadError } from '../../policy/source.ts';
import { BACKPLANE_FLAGS, BACKPLANE_HELP, backplaneFromFlags } from '../../relay/backplane/config.ts';

const SPEC = {
  port: { type: 'string' }, host: { type: 'string' }, config: { type: 'string' }, policy: { type: 'string' },
  'attention-timeout-ms': { type: 'string' }, durability: { type: 'string' }, bridge: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' },
  ...SERVER_AUTH_FLAGS,
  ...BACKPLANE_FLAGS,
} as const;

const HELP = `hookmap up [--port N] [--host H] [--config F] [--policy F] [--bridge kind=URL ...] [--token-file F | --no-auth] [--tls-cert F --tls-key K]
  --port N                  one port for the relay and every hook endpoint (default ${DEFAULT_UP_PORT}; 0 = ephemeral)
  --host H                  listen address (default ${DEFAULT_HOST}; anything but loopback needs a token, and TLS is advised)
  --config F                YAML/JSON: agents to enable and their options (default: every descriptor in vendors/)
  --policy F                operator policy rules (docs/policy.md): loaded now (a broken file refuses the start), then watched
  --attention-timeout-ms N  every agent's hold timeout (default: config, $HOOKMAP_ATTENTION_TIMEOUT_MS, descriptor, 55000)
  --durability none|fsync   what an acknowledged event survives: a hookmap crash (none, default) or power loss too (fsync)
  --bridge kind=URL[,k=v]   run a bridge inside up, repeatable: otlp=http://collector:4318, cloudevents=URL, ocsf=URL
                            (options as in 'hookmap bridge': capture=, protocol=, signals=, mode=, service_name=, ...)
${SERVER_AUTH_HELP}${BACKPLANE_HELP}`;

export async function run(argv: string[]): Promise<number> {
  let cfg: UpConfig = {};
  let flags;
  try {
    ({ flags } = parseArgs(argv, SPEC));
    if (flags.help) {
      process.stdout.write(HELP);
      return 0;
    }
    if (flags.config) cfg = loadUpConfig(flags.config as string);
    if (flags.durability !== undefined) {
      if (!DURABILITY.includes(flags.durability as Durability)) throw new ArgError(`--durability must be one of ${DURABILITY.join(', ')}`);
      cfg = { ...cfg, durability: flags.durability as Durability };
    }
    const specs = (flags.bridge as string[] | undefined) ?? [];
    if (specs.length) cfg.bridges = [...(cfg.bridges ?? []), ...specs.map(parseBridgeSpec)];
    const bp = backplaneFromFlags(flags);
    if (bp) cfg.backplane = bp;
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
  let up;
  try {
    const sec = resolveServerAuth(flags, process.env, say);
    const flagTimeout = flags['attention-timeout-ms'] === undefined ? undefined : intFlag(flags['attention-timeout-ms'], 'attention-timeout-ms', 0);
    up = await startUp({
      ...cfg,
      host: (flags.host as string | undefined) ?? cfg.host ?? DEFAULT_HOST,
      port: flags.port === undefined ? (cfg.port ?? DEFAULT_UP_PORT) : intFlag(flags.port, 'port', DEFAULT_UP_PORT),
      attentionTimeoutMs: flagTimeout ?? cfg.attentionTimeoutMs ?? envAttentionTimeout(),
      ...sec,
      policy: (flags.policy as string | undefined) ?? cfg.policy,
      say,
    });
  } catch (e) {
    process.stderr.write(`hookmap up: ${(e as Error).message}\n`);
    return e instanceof ArgError || e instanceof BindError || e instanceof TokenFileError || e instanceof PolicyLoadError ? 2 : 1;
  }
  process.stdout.write(`${up.url}\n`);
  return waitForSignal(() => up.close());
}
