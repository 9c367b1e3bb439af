// Backplane settings as `hookmap relay` / `hookmap up` flags and the up
// config file's `backplane:` key take them (engine/runtime/relay/backplane/ is
// the store itself): the NATS URL(s), stream retention by age and bytes,
// whether a relay that cannot reach it at start serves its local clients
// anyway, and how it authenticates to NATS (connect.ts). A password or a
// token is read from a file (mode 0600, as engine/runtime/auth/tokens.ts checks) or
// the environment (HOOKMAP_BACKPLANE_PASSWORD / _TOKEN, resolved at the CLI
// edge: engine/cli/config.ts), never taken from the command line.
import { resolve } from 'node:path';
import { readTokenFile } from '../../auth/tokens.ts';
import type { BackplaneAuth } from './connect.ts';
import type { BackplaneOptions } from './stream.ts';
import { BackplaneSchema } from './schema.ts';
import { pathString } from '../../../core/descriptor/errors.ts';

export interface BackplaneConfig extends BackplaneOptions {
  /** Unreachable at start: serve local clients from memory and join when NATS answers (true) instead of refusing to start. */
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
    if (!/^(nats|tls|wss?):\/\/[^\s/]+/.test(u.trim()))
      throw new Error(`${what} must be nats://host:port (comma-separated for several servers), got ${JSON.stringify(u)}`);
  }
  return url;
}

/** The secrets the CLI edge resolved from the environment (engine/core/config/schema.ts). */
export interface BackplaneSecrets {
  password?: string;
  token?: string;
}

