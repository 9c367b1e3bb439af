// The `hookmap up` config file (YAML or JSON), all keys optional:
//
//   port: 8787
//   host: 127.0.0.1
//   attention_timeout_ms: 55000    # every agent's holds (HOOKMAP_ATTENTION_TIMEOUT_MS otherwise)
//   max_body: 8388608              # largest hook body, bytes
//   log_dir: ~/.hookmap/logs       # base folder; each agent gets <log_dir>/<agent>
//   durability: none               # none: an acknowledged event survives a hookmap crash;
//                                  # fsync: also power loss (each answer waits for the disk, group commit)
//   policy: ./policy.yaml          # operator policy rules (docs/policy.md), watched while up runs
//   capture: metadata              # raise every agent's capture ceiling to at least this (metadata|redacted|full):
//                                  # redacted shows commands, paths and prompts through redaction (docs/privacy.md)
//   projects:                      # the project label a session shows (engine/capture/project.ts)
//     label: folder                # folder (default): the working folder's name, never its path; off: none
//     names: { ~/src/api: "Payments API" }   # a folder (and its subfolders) shown by another name
//   agents:                        # absent: every descriptor in vendors/
//     <agent-a>: {}                # enabled with defaults
//     <agent-b>:
//       enabled: true
//       attention_timeout_ms: 30000
//       descriptor: ./my/agent-b.yaml
//       config: { gate_tools: [Bash] }   # descriptor config overrides
//     <agent-c>:                   # a stream-subscriber agent (an agent server publishing events)
//       instances:
//         - url: http://127.0.0.1:8000
//           key_env: AGENT_SERVER_KEY          # or key: ... (never logged)
//           streams: [<id>, ...]                 # optional: else discovered
//
//   bridges:                       # AEP-0005 bridges run inside `up` (engine/bridge/config.ts)
//     - { kind: otlp, endpoint: http://collector:4318 }
//     - { kind: cloudevents, endpoint: http://broker/events, mode: binary, capture: metadata }
//
//   push:                          # Web Push to the devices that pressed "Notify me" (engine/push/escalation.ts)
//     delay_ms: 10000              # unanswered this long (at once when no inbox tab is visible)
//     quiet_hours: "22:00-07:00"
//     kinds: [permission, question, run_failed, idle, session_error]   # turn_finished: opt-in
//     capture: metadata            # what a notification may show (redacted: the command, through redaction)
//
//   channels:                      # cards to chats, answered by button or reply (engine/channels/config.ts)
//     telegram: { token_file: ~/.hookmap/telegram-token, chat_ids: [123], user_ids: [123] }
//
//   backplane: nats://nats.internal:4222   # share one stream with other relays (engine/relay/backplane/index.ts), or:
//   backplane: { url: nats://nats.internal:4222, stream: HOOKMAP, prefix: hookmap, max_age: 7d, max_bytes: 1GiB, optional: false }
//   # NATS auth and TLS (engine/relay/backplane/config.ts; paths relative to this file, secrets never inline):
//   #   creds: ./fleet.creds | user: hookmap + password_file: F or password_env: VAR | token_file: F or token_env: VAR
//   #   tls_ca: ./ca.pem, tls_cert: ./relay.pem, tls_key: ./relay-key.pem
//
// `agents` may also be a list of agent ids / descriptor paths.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { yaml } from '../text/yaml-lazy.ts';
import type { CaptureLevel } from '../aep/schemas.ts';
import type { ProjectLabelMode, ProjectLabels } from '../capture/project.ts';
import { DURABILITY, type Durability } from '../daemon/session-log.ts';
import { BridgeConfigError, bridgeConfig, type BridgeConfig } from '../bridge/config.ts';
import type { StreamInstance } from '../surface/stream-subscriber.ts';
import { backplaneFromDoc, type BackplaneConfig } from '../relay/backplane/config.ts';
import { pushConfigOf, PushConfigError, type PushConfig } from '../push/escalation.ts';
import { channelsConfigOf, ChannelConfigError, type ChannelsConfig } from '../channels/config.ts';

export interface AgentEntry {
  /** Agent id or descriptor path, as loadVendor() takes it. */
  descriptor: string;
  attentionTimeoutMs?: number;
  config?: Record<string, unknown>;
  /** The agent instances a stream-subscriber surface attaches to. */
  instances?: StreamInstance[];
}

