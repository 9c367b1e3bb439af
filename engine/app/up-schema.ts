// The one spec of the `hookmap up --config FILE` file (YAML or JSON), as
// people write it: every key, its type, its default (engine/core/config/defaults.ts)
// and the environment variable that sets the same thing. The bridges, push,
// channels, backplane and policy (rules) keys are parts of it, each defined
// beside the code that runs it. From this schema come the checks of
// `hookmap up --config` and `hookmap config check` (up-check.ts), the
// published JSON Schema (schemas/up-config.schema.json, for editors) and the
// reference page (docs/reference/up-config.md), both by `hookmap codegen` /
// `hookmap docs`.
import { z } from 'zod';
import { PROJECT_LABEL_MODES, UP_CAPTURE } from './up-options.ts';
import type { CaptureLevel } from '../core/aep/schemas.ts';
import type { ProjectLabelMode } from '../core/capture/project.ts';
import { DURABILITY, type Durability } from '../runtime/daemon/session-log.ts';
import {
  DEFAULT_AFTER_LIMIT_PROMPT,
  DEFAULT_AFTER_LIMIT_WAIT_MS,
  DEFAULT_ATTENTION_TIMEOUT_MS,
  DEFAULT_HOST,
  DEFAULT_LAUNCH_MAX_RUNS,
  DEFAULT_LAUNCH_TIMEOUT_MS,
  DEFAULT_PORT,
} from '../core/config/defaults.ts';
import { BridgeEntrySchema } from '../person/bridge/schema.ts';
import { PushBlockSchema } from '../person/push/schema.ts';
import { ChannelsBlockSchema } from '../person/channels/schema.ts';
import { BackplaneSchema } from '../runtime/relay/backplane/schema.ts';
import { BudgetsSchema } from '../runtime/usage/budget-schema.ts';
import { WatchBlockSchema } from '../person/watch/schema.ts';
import { PeopleSchema, TwoPeopleSchema } from '../runtime/auth/people.ts';

const ms = (what: string) => z.number().int().nonnegative().describe(what);
const path = (what: string) => z.string().min(1).describe(what);

const instance = z
  .strictObject({
    url: z.url({ protocol: /^https?$/ }).describe('the agent server (http or https, no credentials in it)'),
    key: z.string().optional().describe('its API key (never logged); or key_env'),
    key_env: z.string().optional().describe('the environment variable holding its API key'),
    streams: z.array(z.string().min(1)).optional().describe('the streams to follow; absent: discovered'),
  })
  .meta({ id: 'instance' })
  .describe('one agent server a stream-subscriber agent attaches to');

const agent = z
  .strictObject({
    enabled: z.boolean().optional().meta({ default: true }).describe('false: the agent is not run'),
    attention_timeout_ms: ms("this agent's hold timeout, ms").optional(),
    descriptor: path('a descriptor file instead of vendors/<agent>.yaml').optional(),
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("descriptor option overrides (each also set by HOOKMAP_<AGENT>_<KEY>; this file's value wins)"),
    instances: z.array(instance).optional().describe('a stream-subscriber agent: the agent servers it attaches to'),
  })
  .meta({ id: 'agent' })
  .describe('one agent ({} or empty: enabled with defaults)')
  .nullable();

