// The `hookmap up --config FILE` file (YAML or JSON), loaded: checked against
// its one schema (up-schema.ts; every key, default and environment variable in
// docs/reference/up-config.md), then turned into the runtime UpConfig. Every
// problem is a coded finding at file:line:col (up-check.ts); the blocks' own
// checks that a schema cannot say (a secret file, a variable `key_env` names,
// exclusive keys) are findings at the block too. A refused file takes no effect.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { CaptureLevel } from '../core/aep/schemas.ts';
import type { ProjectLabels } from '../core/capture/project.ts';
import type { Durability } from '../runtime/daemon/session-log.ts';
import { bridgeConfig, type BridgeConfig } from '../person/bridge/config.ts';
import type { StreamInstance } from '../runtime/surface/stream-subscriber.ts';
import { backplaneFromDoc, type BackplaneConfig } from '../runtime/relay/backplane/config.ts';
import { pushConfigOf, type PushConfig } from '../person/push/escalation.ts';
import { ladderPeople } from '../person/push/ladder.ts';
import { channelsConfigOf, type ChannelsConfig } from '../person/channels/config.ts';
import { watchConfigOf, type WatchConfig } from '../person/watch/schema.ts';
import { ConfigError } from '../core/config/config-error.ts';
import { pathString } from '../core/descriptor/errors.ts';
import { checkUpConfigText, formatFinding, type ConfigFinding } from './up-check.ts';
import type { InstanceDoc, UpConfigDoc } from './up-schema.ts';
import { checkTwoPeople, People } from '../runtime/auth/people.ts';
import { FLOOR_ROWS } from '../runtime/policy/shell/floor.ts';
import type { LaunchConfig } from '../person/launch/launcher.ts';
import { budgetsOf, type Budget } from '../runtime/usage/budget-schema.ts';

export { ConfigError };

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
  /** When a push goes out, and what it may show (engine/person/push/escalation.ts). */
  push?: PushConfig;
  /** Chat channels cards go to (engine/person/channels/config.ts). */
  channels?: ChannelsConfig;
  /** `hookmap run`: the extra allowed project folders, the wall time, the cap (engine/person/launch). */
  launch?: LaunchConfig;
  /** Spending caps (engine/runtime/usage/budgets.ts, docs/usage.md). */
  budgets?: Budget[];
  /** The watch: when an agent may wait unseen (engine/person/watch). */
  watch?: WatchConfig;
  /** Named people: who sees and answers which held request, and where two must allow (engine/runtime/auth/people.ts). */
  people?: People;
}

export { PROJECT_LABEL_MODES, UP_CAPTURE } from './up-options.ts';

type Env = Readonly<Record<string, string | undefined>>;
type Block = <T>(path: (string | number)[], f: () => T) => T | undefined;

const expand = (p: string, base: string) => resolve(base, p.replace(/^~(?=$|\/)/, homedir()));

/** What the schema cannot say of an instance: no credentials in the URL, one key source, a set variable. */
function instancesOf(list: InstanceDoc[], where: string, env: Env): StreamInstance[] {
  return list.map((x, i) => {
    const at = `${where}[${i}]`;
    const url = new URL(x.url);
    if (url.username || url.password) throw new Error(`${at}.url must not carry credentials (use key or key_env)`);
    if (x.key !== undefined && x.key_env !== undefined) throw new Error(`${at}: key and key_env are exclusive`);
    let key = x.key;
    if (x.key_env !== undefined) {
      key = env[x.key_env];
      if (key === undefined || key === '') throw new Error(`${at}.key_env names ${x.key_env}, which is not set`);
    }
    return { url: url.toString().replace(/\/+$/, ''), key, streams: x.streams };
  });
}

function agentsOf(agents: NonNullable<UpConfigDoc['agents']>, base: string, env: Env, block: Block): AgentEntry[] {
  const pathish = (s: string) => (/\.ya?ml$/.test(s) || s.includes('/') ? expand(s, base) : s);
  if (Array.isArray(agents)) return agents.map((a) => ({ descriptor: pathish(a) }));
  const out: AgentEntry[] = [];
  for (const [id, e] of Object.entries(agents)) {
    if (e?.enabled === false) continue;
    out.push({
      descriptor: e?.descriptor ? pathish(e.descriptor) : id,
      attentionTimeoutMs: e?.attention_timeout_ms,
      config: e?.config,
      instances: e?.instances && block(['agents', id, 'instances'], () => instancesOf(e.instances!, `agents.${id}.instances`, env)),
    });
  }
  return out;
}

