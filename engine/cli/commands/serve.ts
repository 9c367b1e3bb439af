// `hookmap serve <agent|descriptor.yaml>`: one daemon on loopback. Prints
// the base URL on stdout (scripts and tests read it), log lines on stderr.
// SIGINT/SIGTERM free held hooks with neutral bytes, then stop.
import { DURABILITY, type Durability } from '../../daemon/session-log.ts';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { loadVendor } from '../../descriptor/registry.ts';
import { envAttentionTimeout } from '../../daemon/daemon.ts';
import { DEFAULT_MAX_BODY } from '../../daemon/http.ts';
import { DEFAULT_HOST, DEFAULT_SERVE_PORT, startServe } from '../../daemon/serve.ts';
import { waitForSignal } from '../../daemon/signals.ts';
import { discoverToken } from '../../auth/discover.ts';
import { BindError } from '../../auth/bind.ts';
import { hookmapHome } from '../../daemon/paths.ts';

const SPEC = {
  port: { type: 'string' }, host: { type: 'string' }, relay: { type: 'string' }, 'no-relay': { type: 'boolean' }, token: { type: 'string' }, 'token-file': { type: 'string' },
  'log-dir': { type: 'string' }, 'attention-timeout-ms': { type: 'string' }, 'max-body': { type: 'string' }, fsync: { type: 'boolean' }, durability: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const HELP = `hookmap serve <agent|path/to/descriptor.yaml> [options]
  --port N                  listen port (default ${DEFAULT_SERVE_PORT}; 0 = ephemeral)
  --host H                  listen address (default ${DEFAULT_HOST})
  --relay URL[,URL...]      relay(s) to emit to, failing over in turn (default $HOOKMAP_RELAY or http://127.0.0.1:8787)
  --no-relay                log only; held hooks fail open at once
  --token-file F            the relay token in a file (default: HOOKMAP_TOKEN_FILE, HOOKMAP_TOKEN, then
                            $HOOKMAP_HOME/token for a loopback relay); without one control is off
  --token T                 the relay token itself (works, but argv is visible in ps)
  --log-dir D               this agent's log folder (default $HOOKMAP_HOME/logs/<agent>, HOOKMAP_HOME=~/.hookmap)
  --attention-timeout-ms N  hold timeout (default $HOOKMAP_ATTENTION_TIMEOUT_MS, else the descriptor's, else 55000)
  --max-body N              largest hook body, bytes (default ${DEFAULT_MAX_BODY})
  --durability none|fsync   what an acknowledged event survives: a hookmap crash (none, default) or power loss too (fsync: group commit)
  --fsync                   the same as --durability fsync
Endpoint: POST /hooks/<agent>[/<hook>] -> 200, body = the agent's reply bytes, x-hookmap-exit: <code>; GET /healthz -> {ok, relay}
`;

export async function run(argv: string[]): Promise<number> {
  let flags;
  let positionals;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (flags.help) {
      process.stdout.write(HELP);
      return 0;
    }
    if (positionals.length !== 1) throw new ArgError('serve takes exactly one agent id or descriptor path');
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap serve: ${e.message}\n${HELP}`);
      return 2;
    }
    throw e;
  }
  const say = (l: string) => process.stderr.write(`${l}\n`);
  let served;
  try {
    const descriptor = loadVendor(positionals[0]);
    const timeout = flags['attention-timeout-ms'] === undefined ? envAttentionTimeout() : intFlag(flags['attention-timeout-ms'], 'attention-timeout-ms', 0);
    const relay = flags['no-relay'] ? undefined : ((flags.relay as string | undefined) ?? (process.env.HOOKMAP_RELAY || 'http://127.0.0.1:8787'));
    const t = relay ? discoverToken({ url: relay, flagToken: flags.token as string | undefined, tokenFile: flags['token-file'] as string | undefined, env: process.env }) : { from: 'none' as const };
    if (t.warning) say(`warning: ${t.warning}`);
    served = await startServe({
      descriptor,
      host: (flags.host as string | undefined) ?? DEFAULT_HOST,
      port: intFlag(flags.port, 'port', DEFAULT_SERVE_PORT),
      relay,
      token: 'token' in t ? t.token : undefined,
      home: hookmapHome(process.env),
      logDir: flags['log-dir'] as string | undefined,
      attentionTimeoutMs: timeout,
      maxBody: flags['max-body'] === undefined ? undefined : intFlag(flags['max-body'], 'max-body', DEFAULT_MAX_BODY),
      durability: durabilityFlag(flags),
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
