// The CLI edge's one read of the environment: process.env resolved into the
// typed runtime configuration (engine/core/config/schema.ts), checked as its zod schema would (checkCandidate),
// once per command; every layer below takes it (or the values it needs) as
// arguments. A command's flags override it where they name the same thing.
import type { TokenSources } from '../runtime/auth/discover.ts';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import type { RuntimeConfig } from '../core/config/schema.ts';
import type { Target } from '../core/io/target.ts';

import { ConfigError } from '../core/config/config-error.ts';
export { ConfigError };

import { DEFAULT_URL } from '../core/config/defaults.ts';
export { DEFAULT_URL };

/** The variables a field is read from, for error messages: `attentionTimeoutMs` -> HOOKMAP_ATTENTION_TIMEOUT_MS. */
const SOURCE: Record<string, string> = {
  home: 'HOOKMAP_HOME',
  url: 'HOOKMAP_URL',
  relay: 'HOOKMAP_RELAY',
  token: 'HOOKMAP_TOKEN',
  backplanePassword: 'HOOKMAP_BACKPLANE_PASSWORD',
  backplaneToken: 'HOOKMAP_BACKPLANE_TOKEN',
  hostId: 'HOOKMAP_HOST_ID',
  attentionTimeoutMs: 'HOOKMAP_ATTENTION_TIMEOUT_MS',
  stateDir: 'HOOKMAP_STATE_DIR',
  agentVersion: 'HOOKMAP_AGENT_VERSION',
  redaction: 'HOOKMAP_SECRET_NAMES / HOOKMAP_REDACT_PII',
};

/** Variables hookmap reads for itself; every other HOOKMAP_<AGENT>_<KEY> is a descriptor option override. */
const OWN = new Set([
  ...Object.values(SOURCE),
  'HOOKMAP_SECRET_NAMES',
  'HOOKMAP_REDACT_PII',
  'HOOKMAP_NO_FAST_EXPR',
  'HOOKMAP_SHIM_TIMEOUT_MS',
  'HOOKMAP_TOKEN_FILE',
]);

const blank = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** A positive integer from a variable, or the variable's name in a ConfigError. */
function integer(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = blank(env[name]);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) < 1)
    throw new ConfigError(`${name} must be a positive integer (got ${JSON.stringify(v)})`);
  return Number(v);
}

/** The runtime configuration from an environment (process.env at the edge; a test passes its own). */
export function resolveConfig(env: NodeJS.ProcessEnv): RuntimeConfig {
  const options: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (/^HOOKMAP_[A-Z0-9]+(?:_[A-Z0-9]+)+$/.test(k) && !OWN.has(k) && v !== undefined) options[k] = v;
  const home = blank(env.HOOKMAP_HOME) ?? join(homedir(), '.hookmap');
  const candidate = {
    home,
    url: (blank(env.HOOKMAP_URL) ?? DEFAULT_URL).replace(/\/+$/, ''),
    relay: (blank(env.HOOKMAP_RELAY) ?? DEFAULT_URL).replace(/\/+$/, ''),
    token: blank(env.HOOKMAP_TOKEN),
    backplanePassword: blank(env.HOOKMAP_BACKPLANE_PASSWORD),
    backplaneToken: blank(env.HOOKMAP_BACKPLANE_TOKEN),
    hostId: (blank(env.HOOKMAP_HOST_ID) ?? (hostname() || 'localhost')).toLowerCase().replace(/[^a-z0-9.-]+/g, '-') || 'localhost',
    attentionTimeoutMs: integer(env, 'HOOKMAP_ATTENTION_TIMEOUT_MS'),
    // every piece of client state lives under the home (tail's positions, bridges' checkpoints)
    stateDir: blank(env.HOOKMAP_STATE_DIR) ?? join(home, 'state'),
    agentVersion: blank(env.HOOKMAP_AGENT_VERSION),
    fastExpr: !blank(env.HOOKMAP_NO_FAST_EXPR),
    redaction: {
      secretNames: (env.HOOKMAP_SECRET_NAMES ?? '')
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
      pii: !/^(0|off|false|no)$/i.test(env.HOOKMAP_REDACT_PII ?? ''),
    },
    options,
  };
  return checkCandidate(candidate);
}

/**
 * The zod schema's verdict on a candidate built above, without loading zod
 * at every command's start (its import alone costs about as much as Node's
 * own start-up): the only constraints this construction can break are the
 * two URLs (zod's url(): the trimmed string parses as a URL). Every other
 * field is non-empty, an integer or a boolean by construction.
 * test/cli/config.test.ts holds this equal to RuntimeConfigSchema.safeParse.
 */
export function checkCandidate(candidate: RuntimeConfig): RuntimeConfig {
  for (const field of ['url', 'relay'] as const) if (!URL.canParse(candidate[field].trim())) throw new ConfigError(`${SOURCE[field]}: Invalid URL`);
  return candidate;
}

/** HOOKMAP_<AGENT>_<KEY> overrides of one agent's descriptor options (JSON values accepted, else the string). */
export function agentOptionOverrides(cfg: RuntimeConfig, names: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, envName] of Object.entries(names)) {
    const v = cfg.options[envName];
    if (v === undefined) continue;
    try {
      out[key] = JSON.parse(v);
    } catch {
      out[key] = v;
    }
  }
  return out;
}

/** Where a client's token may come from, as the environment says (engine/runtime/auth/discover.ts takes the values). */
export function tokenSources(env: NodeJS.ProcessEnv): TokenSources {
  return { envTokenFile: blank(env.HOOKMAP_TOKEN_FILE), envToken: blank(env.HOOKMAP_TOKEN), home: blank(env.HOOKMAP_HOME) ?? join(homedir(), '.hookmap') };
}

/**
 * The machine setup and doctor act on, from the environment they target (process.env at the edge; a test
 * passes its own): the user's home from its HOME, hookmap's home and address from its HOOKMAP_HOME and
 * HOOKMAP_URL, and its other variables for the config paths descriptors name.
 */
export function resolveTarget(env: NodeJS.ProcessEnv): Target {
  const userHome = blank(env.HOME) ?? homedir();
  const named = { home: blank(env.HOOKMAP_HOME), url: blank(env.HOOKMAP_URL)?.replace(/\/+$/, '') };
  const vars = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('HOOKMAP_')));
  return { userHome, vars, home: named.home ?? join(userHome, '.hookmap'), url: named.url ?? DEFAULT_URL, named };
}

/** Settings a service must not hold in a file others may read (a token, a password) or that are the shims' own. */
const NOT_CARRIED = new Set([
  'HOOKMAP_TOKEN',
  'HOOKMAP_BACKPLANE_PASSWORD',
  'HOOKMAP_BACKPLANE_TOKEN',
  'HOOKMAP_AUTOSTART',
  'HOOKMAP_URL',
  'HOOKMAP_SHIM_TIMEOUT_MS',
]);

/** The HOOKMAP_* variables of an environment `hookmap service install` keeps in the unit (engine/tools/service/units.ts), with HOOKMAP_HOME resolved. */
export function carriedEnv(env: NodeJS.ProcessEnv, home: string): Record<string, string> {
  const out: Record<string, string> = { HOOKMAP_HOME: home };
  for (const [k, v] of Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (/^HOOKMAP_[A-Z0-9_]+$/.test(k) && v !== undefined && v !== '' && !NOT_CARRIED.has(k) && k !== 'HOOKMAP_HOME') out[k] = v;
  }
  return out;
}
