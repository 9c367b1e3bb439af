// Backplane settings as `hookmap relay` / `hookmap up` flags and the up
// config file's `backplane:` key take them (engine/relay/backplane/ is
// the store itself): the NATS URL(s), stream retention by age and bytes,
// and whether a relay that cannot reach it at start serves its local
// clients anyway.
import type { BackplaneOptions } from './stream.ts';

export interface BackplaneConfig extends BackplaneOptions {
  /** Unreachable at start: serve local clients from memory (true) instead of refusing to start. */
  optional?: boolean;
}

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const UNITS_B: Record<string, number> = { '': 1, b: 1, k: 1024, kib: 1024, m: 2 ** 20, mib: 2 ** 20, g: 2 ** 30, gib: 2 ** 30 };

/** "90s", "12h", "7d", "1500ms" or a bare number of ms. */
export function parseDuration(v: string | number, what: string): number {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(String(v).trim());
  const n = m ? Number(m[1]) * UNITS_MS[m[2] ?? 'ms'] : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${what} must be a duration like 90s, 12h or 7d (got ${JSON.stringify(v)})`);
  return n;
}

/** "512MiB", "2g", or a bare number of bytes. */
export function parseBytes(v: string | number, what: string): number {
  const m = /^(\d+)\s*([a-z]*)$/i.exec(String(v).trim());
  const unit = m ? UNITS_B[m[2].toLowerCase()] : undefined;
  const n = m && unit ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${what} must be a size like 512MiB or 2GiB (got ${JSON.stringify(v)})`);
  return n;
}

export function checkBackplaneUrl(url: string, what: string): string {
  for (const u of url.split(',')) {
    if (!/^(nats|tls|wss?):\/\/[^\s/]+/.test(u.trim())) throw new Error(`${what} must be nats://host:port (comma-separated for several servers), got ${JSON.stringify(u)}`);
  }
  return url;
}

/** The `backplane:` key of the up config: a URL string, or a mapping. */
export function backplaneFromDoc(doc: unknown, where: string): BackplaneConfig {
  if (typeof doc === 'string') return { url: checkBackplaneUrl(doc, where) };
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${where} must be a URL or a mapping { url, stream, prefix, max_age, max_bytes, optional }`);
  const d = doc as Record<string, unknown>;
  const known = new Set(['url', 'stream', 'prefix', 'max_age', 'max_bytes', 'duplicate_window', 'optional']);
  for (const k of Object.keys(d)) if (!known.has(k)) throw new Error(`${where}: unknown key '${k}' (known: ${[...known].join(', ')})`);
  if (typeof d.url !== 'string') throw new Error(`${where}.url is required (nats://host:port)`);
  return {
    url: checkBackplaneUrl(d.url, `${where}.url`),
    stream: d.stream === undefined ? undefined : String(d.stream),
    prefix: d.prefix === undefined ? undefined : String(d.prefix),
    maxAgeMs: d.max_age === undefined ? undefined : parseDuration(d.max_age as string, `${where}.max_age`),
    maxBytes: d.max_bytes === undefined ? undefined : parseBytes(d.max_bytes as string, `${where}.max_bytes`),
    duplicateWindowMs: d.duplicate_window === undefined ? undefined : parseDuration(d.duplicate_window as string, `${where}.duplicate_window`),
    optional: d.optional === undefined ? undefined : Boolean(d.optional),
  };
}

export const BACKPLANE_FLAGS = {
  backplane: { type: 'string' },
  'backplane-stream': { type: 'string' },
  'backplane-prefix': { type: 'string' },
  'backplane-max-age': { type: 'string' },
  'backplane-max-bytes': { type: 'string' },
  'backplane-optional': { type: 'boolean' },
} as const;

export const BACKPLANE_HELP = `  --backplane URL      share one stream with other relays through NATS JetStream (nats://host:4222)
  --backplane-stream S    JetStream stream name (default HOOKMAP)
  --backplane-prefix P    subject prefix, one NATS token (default hookmap)
  --backplane-max-age D   stream retention by age (default 7d)
  --backplane-max-bytes N stream retention by size (default: --buffer-bytes; per session: --buffer events);
                          every relay mirrors the stream in memory, so this is also each relay's buffer
  --backplane-optional    if NATS is unreachable at start, serve local clients from memory instead of exiting
`;

/** Backplane settings from parsed flags, or undefined when --backplane is absent. */
export function backplaneFromFlags(flags: Record<string, unknown>): BackplaneConfig | undefined {
  if (flags.backplane === undefined) {
    for (const k of Object.keys(BACKPLANE_FLAGS)) if (k !== 'backplane' && flags[k] !== undefined) throw new Error(`--${k} needs --backplane`);
    return undefined;
  }
  return {
    url: checkBackplaneUrl(String(flags.backplane), '--backplane'),
    stream: flags['backplane-stream'] as string | undefined,
    prefix: flags['backplane-prefix'] as string | undefined,
    maxAgeMs: flags['backplane-max-age'] === undefined ? undefined : parseDuration(flags['backplane-max-age'] as string, '--backplane-max-age'),
    maxBytes: flags['backplane-max-bytes'] === undefined ? undefined : parseBytes(flags['backplane-max-bytes'] as string, '--backplane-max-bytes'),
    optional: Boolean(flags['backplane-optional']),
  };
}
