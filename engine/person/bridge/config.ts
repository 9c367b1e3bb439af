// A bridge's configuration, one shape for the three ways to give it:
// `hookmap bridge <kind> --endpoint ...` flags, `hookmap up --bridge
// kind=URL[,key=value...]`, and the `bridges:` list of the `up` config
// file. Checked by its one schema (schema.ts); errors say which key and what is allowed.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import type { OtlpProtocol, OtlpSignal, TargetKind } from './targets.ts';
import type { z } from 'zod';
import { BridgeEntrySchema } from './schema.ts';
import { pathString } from '../../core/descriptor/errors.ts';

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

/** The bridge options each kind has (BridgeEntrySchema), for "mode is a cloudevents option". */
const OWN_KEYS: Record<string, TargetKind> = { protocol: 'otlp', signals: 'otlp', service_name: 'otlp', idle_close_ms: 'otlp', mode: 'cloudevents' };
const COUNTS = ['batch', 'batch_max', 'batch_ms', 'timeout_ms', 'retries', 'idle_close_ms'];

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

/** The entry as the schema reads it: snake_case keys (the CLI's camelCase and kebab-case too), a count given as digits a number, signals a list. */
function entryOf(o: Record<string, unknown>): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    const key = k.replace(/-/g, '_').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    doc[key] = COUNTS.includes(key) && typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  }
  if (typeof doc.signals === 'string') doc.signals = doc.signals.split(',').map((x) => x.trim());
  if (doc.headers && typeof doc.headers === 'object') doc.headers = Object.fromEntries(Object.entries(doc.headers).map(([k, v]) => [k, String(v)]));
  return doc;
}

/** One schema finding in the words the CLI and the config file use. */
function said(i: z.core.$ZodIssue, doc: Record<string, unknown>): string {
  const key = String(i.path[0] ?? '');
  const value = i.path.length ? doc[key] : doc;
  if (i.code === 'unrecognized_keys') return i.keys.map((k) => (OWN_KEYS[k] ? `${k} is a ${OWN_KEYS[k]} option` : `unknown key '${k}'`)).join('; ');
  if (i.code === 'invalid_union' && (i as { discriminator?: string }).discriminator === 'kind')
    return `kind must be one of ${TARGET_KINDS.join(', ')} (got ${JSON.stringify(doc.kind)})`;
  if (i.code === 'invalid_value')
    return `${pathString(i.path as (string | number)[])} must be one of ${i.values.map(String).join(', ')} (got ${JSON.stringify(value)})`;
  if (key === 'endpoint') return `endpoint '${String(value)}' is not a URL a bridge sends to: it must be http:// or https://`;
  if (COUNTS.includes(key)) return `${key} must be a non-negative integer`;
  return `${pathString(i.path as (string | number)[])}: ${i.message}`;
}

/**
 * From a plain object (the config file's entry, or flags gathered by the CLI). BridgeEntrySchema (schema.ts, a part of the
 * one up config schema) is its one checker: the entry is put in its words (snake_case keys, counts as numbers), checked,
 * and what it checked mapped.
 */
export function bridgeConfig(o: Record<string, any>, where = 'bridge'): BridgeConfig {
  const doc = entryOf(o);
  const r = BridgeEntrySchema.safeParse(doc);
  if (!r.success) throw new BridgeConfigError(`${where}: ${r.error.issues.map((i) => said(i, doc)).join('; ')}`);
  const e = r.data;
  const cfg: BridgeConfig = { kind: e.kind, capture: e.capture ?? 'metadata' };
  if (e.endpoint !== undefined) cfg.endpoint = checkEndpoint(e.endpoint);
  if (e.filter !== undefined) cfg.filter = e.filter;
  if (e.headers !== undefined) cfg.headers = e.headers;
  cfg.batchMax = e.batch_max ?? e.batch;
  cfg.batchMs = e.batch_ms;
  cfg.timeoutMs = e.timeout_ms;
  cfg.retries = e.retries;
  if (e.kind === 'otlp') {
    cfg.protocol = e.protocol;
    cfg.signals = e.signals;
    cfg.serviceName = e.service_name;
    cfg.idleCloseMs = e.idle_close_ms;
  }
  if (e.kind === 'cloudevents') cfg.mode = e.mode;
  return cfg;
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
