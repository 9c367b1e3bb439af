// A bridge's configuration, one shape for the three ways to give it:
// `hookmap bridge <kind> --endpoint ...` flags, `hookmap up --bridge
// kind=URL[,key=value...]`, and the `bridges:` list of the `up` config
// file. Validated once here; errors say which key and what is allowed.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import { CAPTURE_ORDER } from '../../core/aep/schemas.ts';
import type { OtlpProtocol, OtlpSignal, TargetKind } from './targets.ts';

export const TARGET_KINDS: TargetKind[] = ['otlp', 'cloudevents', 'ocsf'];

export interface BridgeConfig {
  kind: TargetKind;
  endpoint?: string;
  capture: CaptureLevel;
  filter?: Record<string, unknown>;
  /** otlp */
  protocol?: OtlpProtocol;
  signals?: OtlpSignal[];
  serviceName?: string;
  idleCloseMs?: number;
  /** cloudevents */
  mode?: 'structured' | 'binary' | 'batch';
  /** extra request headers (a collector's auth) */
  headers?: Record<string, string>;
  batchMax?: number;
  batchMs?: number;
  timeoutMs?: number;
  retries?: number;
}

export class BridgeConfigError extends Error {}

const PROTOCOLS = ['http/protobuf', 'http/json'];
const SIGNALS = ['logs', 'traces'];
const MODES = ['structured', 'binary', 'batch'];

function oneOf<T extends string>(v: unknown, allowed: readonly string[], what: string): T {
  if (typeof v !== 'string' || !allowed.includes(v)) throw new BridgeConfigError(`${what} must be one of ${allowed.join(', ')} (got ${JSON.stringify(v)})`);
  return v as T;
}

function count(v: unknown, what: string): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new BridgeConfigError(`${what} must be a non-negative integer`);
  return n;
}

export function checkEndpoint(v: unknown, what = 'endpoint'): string {
  if (typeof v !== 'string') throw new BridgeConfigError(`${what} must be a URL`);
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new BridgeConfigError(`${what} '${v}' is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new BridgeConfigError(`${what} '${v}' must be http:// or https://`);
  return v;
}

/** From a plain object (the config file's entry, or flags gathered by the CLI). Keys: snake_case or camelCase. */
export function bridgeConfig(o: Record<string, any>, where = 'bridge'): BridgeConfig {
  const get = (k: string) => o[k] ?? o[k.replace(/_([a-z])/g, (_, c) => c.toUpperCase())];
  const known = new Set([
    'kind',
    'endpoint',
    'capture',
    'filter',
    'protocol',
    'signals',
    'service_name',
    'serviceName',
    'idle_close_ms',
    'idleCloseMs',
    'mode',
    'headers',
    'batch',
    'batch_max',
    'batchMax',
    'batch_ms',
    'batchMs',
    'timeout_ms',
    'timeoutMs',
    'retries',
  ]);
  for (const k of Object.keys(o)) if (!known.has(k)) throw new BridgeConfigError(`${where}: unknown key '${k}'`);
  try {
    const kind = oneOf<TargetKind>(o.kind, TARGET_KINDS, 'kind');
    const cfg: BridgeConfig = { kind, capture: o.capture === undefined ? 'metadata' : oneOf<CaptureLevel>(o.capture, CAPTURE_ORDER, 'capture') };
    if (o.endpoint !== undefined) cfg.endpoint = checkEndpoint(o.endpoint);
    if (o.filter !== undefined) {
      if (!o.filter || typeof o.filter !== 'object' || Array.isArray(o.filter)) throw new BridgeConfigError('filter must be an attr-match object');
      cfg.filter = o.filter;
    }
    if (o.headers !== undefined) {
      if (!o.headers || typeof o.headers !== 'object') throw new BridgeConfigError('headers must be a mapping of strings');
      cfg.headers = Object.fromEntries(Object.entries(o.headers).map(([k, v]) => [k, String(v)]));
    }
    cfg.batchMax = count(get('batch_max') ?? o.batch, 'batch');
    cfg.batchMs = count(get('batch_ms'), 'batch_ms');
    cfg.timeoutMs = count(get('timeout_ms'), 'timeout_ms');
    cfg.retries = count(o.retries, 'retries');
    if (kind === 'otlp') {
      if (o.protocol !== undefined) cfg.protocol = oneOf<OtlpProtocol>(o.protocol, PROTOCOLS, 'protocol');
      if (o.signals !== undefined) {
        const list = Array.isArray(o.signals) ? o.signals : String(o.signals).split(',');
        cfg.signals = list.map((s: unknown) => oneOf<OtlpSignal>(String(s).trim(), SIGNALS, 'signals'));
      }
      const sn = get('service_name');
      if (sn !== undefined) cfg.serviceName = String(sn);
      cfg.idleCloseMs = count(get('idle_close_ms'), 'idle_close_ms');
    } else {
      for (const k of ['protocol', 'signals', 'service_name', 'idle_close_ms']) if (get(k) !== undefined) throw new BridgeConfigError(`${k} is an otlp option`);
    }
    if (kind === 'cloudevents') {
      if (o.mode !== undefined) cfg.mode = oneOf<'structured' | 'binary' | 'batch'>(o.mode, MODES, 'mode');
    } else if (o.mode !== undefined) throw new BridgeConfigError('mode is a cloudevents option');
    return cfg;
  } catch (e) {
    if (e instanceof BridgeConfigError) throw new BridgeConfigError(`${where}: ${e.message}`);
    throw e;
  }
}

/** `otlp=http://collector:4318[,protocol=http/json,capture=redacted,...]` (the `up --bridge` form). */
export function parseBridgeSpec(spec: string): BridgeConfig {
  const m = /^([a-z]+)=(.*)$/.exec(spec);
  if (!m) throw new BridgeConfigError(`--bridge '${spec}': expected kind=URL (kind: ${TARGET_KINDS.join(', ')})`);
  const [url, ...rest] = m[2].split(',');
  const o: Record<string, unknown> = { kind: m[1], endpoint: url };
  for (const kv of rest) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new BridgeConfigError(`--bridge '${spec}': '${kv}' is not key=value`);
    const k = kv.slice(0, i).replace(/-/g, '_');
    o[k] = kv.slice(i + 1);
  }
  return bridgeConfig(o, `--bridge ${m[1]}`);
}

/** A bridge's checkpoint file: one per (where it reads, where it writes, what it selects). */
export function bridgeStatePath(cfg: BridgeConfig, reads: string, stateDir: string): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([reads, cfg.endpoint ?? 'stdout', cfg.filter ?? {}, cfg.capture]))
    .digest('hex')
    .slice(0, 12);
  return join(stateDir, `bridge-${cfg.kind}-${hash}.json`);
}