export interface UpConfig {
  port?: number;
  host?: string;
  attentionTimeoutMs?: number;
  maxBody?: number;
  logDir?: string;
  durability?: Durability;
  /** The operator policy file (docs/policy.md). */
  policy?: string;
  /** undefined: every descriptor in vendors/. */
  agents?: AgentEntry[];
  bridges?: BridgeConfig[];
  /** Share the relay's stream with other relays through NATS JetStream. */
  backplane?: BackplaneConfig;
  /** Every agent's capture ceiling is at least this (`--capture`). */
  capture?: CaptureLevel;
  /** The session's project label (`--project-label`, `projects:`). */
  projects?: ProjectLabels;
  /** When a push goes out, and what it may show (engine/push/escalation.ts). */
  push?: PushConfig;
  /** Chat channels cards go to (engine/channels/config.ts). */
  channels?: ChannelsConfig;
}

/** The levels `--capture` / `capture:` may raise the ceiling to (none would lower it: not this option's job). */
export const UP_CAPTURE: readonly CaptureLevel[] = ['metadata', 'redacted', 'full'];
export const PROJECT_LABEL_MODES: readonly ProjectLabelMode[] = ['folder', 'off'];

function projectsOf(v: unknown, base: string, file: string): ProjectLabels | undefined {
  if (v === undefined) return undefined;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(`${file}: projects must be a mapping { label, names }`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'label' && k !== 'names') throw new ConfigError(`${file}: projects: unknown key '${k}' (known: label, names)`);
  if (o.label !== undefined && !PROJECT_LABEL_MODES.includes(o.label as ProjectLabelMode))
    throw new ConfigError(`${file}: projects.label must be one of ${PROJECT_LABEL_MODES.join(', ')} (got ${JSON.stringify(o.label)})`);
  let names: Record<string, string> | undefined;
  if (o.names !== undefined) {
    if (!o.names || typeof o.names !== 'object' || Array.isArray(o.names)) throw new ConfigError(`${file}: projects.names maps a folder to the name to show`);
    names = {};
    for (const [folder, name] of Object.entries(o.names as Record<string, unknown>)) {
      if (typeof name !== 'string' || !name.trim()) throw new ConfigError(`${file}: projects.names.${folder} must be a non-empty name`);
      names[expand(folder, base)] = name;
    }
  }
  return { mode: o.label as ProjectLabelMode | undefined, names };
}

export class ConfigError extends Error {}

/** `durability: none|fsync`; the older `fsync: true|false` still means the same. */
function durabilityOf(doc: Record<string, unknown>, file: string): Durability | undefined {
  if (doc.durability !== undefined) {
    if (!DURABILITY.includes(doc.durability as Durability))
      throw new ConfigError(`${file}: durability must be one of ${DURABILITY.join(', ')} (got ${JSON.stringify(doc.durability)})`);
    return doc.durability as Durability;
  }
  if (doc.fsync !== undefined) return doc.fsync ? 'fsync' : 'none';
  return undefined;
}

const posInt = (v: unknown, what: string, file: string): number | undefined => {
  if (v === undefined) return undefined;
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw new ConfigError(`${file}: ${what} must be a non-negative integer`);
  return v as number;
};

const expand = (p: string, base: string) => resolve(base, p.replace(/^~(?=$|\/)/, homedir()));

