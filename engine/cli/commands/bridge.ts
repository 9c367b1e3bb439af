// `hookmap bridge otlp|cloudevents|ocsf`: an AEP-0005 bridge. Live, it
// consumes the relay (resumes from its checkpoint after a restart, dedupes,
// retries its sink with backoff, bounded memory); with --from-file it
// projects a JSONL capture once. Without --endpoint it writes JSONL to
// stdout. `bridge cloudevents --inbound` is the other direction: a
// receiver that maps CloudEvents back to AEP and posts them to the relay.
import { join } from 'node:path';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { resolveConfig } from '../config.ts';
import { waitForSignal } from '../../app/signals.ts';
import { BridgeConfigError, bridgeConfig, bridgeStatePath, TARGET_KINDS, type BridgeConfig } from '../../person/bridge/config.ts';
import { startCeInbound } from '../../person/bridge/ce-inbound.ts';
import { runBridge } from '../../person/bridge/run.ts';
import { makeTarget } from '../../person/bridge/targets.ts';
import { ENDPOINT_FLAGS, endpoint } from './command-common.ts';
import { buildFilter } from './tail.ts';

const SPEC = {
  ...ENDPOINT_FLAGS,
  endpoint: { type: 'string' },
  sink: { type: 'string' },
  'from-file': { type: 'string' },
  capture: { type: 'string' },
  filter: { type: 'string', multiple: true },
  session: { type: 'string' },
  state: { type: 'string' },
  'no-resume': { type: 'boolean' },
  live: { type: 'boolean' },
  protocol: { type: 'string' },
  signals: { type: 'string' },
  'service-name': { type: 'string' },
  'idle-close-ms': { type: 'string' },
  mode: { type: 'string' },
  header: { type: 'string', multiple: true },
  batch: { type: 'string' },
  'batch-ms': { type: 'string' },
  'timeout-ms': { type: 'string' },
  retries: { type: 'string' },
  queue: { type: 'string' },
  inbound: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
} as const;

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  const say = (l: string) => process.stderr.write(`hookmap bridge: ${l}\n`);
  let flags, positionals, cfg: BridgeConfig;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    const kind = positionals[0];
    if (!kind || positionals.length > 1) throw new ArgError(`one target: ${TARGET_KINDS.join(' | ')}`);
    const o: Record<string, unknown> = { kind };
    const env = process.env;
    const ep = (flags.endpoint ?? flags.sink ?? (kind === 'otlp' ? env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined : undefined)) as string | undefined;
    if (ep !== undefined) o.endpoint = ep;
    if (flags.capture !== undefined) o.capture = flags.capture;
    const protocol = flags.protocol ?? (kind === 'otlp' ? env.OTEL_EXPORTER_OTLP_PROTOCOL || undefined : undefined);
    if (protocol !== undefined) o.protocol = protocol;
    if (flags.signals !== undefined) o.signals = flags.signals;
    const service = flags['service-name'] ?? (kind === 'otlp' ? env.OTEL_SERVICE_NAME || undefined : undefined);
    if (service !== undefined) o.service_name = service;
    if (flags['idle-close-ms'] !== undefined) o.idle_close_ms = flags['idle-close-ms'];
    if (flags.mode !== undefined) o.mode = flags.mode;
    const headers: Record<string, string> = {};
    if (kind === 'otlp' && env.OTEL_EXPORTER_OTLP_HEADERS)
      Object.assign(headers, parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS.split(','), 'OTEL_EXPORTER_OTLP_HEADERS'));
    Object.assign(headers, parseHeaders((flags.header as string[] | undefined) ?? [], '--header'));
    if (Object.keys(headers).length) o.headers = headers;
    for (const [flag, key] of [
      ['batch', 'batch'],
      ['batch-ms', 'batch_ms'],
      ['timeout-ms', 'timeout_ms'],
      ['retries', 'retries'],
    ] as const) {
      if (flags[flag] !== undefined) o[key] = flags[flag];
    }
    cfg = bridgeConfig(o, `bridge ${kind}`);
    const filter = buildFilter((flags.filter as string[] | undefined) ?? [], flags.session as string | undefined);
    if (Object.keys(filter).length) cfg.filter = filter;
  } catch (e) {
    if (e instanceof ArgError || e instanceof BridgeConfigError) {
      process.stderr.write(`hookmap bridge: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const relay = endpoint(flags);

  if (flags.inbound) {
    if (cfg.kind !== 'cloudevents') {
      process.stderr.write('hookmap bridge: --inbound is the CloudEvents → AEP direction: bridge cloudevents --inbound\n');
      return 2;
    }
    const inbound = await startCeInbound({
      relayUrl: relay.url,
      token: relay.token,
      host: flags.host as string | undefined,
      port: intFlag(flags.port, 'port', 0),
      say,
    });
    process.stdout.write(`${inbound.url}\n`);
    say(`receiving CloudEvents (binary, structured, batch) on ${inbound.url}; AEP events go to ${relay.url}/events`);
    return waitForSignal(() => inbound.close());
  }

  const target = makeTarget(cfg);
  const fromFile = flags['from-file'] as string | undefined;
  let problems = 0;
  const statePath =
    flags['no-resume'] || fromFile ? undefined : ((flags.state as string | undefined) ?? bridgeStatePath(cfg, relay.url, join(config.home, 'state')));
  let handle;
  try {
    handle = runBridge({
      target,
      input: fromFile
        ? { kind: 'file', path: fromFile }
        : { kind: 'relay', url: relay.url, token: relay.token, filter: cfg.filter, capture: cfg.capture, start: flags.live ? 'live' : 'all', statePath },
      batchMax: cfg.batchMax,
      batchMs: cfg.batchMs,
      queueMax: flags.queue === undefined ? undefined : intFlag(flags.queue, 'queue', 2048),
      delivery: { timeoutMs: cfg.timeoutMs, maxRetries: cfg.retries, headers: cfg.headers },
      say,
      onProblem: (p) => {
        problems++;
        process.stderr.write(`${fromFile}:${p.line}: ${p.code}: ${p.detail}\n`);
      },
    });
  } catch (e) {
    process.stderr.write(`hookmap bridge: ${(e as Error).message}\n`);
    return 2;
  }
  if (!fromFile) {
    say(`${cfg.kind} bridge on ${relay.url} → ${cfg.endpoint ?? 'stdout'} (capture ceiling ${cfg.capture}${statePath ? `, checkpoint ${statePath}` : ''})`);
    const onSignal = () => void handle.stop();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  try {
    const stats = await handle.done;
    if (fromFile) {
      const f = stats.file!;
      say(
        `${f.events} event(s) from ${f.lines} line(s)${f.problems ? `, ${f.problems} bad line(s) skipped` : ''}` +
          `${f.duplicates ? `, ${f.duplicates} duplicate(s)` : ''} ` +
          `→ ${stats.items} item(s)${stats.droppedItems ? `, ${stats.droppedItems} NOT delivered` : ''}`,
      );
    }
    return problems || stats.droppedItems ? 1 : 0;
  } catch (e) {
    process.stderr.write(`hookmap bridge: ${(e as Error).message}\n`);
    return 2;
  }
}

function parseHeaders(list: string[], what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    if (!h.trim()) continue;
    const i = h.search(/[=:]/);
    if (i <= 0) throw new ArgError(`${what} '${h}' must be key=value`);
    out[decodeURIComponent(h.slice(0, i).trim())] = decodeURIComponent(h.slice(i + 1).trim());
  }
  return out;
}
