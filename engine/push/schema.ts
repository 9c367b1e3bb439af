// The up config's `push:` block as a person writes it (the part of the one
// up config schema, engine/app/up-schema.ts, that says when a moment is
// pushed); escalation.ts turns it into the runtime PushConfig.
import { z } from 'zod';
import { DEFAULT_PUSH_DELAY_MS, DEFAULT_PUSH_KINDS } from '../config/defaults.ts';
import { ALERT_KINDS } from './payload.ts';

const delay = z.number().int().nonnegative().describe('a held request unanswered this long is pushed, ms (0: at once)');
const kinds = z.array(z.enum(ALERT_KINDS as [string, ...string[]])).describe('the moments pushed; turn_finished is opt-in');

export const PushBlockSchema = z
  .strictObject({
    delay_ms: delay.optional().meta({ default: DEFAULT_PUSH_DELAY_MS }),
    quiet_hours: z
      .string()
      .regex(/^\s*([01]?\d|2[0-3]):([0-5]\d)-([01]?\d|2[0-3]):([0-5]\d)\s*$/, '"HH:MM-HH:MM" in local time (e.g. "22:00-07:00")')
      .optional()
      .describe('local time: nothing is pushed then (it stays in the inbox); may wrap midnight'),
    kinds: kinds.optional().meta({ default: [...DEFAULT_PUSH_KINDS] }),
    capture: z
      .enum(['metadata', 'redacted', 'full'])
      .optional()
      .meta({ default: 'metadata' })
      .describe('what a notification may show (redacted: the command, through redaction)'),
    agents: z
      .record(z.string(), z.strictObject({ delay_ms: delay.optional(), kinds: kinds.optional() }))
      .optional()
      .describe("one agent's own delay_ms and kinds"),
  })
  .describe('Web Push to the devices that pressed "Notify me" (docs/push.md)');