export const UpConfigSchema = z
  .strictObject({
    port: z
      .number()
      .int()
      .min(0)
      .max(65535)
      .optional()
      .meta({ default: DEFAULT_PORT })
      .describe('one port for the relay and every hook endpoint (0: ephemeral)'),
    host: z.string().min(1).optional().meta({ default: DEFAULT_HOST }).describe('the address up listens on'),
    attention_timeout_ms: ms("every agent's hold timeout, ms (default: the descriptor's, else this)")
      .optional()
      .meta({ default: DEFAULT_ATTENTION_TIMEOUT_MS }),
    max_body: z.number().int().nonnegative().optional().describe('the largest hook body, bytes'),
    log_dir: path('the base folder of session logs; each agent gets <log_dir>/<agent>').optional().meta({ default: '~/.hookmap/logs' }),
    durability: z
      .enum(DURABILITY as [Durability, ...Durability[]])
      .optional()
      .meta({ default: 'none' })
      .describe('none: an acknowledged event survives a hookmap crash; fsync: also power loss (each answer waits for the disk)'),
    fsync: z.boolean().optional().describe('the older spelling of durability (true: fsync)'),
    policy: path('the operator policy rules file (docs/policy.md), watched while up runs').optional(),
    capture: z
      .enum(UP_CAPTURE as [CaptureLevel, ...CaptureLevel[]])
      .optional()
      .describe("raise every agent's capture ceiling to at least this (docs/privacy.md)"),
    projects: z
      .strictObject({
        label: z
          .enum(PROJECT_LABEL_MODES as [ProjectLabelMode, ...ProjectLabelMode[]])
          .optional()
          .meta({ default: 'folder' })
          .describe("folder: the working folder's name, never its path; off: none"),
        names: z.record(z.string(), z.string().trim().min(1)).optional().describe('a folder (and its subfolders) shown by another name'),
      })
      .optional()
      .describe('the project label a session shows'),
    agents: z
      .union([z.array(z.string().min(1)).describe('agent ids or descriptor paths'), z.record(z.string(), agent)], {
        error: 'a mapping of agent ids or a list of agent ids / descriptor paths',
      })
      .optional()
      .describe('the agents up runs; absent: every descriptor in vendors/'),
    launch: z
      .strictObject({
        projects: z
          .array(path('a project folder'))
          .optional()
          .describe('folders `hookmap run` may start an agent in, beside the ones `hookmap setup --project` recorded'),
        timeout_ms: ms('the wall time of a headless run, ms; then it is stopped').optional().meta({ default: DEFAULT_LAUNCH_TIMEOUT_MS }),
        max_runs: z.number().int().min(1).max(64).optional().meta({ default: DEFAULT_LAUNCH_MAX_RUNS }).describe('headless runs at once per agent'),
        tmux: path('the tmux program of attachable runs').optional().meta({ default: 'tmux' }),
        tmux_socket: z
          .string()
          .regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/, "1-64 letters, digits, '.', '_' or '-'")
          .optional()
          .describe("the tmux server's socket name (tmux -L) attachable runs start on; absent: tmux's default server"),
        after_limit: z
          .strictObject({
            prompt: z.string().min(1).max(2000).optional().meta({ default: DEFAULT_AFTER_LIMIT_PROMPT }).describe('what the continued run is told'),
            wait_ms: ms('how long after the agent stopped to continue when it gave no reset time, ms')
              .optional()
              .meta({ default: DEFAULT_AFTER_LIMIT_WAIT_MS }),
          })
          .optional()
          .describe('continue a session the agent stopped on a rate or usage limit at its reset (docs/usage.md); absent: only tell'),
      })
      .optional()
      .describe('`hookmap run`: starting and continuing agent sessions (docs/launch.md)'),
    bridges: z.array(BridgeEntrySchema).optional().describe('AEP-0005 bridges run inside up (docs/bridges.md)'),
    push: PushBlockSchema.optional(),
    channels: ChannelsBlockSchema.optional(),
    backplane: BackplaneSchema.optional(),
    budgets: BudgetsSchema.optional(),
    watch: WatchBlockSchema.optional(),
    people: PeopleSchema.optional(),
    two_people: TwoPeopleSchema.optional(),
  })
  .describe('the `hookmap up --config FILE` file (YAML or JSON); every key optional');

export type UpConfigDoc = z.infer<typeof UpConfigSchema>;
export type InstanceDoc = z.infer<typeof instance>;

/**
 * The environment variables that set the same things as keys of the file, read only at the CLI edge
 * (engine/cli/config.ts) and handed down. Precedence: a flag, then the file, then the variable, then the default.
 */
export const UP_CONFIG_ENV: readonly { key: string; env: string; note: string }[] = [
  { key: 'attention_timeout_ms', env: 'HOOKMAP_ATTENTION_TIMEOUT_MS', note: 'when the file does not set it' },
  { key: 'agents.<agent>.config.<key>', env: 'HOOKMAP_<AGENT>_<KEY>', note: "a descriptor option (JSON value or plain string); the file's value wins" },
  { key: 'backplane.password_file', env: 'HOOKMAP_BACKPLANE_PASSWORD', note: 'the password of backplane.user when no password_file/password_env' },
  { key: 'backplane.token_file', env: 'HOOKMAP_BACKPLANE_TOKEN', note: 'the NATS token when no user, creds or token_file/token_env' },
];

/** The JSON Schema of the file, for editors (zod's own converter; `hookmap codegen` writes it). */
export function upConfigJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(UpConfigSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
