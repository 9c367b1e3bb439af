// The up config's `push:` block as a person writes it (the part of the one
// up config schema, engine/app/up-schema.ts, that says when a moment is
// pushed); escalation.ts turns it into the runtime PushConfig.
import { z } from 'zod';
import { DEFAULT_PUSH_DELAY_MS, DEFAULT_PUSH_KINDS } from '../../core/config/defaults.ts';
import { ALERT_KINDS } from './payload.ts';
import { LADDER_KINDS, PERSONAL, SURFACES } from './ladder.ts';
import { QUIET_HOURS_RE } from '../../core/config/quiet-hours.ts';

const delay = z.number().int().nonnegative().describe('a held request unanswered this long is pushed, ms (0: at once)');
const kinds = z.array(z.enum(ALERT_KINDS as [string, ...string[]])).describe('the moments pushed; turn_finished is opt-in');

const surface = z.enum(SURFACES as unknown as [string, ...string[]]);
const step = z
  .strictObject({
    to: z
      .union([surface, z.array(surface).min(1)], { error: () => `a surface or a list of them (${SURFACES.join(', ')}; a person is no surface: see people)` })
      .describe('the surface(s) this step reaches: inbox, push or a chat channel'),
    after_ms: z.number().int().nonnegative().optional().meta({ default: 0 }).describe('how long after the request this step fires, ms'),
    when_away: z.enum(['at_once', 'wait']).optional().meta({ default: 'wait' }).describe('at_once: with no inbox tab visible, no wait'),
    even_if_seen: z.boolean().optional().meta({ default: false }).describe('fires even once someone has seen it (its card says who)'),
    people: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("only these people's own push devices, private Telegram chats and Slack mentions (people:), e.g. a second person after 5 minutes"),
  })
  .superRefine((s, ctx) => {
    const off = (typeof s.to === 'string' ? [s.to] : s.to).filter((t) => !(PERSONAL as readonly string[]).includes(t));
    if (s.people && off.length)
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `a step with people reaches their own ${PERSONAL.join(', ')}; ${off.join(', ')} reach no one person`,
      });
  })
  .meta({ id: 'ladder-step' })
  .describe('one step of an escalation ladder');
const steps = z.strictObject(
  Object.fromEntries(LADDER_KINDS.map((k) => [k, z.array(step).min(1).optional()])) as Record<string, z.ZodOptional<z.ZodArray<typeof step>>>,
);
const ladder = steps
  .extend({
    projects: z.record(z.string(), steps).optional().describe("a project folder's own ladders"),
    agents: z.record(z.string(), steps).optional().describe("an agent's own ladders (before the project's)"),
  })
  .describe('per kind, the steps that reach a person, each skipped once someone has seen it (docs/escalation.md)');

export const PushBlockSchema = z
  .strictObject({
    delay_ms: delay.optional().meta({ default: DEFAULT_PUSH_DELAY_MS }),
    quiet_hours: z
      .string()
      .regex(QUIET_HOURS_RE, '"HH:MM-HH:MM" in local time (e.g. "22:00-07:00")')
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
    ladder: ladder.optional(),
  })
  .describe('Web Push to the devices that pressed "Notify me" (docs/push.md)');
