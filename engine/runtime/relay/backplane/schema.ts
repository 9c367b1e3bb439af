// The up config's `backplane:` key as a person writes it: the part of the
// one up config schema (engine/app/up-schema.ts) that shares the stream with
// other relays through NATS JetStream. config.ts resolves a checked value
// (paths, secrets) into BackplaneConfig.
import { z } from 'zod';
import {
  DEFAULT_BACKPLANE_DUPLICATE_WINDOW_MS,
  DEFAULT_BACKPLANE_MAX_AGE_MS,
  DEFAULT_BACKPLANE_PREFIX,
  DEFAULT_BACKPLANE_STREAM,
} from '../../../core/config/defaults.ts';

const NATS_URL = /^(nats|tls|wss?):\/\/[^\s/]+.*$/;
const url = z.string().regex(NATS_URL, 'nats://host:port (comma-separated for several servers)');
const duration = (what: string) =>
  z.union([z.string().regex(/^\d+(ms|s|m|h|d)?$/, 'a duration like 90s, 12h or 7d'), z.number().int().positive()]).describe(what);
const size = (what: string) =>
  z.union([z.string().regex(/^\d+\s*([kmg](i?b)?|b)?$/i, 'a size like 512MiB or 2GiB'), z.number().int().positive()]).describe(what);
const path = (what: string) => z.string().min(1).describe(what);
const envName = (what: string) =>
  z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .describe(what);

const mapping = z
  .strictObject({
    url: url.describe('the NATS server(s)'),
    stream: z.string().optional().meta({ default: DEFAULT_BACKPLANE_STREAM }).describe('the JetStream stream name'),
    prefix: z.string().optional().meta({ default: DEFAULT_BACKPLANE_PREFIX }).describe('the subject prefix, one NATS token'),
    max_age: duration('stream retention by age')
      .optional()
      .meta({ default: `${DEFAULT_BACKPLANE_MAX_AGE_MS / 86_400_000}d` }),
    max_bytes: size("stream retention by size (also each relay's buffer)").optional(),
    duplicate_window: duration("JetStream's duplicate window")
      .optional()
      .meta({ default: `${DEFAULT_BACKPLANE_DUPLICATE_WINDOW_MS / 1000}s` }),
    optional: z.boolean().optional().meta({ default: false }).describe('unreachable at start: serve local clients from memory and join when NATS answers'),
    creds: path('a .creds file (user JWT + nkey seed)').optional(),
    user: z.string().min(1).optional().describe('a NATS user (its password from password_file, password_env or HOOKMAP_BACKPLANE_PASSWORD)'),
    password_file: path("the user's password, in a file (0600)").optional(),
    password_env: envName("the variable holding the user's password").optional(),
    token_file: path('a NATS token, in a file (0600)').optional(),
    token_env: envName('the variable holding a NATS token').optional(),
    tls_ca: path("TLS to NATS, verifying the server with this CA's certificate").optional(),
    tls_cert: path("mutual TLS: this relay's client certificate").optional(),
    tls_key: path("mutual TLS: the client certificate's key").optional(),
  })
  .meta({ id: 'backplane-mapping' })
  .describe('the backplane with its retention, auth and TLS (paths relative to the config file; secrets never inline)');

export const BackplaneSchema = z
  .union([url.describe('the NATS server(s) (nats://host:4222)'), mapping], { error: 'a NATS URL or a mapping { url, stream, prefix, max_age, ... }' })
  .describe('share one stream with other relays through NATS JetStream (docs/fleet.md)');
