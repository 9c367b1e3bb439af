// `hookmap up`: relay + every enabled agent's daemon, one process, one port
// (`npm start`). Prints the base URL on stdout, what listens where and
// whether control is on to stderr.
import { DURABILITY, type Durability } from '../../daemon/session-log.ts';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import type { RuntimeConfig } from '../../config/schema.ts';
import { resolveConfig } from '../config.ts';
import { DEFAULT_HOST } from '../../app/serve.ts';
import { DEFAULT_UP_PORT, startUp } from '../../app/up.ts';
import { ConfigError, loadUpConfig, PROJECT_LABEL_MODES, UP_CAPTURE, type UpConfig } from '../../app/up-config.ts';
import type { CaptureLevel } from '../../aep/schemas.ts';
import type { ProjectLabelMode } from '../../capture/project.ts';
import { waitForSignal } from '../../app/signals.ts';
import { BridgeConfigError, parseBridgeSpec } from '../../bridge/config.ts';
import { BindError } from '../../auth/bind.ts';
import { TokenFileError } from '../../auth/tokens.ts';
import { resolveServerAuth, SERVER_AUTH_FLAGS } from './server-auth.ts';
import { PolicyLoadError } from '../../policy/source.ts';
import { BACKPLANE_FLAGS, backplaneFromFlags, finishAuth } from '../../relay/backplane/config.ts';

const SPEC = {
  port: { type: 'string' }, host: { type: 'string' }, config: { type: 'string' }, policy: { type: 'string' },
  'attention-timeout-ms': { type: 'string' }, durability: { type: 'string' }, bridge: { type: 'string', multiple: true },
  capture: { type: 'string' }, 'project-label': { type: 'string' },
  ...SERVER_AUTH_FLAGS,
  ...BACKPLANE_FLAGS,
} as const;

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let cfg: UpConfig = {};
  let flags;
  try {
    ({ flags } = parseArgs(argv, SPEC));
    if (flags.config) cfg = loadUpConfig(flags.config as string, process.env);
    if (flags.durability !== undefined) {
      if (!DURABILITY.includes(flags.durability as Durability)) throw new ArgError(`--durability must be one of ${DURABILITY.join(', ')}`);
      cfg = { ...cfg, durability: flags.durability as Durability };
    }
    if (flags.capture !== undefined) {
      if (!UP_CAPTURE.includes(flags.capture as CaptureLevel)) throw new ArgError(`--capture must be one of ${UP_CAPTURE.join(', ')}`);
      cfg = { ...cfg, capture: flags.capture as CaptureLevel };
    }
    if (flags['project-label'] !== undefined) {
      if (!PROJECT_LABEL_MODES.includes(flags['project-label'] as ProjectLabelMode)) throw new ArgError(`--project-label must be one of ${PROJECT_LABEL_MODES.join(', ')}`);
      cfg = { ...cfg, projects: { ...cfg.projects, mode: flags['project-label'] as ProjectLabelMode } };
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
  let up;
  try {
    const sec = resolveServerAuth(flags, process.env, say);
    const flagTimeout = flags['attention-timeout-ms'] === undefined ? undefined : intFlag(flags['attention-timeout-ms'], 'attention-timeout-ms', 0);
    up = await startUp({
      ...cfg,
      host: (flags.host as string | undefined) ?? cfg.host ?? DEFAULT_HOST,
      port: flags.port === undefined ? (cfg.port ?? DEFAULT_UP_PORT) : intFlag(flags.port, 'port', DEFAULT_UP_PORT),
      attentionTimeoutMs: flagTimeout ?? cfg.attentionTimeoutMs ?? config.attentionTimeoutMs,
      ...sec,
      policy: (flags.policy as string | undefined) ?? cfg.policy,
      hostId: config.hostId,
      optionVars: config.options,
      redaction: { ...config.redaction, env: process.env },
      say,
    });
  } catch (e) {
    process.stderr.write(`hookmap up: ${(e as Error).message}\n`);
    return e instanceof ArgError || e instanceof BindError || e instanceof TokenFileError || e instanceof PolicyLoadError ? 2 : 1;
  }
  process.stdout.write(`${up.url}\n`);
  return waitForSignal(() => up.close());
}