function instancesOf(v: unknown, where: string, file: string, env: Readonly<Record<string, string | undefined>>): StreamInstance[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw new ConfigError(`${file}: ${where} must be a list of {url, key | key_env, streams?}`);
  return v.map((x: any, i: number) => {
    const at = `${where}[${i}]`;
    if (!x || typeof x !== 'object' || Array.isArray(x)) throw new ConfigError(`${file}: ${at} must be a mapping`);
    for (const k of Object.keys(x))
      if (!['url', 'key', 'key_env', 'streams'].includes(k)) throw new ConfigError(`${file}: ${at}: unknown key '${k}' (known: url, key, key_env, streams)`);
    let url: URL;
    try {
      url = new URL(String(x.url));
    } catch {
      throw new ConfigError(`${file}: ${at}.url must be an http(s) URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${file}: ${at}.url must be an http(s) URL`);
    if (url.username || url.password) throw new ConfigError(`${file}: ${at}.url must not carry credentials (use key or key_env)`);
    if (x.key !== undefined && x.key_env !== undefined) throw new ConfigError(`${file}: ${at}: key and key_env are exclusive`);
    let key: string | undefined;
    if (x.key_env !== undefined) {
      key = env[String(x.key_env)];
      if (key === undefined || key === '') throw new ConfigError(`${file}: ${at}.key_env names ${x.key_env}, which is not set`);
    } else if (x.key !== undefined) key = String(x.key);
    if (x.streams !== undefined && (!Array.isArray(x.streams) || !x.streams.every((s: unknown) => typeof s === 'string' && s)))
      throw new ConfigError(`${file}: ${at}.streams must be a list of stream ids`);
    return { url: url.toString().replace(/\/+$/, ''), key, streams: x.streams };
  });
}

/** `env`: where an instance's `key_env` is looked up (the CLI edge hands its own environment down). */
export function loadUpConfig(file: string, env: Readonly<Record<string, string | undefined>>): UpConfig {
  let doc: any;
  try {
    doc = yaml().parse(readFileSync(file, 'utf8')) ?? {};
  } catch (e) {
    throw new ConfigError(`${file}: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`${file}: the config is a mapping`);
  const known = new Set([
    'port',
    'host',
    'attention_timeout_ms',
    'max_body',
    'log_dir',
    'durability',
    'fsync',
    'policy',
    'capture',
    'projects',
    'agents',
    'bridges',
    'backplane',
    'push',
    'channels',
  ]);
  for (const k of Object.keys(doc)) if (!known.has(k)) throw new ConfigError(`${file}: unknown key '${k}' (known: ${[...known].join(', ')})`);
  const base = dirname(resolve(file));
  const out: UpConfig = {
    port: posInt(doc.port, 'port', file),
    host: doc.host === undefined ? undefined : String(doc.host),
    attentionTimeoutMs: posInt(doc.attention_timeout_ms, 'attention_timeout_ms', file),
    maxBody: posInt(doc.max_body, 'max_body', file),
    logDir: typeof doc.log_dir === 'string' ? expand(doc.log_dir, base) : undefined,
    durability: durabilityOf(doc, file),
    policy: typeof doc.policy === 'string' ? expand(doc.policy, base) : undefined,
    projects: projectsOf(doc.projects, base, file),
  };
  if (doc.capture !== undefined) {
    if (!UP_CAPTURE.includes(doc.capture))
      throw new ConfigError(`${file}: capture must be one of ${UP_CAPTURE.join(', ')} (got ${JSON.stringify(doc.capture)})`);
    out.capture = doc.capture;
  }
  if (doc.policy !== undefined && typeof doc.policy !== 'string') throw new ConfigError(`${file}: policy is the path of a policy file`);
  if (doc.agents !== undefined) {
    const entries: AgentEntry[] = [];
    const pathish = (s: string) => (/\.ya?ml$/.test(s) || s.includes('/') ? expand(s, base) : s);
    if (Array.isArray(doc.agents)) {
      for (const a of doc.agents) {
        if (typeof a !== 'string') throw new ConfigError(`${file}: agents list entries are agent ids or descriptor paths`);
        entries.push({ descriptor: pathish(a) });
      }
    } else if (doc.agents && typeof doc.agents === 'object') {
      for (const [id, v] of Object.entries<any>(doc.agents)) {
        const e = v ?? {};
        if (typeof e !== 'object' || Array.isArray(e)) throw new ConfigError(`${file}: agents.${id} must be a mapping`);
        if (e.enabled === false) continue;
        entries.push({
          descriptor: typeof e.descriptor === 'string' ? pathish(e.descriptor) : id,
          attentionTimeoutMs: posInt(e.attention_timeout_ms, `agents.${id}.attention_timeout_ms`, file),
          config: e.config && typeof e.config === 'object' ? e.config : undefined,
          instances: instancesOf(e.instances, `agents.${id}.instances`, file, env),
        });
      }
    } else {
      throw new ConfigError(`${file}: agents must be a mapping or a list`);
    }
    out.agents = entries;
  }
  if (doc.bridges !== undefined) {
    if (!Array.isArray(doc.bridges)) throw new ConfigError(`${file}: bridges must be a list`);
    out.bridges = doc.bridges.map((b: unknown, i: number) => {
      if (!b || typeof b !== 'object' || Array.isArray(b)) throw new ConfigError(`${file}: bridges[${i}] must be a mapping`);
      try {
        return bridgeConfig(b as Record<string, unknown>, `bridges[${i}]`);
      } catch (e) {
        if (e instanceof BridgeConfigError) throw new ConfigError(`${file}: ${e.message}`);
        throw e;
      }
    });
  }
  if (doc.push !== undefined) {
    try {
      out.push = pushConfigOf(doc.push);
    } catch (e) {
      if (e instanceof PushConfigError) throw new ConfigError(`${file}: ${e.message}`);
      throw e;
    }
  }
  if (doc.channels !== undefined) {
    try {
      out.channels = channelsConfigOf(doc.channels, base);
    } catch (e) {
      if (e instanceof ChannelConfigError) throw new ConfigError(`${file}: ${e.message}`);
      throw e;
    }
  }
  if (doc.backplane !== undefined) {
    try {
      out.backplane = backplaneFromDoc(doc.backplane, 'backplane', base, env);
    } catch (e) {
      throw new ConfigError(`${file}: ${(e as Error).message}`);
    }
  }
  return out;
}
