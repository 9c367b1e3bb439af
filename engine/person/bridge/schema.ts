// One entry of the up config's `bridges:` list, as a person writes it: the
// part of the one up config schema (engine/app/up-schema.ts) that describes a
// bridge. `bridgeConfig` (config.ts) turns a checked entry, or the flags of
// `hookmap bridge` / `up --bridge`, into the runtime BridgeConfig.
import { z } from 'zod';
import { CAPTURE_ORDER } from '../../core/aep/schemas.ts';

const count = (what: string) => z.number().int().nonnegative().optional().describe(what);
const endpoint = z.url({ protocol: /^https?$/ }).describe('where the bridge sends (http:// or https://); absent: stdout');

const common = {
  endpoint: endpoint.optional(),
  capture: z
    .enum(CAPTURE_ORDER)
    .optional()
    .meta({ default: 'metadata' })
    .describe('the most the bridge may carry out (below every agent ceiling); none carries no content at all'),
  filter: z.record(z.string(), z.unknown()).optional().describe('an attr-match object: only events whose attributes match are sent'),
  headers: z.record(z.string(), z.string()).optional().describe("extra request headers (a collector's auth)"),
  batch: count('events per request (alias of batch_max)'),
  batch_max: count('events per request'),
  batch_ms: count('the longest an event waits for its batch, ms'),
  timeout_ms: count("one request's timeout, ms"),
  retries: count('retries of a failed request before the batch is kept for later'),
};

const otlp = z
  .strictObject({
    kind: z.literal('otlp'),
    ...common,
    protocol: z.enum(['http/protobuf', 'http/json']).optional().meta({ default: 'http/protobuf' }).describe('the OTLP encoding'),
    signals: z
      .array(z.enum(['logs', 'traces']))
      .optional()
      .meta({ default: ['logs', 'traces'] })
      .describe('what is sent'),
    service_name: z.string().optional().meta({ default: 'hookmap' }).describe('service.name of the resource'),
    idle_close_ms: count('an idle span closes after this long, ms'),
  })
  .meta({ id: 'otlp-bridge' })
  .describe('OpenTelemetry (OTLP/HTTP): logs and traces (docs/otel.md)');
const cloudevents = z
  .strictObject({
    kind: z.literal('cloudevents'),
    ...common,
    mode: z.enum(['structured', 'binary', 'batch']).optional().meta({ default: 'structured' }).describe('the CloudEvents HTTP content mode'),
  })
  .meta({ id: 'cloudevents-bridge' })
  .describe('CloudEvents over HTTP (docs/bridges.md)');
const ocsf = z
  .strictObject({ kind: z.literal('ocsf'), ...common })
  .meta({ id: 'ocsf-bridge' })
  .describe('OCSF events over HTTP (docs/bridges.md)');

export const BridgeEntrySchema = z
  .discriminatedUnion('kind', [otlp, cloudevents, ocsf])
  .describe('an AEP-0005 bridge run inside up: `kind` says which, the rest are its options');
