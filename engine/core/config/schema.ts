// hookmap's runtime configuration: one typed object, resolved once at the CLI
// edge (engine/cli/config.ts: flags over environment over config file over
// defaults) and passed down; nothing below engine/cli/ reads process.env. It
// is not a file anyone writes: the `up --config` file has its own one schema
// (engine/app/up-schema.ts, schemas/up-config.schema.json).
// The schema is zod's (the design card's package); `hookmap codegen` emits
// its JSON Schema for editors with zod's own converter
// (schemas/config.schema.json).
import { z } from 'zod';
import { DEFAULT_ATTENTION_TIMEOUT_MS, DEFAULT_URL } from './defaults.ts';

const positiveInt = z.number().int().positive();

export const RuntimeConfigSchema = z
  .object({
    home: z.string().min(1).describe('HOOKMAP_HOME: state, logs, shims, tokens (default ~/.hookmap)'),
    url: z.string().url().describe(`HOOKMAP_URL: where shims and clients reach hookmap (default ${DEFAULT_URL})`),
    relay: z.string().url().describe(`HOOKMAP_RELAY: the relay a lone daemon (\`hookmap serve\`) emits to (default ${DEFAULT_URL})`),
    token: z.string().min(1).optional().describe('HOOKMAP_TOKEN: the bearer token clients present'),
    backplanePassword: z
      .string()
      .min(1)
      .optional()
      .describe('HOOKMAP_BACKPLANE_PASSWORD: the NATS password of --backplane-user (fleet backplane; never logged)'),
    backplaneToken: z.string().min(1).optional().describe('HOOKMAP_BACKPLANE_TOKEN: the NATS authorization token of the fleet backplane (never logged)'),
    hostId: z.string().min(1).describe("HOOKMAP_HOST_ID: the host in every event's source URI (default the hostname)"),
    attentionTimeoutMs: positiveInt
      .optional()
      .describe(`HOOKMAP_ATTENTION_TIMEOUT_MS: how long a held request waits for an answer (default: the descriptor's, else ${DEFAULT_ATTENTION_TIMEOUT_MS})`),
    stateDir: z.string().min(1).describe("HOOKMAP_STATE_DIR: client state, e.g. tail's resume positions (default $HOOKMAP_HOME/state)"),
    agentVersion: z.string().min(1).optional().describe("HOOKMAP_AGENT_VERSION: the agent's version when payloads do not state it (record)"),
    fastExpr: z.boolean().describe('false when HOOKMAP_NO_FAST_EXPR is set: every expression evaluated by JSONata itself (a diagnostic switch)'),
    redaction: z
      .object({
        secretNames: z
          .array(z.string().min(1))
          .describe('HOOKMAP_SECRET_NAMES: environment variables whose values are redacted wherever they appear (comma-separated)'),
        pii: z.boolean().describe('HOOKMAP_REDACT_PII=off turns personal-data rules off'),
      })
      .strict(),
    options: z
      .record(z.string(), z.string())
      .describe('HOOKMAP_<AGENT>_<KEY>: descriptor option overrides as given (a JSON value or a plain string), by variable name; an agent picks its own keys'),
  })
  .strict();

export type RuntimeConfig = z.infer<typeof RuntimeConfigSchema>;

/** The JSON Schema of the configuration, for editors (zod's own converter). */
export function runtimeConfigJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(RuntimeConfigSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
}
