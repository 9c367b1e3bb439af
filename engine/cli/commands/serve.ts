// `hookmap serve <agent|descriptor.yaml>`: one daemon on loopback. Prints
// the base URL on stdout (scripts and tests read it), log lines on stderr.
// SIGINT/SIGTERM free held hooks with neutral bytes, then stop.
import { DURABILITY, type Durability } from '../../runtime/daemon/session-log.ts';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { commandHelp, commandNamed } from '../usage.ts';
import { loadVendor } from '../../core/descriptor/registry.ts';
import { DEFAULT_MAX_BODY } from '../../runtime/daemon/http.ts';
import { DEFAULT_HOST, DEFAULT_SERVE_PORT, startServe } from '../../app/serve.ts';
import { waitForSignal } from '../../app/signals.ts';
import { discoverToken } from '../../runtime/auth/discover.ts';
import { BindError } from '../../runtime/auth/bind.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { resolveConfig, tokenSources } from '../config.ts';
import { configSets } from '../config-sets.ts';

const SPEC = {
  port: { type: 'string' },
  host: { type: 'string' },
  relay: { type: 'string' },
  'no-relay': { type: 'boolean' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'log-dir': { type: 'string' },
  'attention-timeout-ms': { type: 'string' },
  'max-body': { type: 'string' },
  fsync: { type: 'boolean' },
  durability: { type: 'string' },
  set: { type: 'string', multiple: true },
} as const;

const COMMAND = commandNamed('serve');

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let flags;
  let positionals;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (positionals.length !== 1) throw new ArgError('serve takes exactly one agent id or descriptor path');
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap serve: ${e.message}\n${commandHelp(COMMAND)}`);
      return 2;
    }
    throw e;
  }
  const say = (l: string) => process.stderr.write(`${l}\n`);
  let served;
  try {
    const descriptor = loadVendor(positionals[0]);
    const timeout = flags['attention-timeout-ms'] === undefined ? config.attentionTimeoutMs : intFlag(flags['attention-timeout-ms'], 'attention-timeout-ms', 0);
    const relay = flags['no-relay'] ? undefined : ((flags.relay as string | undefined) ?? config.relay);
    const t = relay
      ? discoverToken({
          url: relay,
          flagToken: flags.token as string | undefined,
          tokenFile: flags['token-file'] as string | undefined,
          from: tokenSources(process.env),
        })
      : { from: 'none' as const };
    if (t.warning) say(`warning: ${t.warning}`);
    served = await startServe({
      descriptor,
      host: (flags.host as string | undefined) ?? DEFAULT_HOST,
      port: intFlag(flags.port, 'port', DEFAULT_SERVE_PORT),
      relay,
      token: 'token' in t ? t.token : undefined,
      tokenFile: 'file' in t ? t.file : undefined,
      home: config.home,
      hostId: config.hostId,
      optionVars: config.options,
      redaction: { ...config.redaction, env: process.env },
      logDir: flags['log-dir'] as string | undefined,
      attentionTimeoutMs: timeout,
      maxBody: flags['max-body'] === undefined ? undefined : intFlag(flags['max-body'], 'max-body', DEFAULT_MAX_BODY),
      durability: durabilityFlag(flags),
      config: configSets(flags.set, descriptor),
      say,
    });
  } catch (e) {
    process.stderr.write(`hookmap serve: ${(e as Error).message}\n`);
    return e instanceof ArgError || e instanceof BindError ? 2 : 1;
  }
  process.stdout.write(`${served.url}\n`);
  return waitForSignal(() => served.close());
}

function durabilityFlag(flags: Record<string, unknown>): Durability | undefined {
  const v = flags.durability as string | undefined;
  if (v !== undefined && !DURABILITY.includes(v as Durability)) throw new ArgError(`--durability must be one of ${DURABILITY.join(', ')}`);
  return (v as Durability | undefined) ?? (flags.fsync ? 'fsync' : undefined);
}
