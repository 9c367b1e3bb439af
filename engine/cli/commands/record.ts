// `hookmap record <agent>`: `hookmap serve`, plus every raw payload saved
// (redacted) as a fixture candidate under fixtures/<agent>/recorded/ or --out.
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { loadVendor } from '../../descriptor/registry.ts';
import { envAttentionTimeout } from '../../daemon/daemon.ts';
import { DEFAULT_HOST, DEFAULT_SERVE_PORT } from '../../daemon/serve.ts';
import { waitForSignal } from '../../daemon/signals.ts';
import { startRecord } from '../../record/recorder.ts';

const SPEC = {
  port: { type: 'string' }, host: { type: 'string' }, out: { type: 'string' }, relay: { type: 'string' }, token: { type: 'string' },
  'log-dir': { type: 'string' }, 'agent-version': { type: 'string' }, help: { type: 'boolean', short: 'h' },
} as const;

const HELP = `hookmap record <agent|path/to/descriptor.yaml> [options]
  --out DIR            where candidates go (default fixtures/<agent>/recorded)
  --port N             listen port (default ${DEFAULT_SERVE_PORT}; 0 = ephemeral)
  --host H             listen address (default ${DEFAULT_HOST})
  --relay URL          also emit to a relay (default: none; held hooks fail open at once)
  --token T            relay bearer token (or HOOKMAP_TOKEN)
  --log-dir D          the daemon's log folder
  --agent-version V    the agent's version when payloads do not state it (or HOOKMAP_AGENT_VERSION)
Every POST /hooks/<agent>[/<hook>] is answered exactly as \`hookmap serve\` answers it and its
body saved, redacted, as one \`kind: recorded\` YAML file.
`;

export async function run(argv: string[]): Promise<number> {
  let flags;
  let positionals;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (flags.help) { process.stdout.write(HELP); return 0; }
    if (positionals.length !== 1) throw new ArgError('record takes exactly one agent id or descriptor path');
  } catch (e) {
    if (e instanceof ArgError) { process.stderr.write(`hookmap record: ${e.message}\n${HELP}`); return 2; }
    throw e;
  }
  const say = (l: string) => process.stderr.write(`${l}\n`);
  let rec;
  try {
    rec = await startRecord({
      descriptor: loadVendor(positionals[0]),
      host: (flags.host as string | undefined) ?? DEFAULT_HOST,
      port: intFlag(flags.port, 'port', DEFAULT_SERVE_PORT),
      out: flags.out as string | undefined,
      relay: flags.relay as string | undefined,
      token: (flags.token as string | undefined) ?? (process.env.HOOKMAP_TOKEN || undefined),
      logDir: flags['log-dir'] as string | undefined,
      attentionTimeoutMs: envAttentionTimeout(),
      agentVersion: (flags['agent-version'] as string | undefined) ?? (process.env.HOOKMAP_AGENT_VERSION || undefined),
      say,
    });
  } catch (e) {
    process.stderr.write(`hookmap record: ${(e as Error).message}\n`);
    return e instanceof ArgError ? 2 : 1;
  }
  process.stdout.write(`${rec.url}\n`);
  return waitForSignal(async () => { await rec.close(); say(`recorded ${rec.files.length} payload(s) into ${rec.out}`); });
}