/** One secret from a file (0600, one line), the option named in the error. */
function secretFile(file: string, what: string, kind: string): string {
  try {
    return readTokenFile(file, kind);
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Complete the auth with the environment's secrets (a --backplane-user with no
 * password file takes HOOKMAP_BACKPLANE_PASSWORD; no user and no token file:
 * HOOKMAP_BACKPLANE_TOKEN), and check what belongs together.
 */
export function finishAuth(auth: BackplaneAuth | undefined, env: BackplaneSecrets, what: string): BackplaneAuth | undefined {
  const a: BackplaneAuth = { ...auth };
  if (a.user !== undefined && a.pass === undefined && env.password !== undefined)
    Object.assign(a, { pass: env.password, source: 'HOOKMAP_BACKPLANE_PASSWORD' });
  if (a.user !== undefined && a.pass === undefined)
    throw new Error(`${what}: a NATS user needs a password: --backplane-password-file F (password_file in the config) or HOOKMAP_BACKPLANE_PASSWORD`);
  if (a.user === undefined && a.token === undefined && !a.creds && env.token !== undefined)
    Object.assign(a, { token: env.token, source: 'HOOKMAP_BACKPLANE_TOKEN' });
  if ([a.creds, a.user, a.token].filter((x) => x !== undefined).length > 1)
    throw new Error(`${what}: give one of a creds file, a user and password, or a token`);
  if (Boolean(a.tlsCert) !== Boolean(a.tlsKey))
    throw new Error(`${what}: mutual TLS needs both the client certificate and its key (--backplane-tls-cert and --backplane-tls-key)`);
  return Object.values(a).some((v) => v !== undefined) ? a : undefined;
}

/** The auth keys of a `backplane:` mapping (paths relative to the config file; `*_env` name a variable in `env`). */
function authFromDoc(d: Record<string, unknown>, where: string, base: string, env: Readonly<Record<string, string | undefined>>): BackplaneAuth | undefined {
  const path = (k: string) => (d[k] === undefined ? undefined : resolve(base, String(d[k])));
  const fromEnv = (k: string) => {
    if (d[k] === undefined) return undefined;
    const v = env[String(d[k])];
    if (v === undefined || v === '') throw new Error(`${where}.${k} names ${d[k]}, which is not set`);
    return v;
  };
  for (const [a, b] of [
    ['password_file', 'password_env'],
    ['token_file', 'token_env'],
  ])
    if (d[a] !== undefined && d[b] !== undefined) throw new Error(`${where}: ${a} and ${b} are exclusive`);
  const pf = path('password_file');
  const tf = path('token_file');
  const auth: BackplaneAuth = {
    creds: path('creds'),
    user: d.user === undefined ? undefined : String(d.user),
    pass: pf ? secretFile(pf, `${where}.password_file`, 'NATS password file') : fromEnv('password_env'),
    token: tf ? secretFile(tf, `${where}.token_file`, 'NATS token file') : fromEnv('token_env'),
    source: pf
      ? `${where}.password_file ${pf}`
      : tf
        ? `${where}.token_file ${tf}`
        : d.password_env
          ? `${where}.password_env ${d.password_env}`
          : d.token_env
            ? `${where}.token_env ${d.token_env}`
            : undefined,
    tlsCa: path('tls_ca'),
    tlsCert: path('tls_cert'),
    tlsKey: path('tls_key'),
  };
  return Object.values(auth).some((v) => v !== undefined) ? auth : undefined;
}

/**
 * The `backplane:` key of the up config: a URL string, or a mapping. BackplaneSchema (schema.ts, a part of the one up
 * config schema) is its one checker; what it checked is resolved here (paths against `base`, secrets from files or `env`).
 */
export function backplaneFromDoc(doc: unknown, where: string, base = '.', env: Readonly<Record<string, string | undefined>> = {}): BackplaneConfig {
  const r = BackplaneSchema.safeParse(doc);
  if (!r.success) throw new Error(r.error.issues.map((i) => `${pathString([where, ...(i.path as (string | number)[])])}: ${i.message}`).join('; '));
  if (typeof r.data === 'string') return { url: checkBackplaneUrl(r.data, where) };
  const d = r.data;
  return {
    url: checkBackplaneUrl(d.url, `${where}.url`),
    stream: d.stream,
    prefix: d.prefix,
    maxAgeMs: d.max_age === undefined ? undefined : parseDuration(d.max_age, `${where}.max_age`),
    maxBytes: d.max_bytes === undefined ? undefined : parseBytes(d.max_bytes, `${where}.max_bytes`),
    duplicateWindowMs: d.duplicate_window === undefined ? undefined : parseDuration(d.duplicate_window, `${where}.duplicate_window`),
    optional: d.optional,
    auth: authFromDoc(d, where, base, env),
  };
}

export const BACKPLANE_FLAGS = {
  backplane: { type: 'string' },
  'backplane-stream': { type: 'string' },
  'backplane-prefix': { type: 'string' },
  'backplane-max-age': { type: 'string' },
  'backplane-max-bytes': { type: 'string' },
  'backplane-optional': { type: 'boolean' },
  'backplane-creds': { type: 'string' },
  'backplane-user': { type: 'string' },
  'backplane-password-file': { type: 'string' },
  'backplane-token-file': { type: 'string' },
  'backplane-tls-ca': { type: 'string' },
  'backplane-tls-cert': { type: 'string' },
  'backplane-tls-key': { type: 'string' },
} as const;

export const BACKPLANE_HELP = `  --backplane URL      share one stream with other relays through NATS JetStream (nats://host:4222)
  --backplane-stream S    JetStream stream name (default HOOKMAP)
  --backplane-prefix P    subject prefix, one NATS token (default hookmap)
  --backplane-max-age D   stream retention by age (default 7d)
  --backplane-max-bytes N  stream retention by size (default: --buffer-bytes; per session: --buffer events);
                          every relay mirrors the stream in memory, so this is also each relay's buffer
  --backplane-optional    if NATS is unreachable at start (or refuses the credentials), serve local clients from memory
                          instead of exiting, keep retrying (1 s doubling to 30 s), and join the fleet when it answers
  --backplane-creds F     authenticate to NATS with a .creds file (user JWT + nkey seed)
  --backplane-user U      authenticate as user U; the password from --backplane-password-file F (mode 0600)
                          or HOOKMAP_BACKPLANE_PASSWORD (never on the command line)
  --backplane-token-file F  authenticate with the NATS token in F (or HOOKMAP_BACKPLANE_TOKEN)
  --backplane-tls-ca F    TLS to NATS, verifying the server with the CA in F (tls://host:4222 uses the system CAs)
  --backplane-tls-cert F --backplane-tls-key K   mutual TLS: this relay's client certificate and key
`;

/** Backplane settings from parsed flags, or undefined when --backplane is absent; `env`: the secrets the environment holds. */
export function backplaneFromFlags(flags: Record<string, unknown>, env: BackplaneSecrets = {}): BackplaneConfig | undefined {
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
    auth: finishAuth(authFromFlags(flags), env, '--backplane'),
  };
}

function authFromFlags(flags: Record<string, unknown>): BackplaneAuth {
  const f = (k: string) => flags[`backplane-${k}`] as string | undefined;
  const pf = f('password-file');
  const tf = f('token-file');
  if (pf !== undefined && f('user') === undefined) throw new Error('--backplane-password-file needs --backplane-user');
  return {
    creds: f('creds'),
    user: f('user'),
    pass: pf === undefined ? undefined : secretFile(pf, '--backplane-password-file', 'NATS password file'),
    token: tf === undefined ? undefined : secretFile(tf, '--backplane-token-file', 'NATS token file'),
    source: pf !== undefined ? `--backplane-password-file ${pf}` : tf !== undefined ? `--backplane-token-file ${tf}` : undefined,
    tlsCa: f('tls-ca'),
    tlsCert: f('tls-cert'),
    tlsKey: f('tls-key'),
  };
}