/** A checked document as the runtime takes it (`base`: the file's folder, against which paths resolve). */
function upConfigOf(doc: UpConfigDoc, base: string, env: Env, block: Block): UpConfig {
  const channels = doc.channels && block(['channels'], () => channelsConfigOf(doc.channels, base));
  const names = doc.projects?.names && Object.fromEntries(Object.entries(doc.projects.names).map(([folder, name]) => [expand(folder, base), name]));
  const out: UpConfig = {
    port: doc.port,
    host: doc.host,
    attentionTimeoutMs: doc.attention_timeout_ms,
    maxBody: doc.max_body,
    logDir: doc.log_dir === undefined ? undefined : expand(doc.log_dir, base),
    durability: doc.durability ?? (doc.fsync === undefined ? undefined : doc.fsync ? 'fsync' : 'none'),
    policy: doc.policy === undefined ? undefined : expand(doc.policy, base),
    capture: doc.capture,
    projects: doc.projects && { mode: doc.projects.label, names },
    agents: doc.agents && agentsOf(doc.agents, base, env, block),
    bridges: doc.bridges?.map((b, i) => block(['bridges', i], () => bridgeConfig(b, `bridges[${i}]`))!),
    push: doc.push && block(['push'], () => pushConfigOf(doc.push)),
    channels,
    launch: doc.launch && {
      projects: doc.launch.projects?.map((p) => expand(p, base)),
      timeoutMs: doc.launch.timeout_ms,
      maxRuns: doc.launch.max_runs,
      tmux: doc.launch.tmux,
      tmuxSocket: doc.launch.tmux_socket,
      afterLimit: doc.launch.after_limit && { prompt: doc.launch.after_limit.prompt, waitMs: doc.launch.after_limit.wait_ms },
    },
    budgets: doc.budgets && budgetsOf(doc.budgets),
    watch: watchConfigOf(doc.watch),
    backplane: doc.backplane === undefined ? undefined : block(['backplane'], () => backplaneFromDoc(doc.backplane, 'backplane', base, env)),
    people: peopleOf(doc, channels, block),
  };
  for (const { name, where } of ladderPeople(out.push?.ladder))
    if (!out.people?.has(name))
      block(['push', 'ladder', ...where], () => {
        throw new Error(`${pathString(['push', 'ladder', ...where])}: '${name}' is no person of people: (${out.people?.names.join(', ') || 'none is named'})`);
      });
  return out;
}

/** `people:` and `two_people:` checked together: a credential is one person's, a floor row is one the floor has. */
function peopleOf(doc: UpConfigDoc, channels: ChannelsConfig | undefined, block: Block): People | undefined {
  if (!doc.people && !doc.two_people) return undefined;
  const chat = { telegram: channels?.telegram?.users, slack: channels?.slack?.users };
  if (doc.two_people && block(['two_people'], () => checkTwoPeople(doc.two_people, FLOOR_ROWS) ?? true) === undefined) return undefined;
  return block(['people'], () => new People(doc.people ?? [], doc.two_people, chat, FLOOR_ROWS));
}

const refused = (findings: ConfigFinding[]) => new ConfigError(findings.map(formatFinding).join('\n'), findings);

/** `env`: where an instance's `key_env` and the backplane's `*_env` are looked up (the CLI edge hands its own environment down). */
export function loadUpConfig(file: string, env: Env): UpConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`${file}: ${(e as Error).message}`);
  }
  const { doc, src, findings } = checkUpConfigText(file, text);
  if (!doc) throw refused(findings);
  const problems: ConfigFinding[] = [];
  const block: Block = (path, f) => {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof Error) || e instanceof TypeError || e instanceof ReferenceError) throw e;
      const { line, col } = src.locate(path);
      problems.push({ code: 'invalid-value', file, line, col, path: pathString(path), message: e.message });
      return undefined;
    }
  };
  const out = upConfigOf(doc, dirname(resolve(file)), env, block);
  if (problems.length) throw refused(problems);
  return out;
}
