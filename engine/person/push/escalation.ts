// When a moment is worth a push (and, with issue 24's channels, a chat card):
// one policy for every surface that reaches a person away from the desk.
//
//   push:
//     delay_ms: 10000            # a held request unanswered this long is pushed (0: at once)
//     quiet_hours: "22:00-07:00" # local time: nothing is pushed then (it stays in the inbox)
//     kinds: [permission, question, run_failed, idle, session_error]   # + turn_finished (opt-in)
//     capture: metadata          # what a notification may show: metadata | redacted | full
//     agents: { <agent>: { delay_ms: 0, kinds: [permission] } }
//     ladder: { permission: [{ to: inbox }, { to: push, after_ms: 10000 }, ...] }   # ladder.ts
//
// A request is pushed at once when no inbox tab is visible anywhere (nobody
// is at the desk), after `delay_ms` otherwise; `hookmap up --push-delay-ms N`
// overrides the delay.
import { inQuietHours, parseQuietHours as parseQuietHoursText, QuietHoursError, type QuietHours } from '../../core/config/quiet-hours.ts';
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import type { AlertKind } from './payload.ts';
import { DEFAULT_PUSH_DELAY_MS as DEFAULT_DELAY_MS, DEFAULT_PUSH_KINDS } from '../../core/config/defaults.ts';
import { ladderOf, type Ladder, type LadderDoc } from './ladder.ts';
import { PushBlockSchema } from './schema.ts';
import { pathString } from '../../core/descriptor/errors.ts';

export interface AgentPush {
  delayMs?: number;
  kinds?: AlertKind[];
}

export interface PushConfig {
  delayMs?: number;
  quietHours?: QuietHours;
  kinds?: AlertKind[];
  capture?: CaptureLevel;
  agents?: Record<string, AgentPush>;
  /** The escalation ladder (ladder.ts); absent: the default one step of delay_ms. */
  ladder?: Ladder;
}

export { DEFAULT_PUSH_DELAY_MS as DEFAULT_DELAY_MS } from '../../core/config/defaults.ts';
/** The kinds pushed unless push.kinds says otherwise (config/defaults.ts). */
export const DEFAULT_KINDS: readonly AlertKind[] = DEFAULT_PUSH_KINDS;

export class PushConfigError extends Error {}

export { inQuietHours };

/** `HH:MM-HH:MM` as minutes of the day; the range may wrap midnight (core/config/quiet-hours.ts). */
export function parseQuietHours(s: unknown, where: string): QuietHours {
  try {
    return parseQuietHoursText(s, where);
  } catch (e) {
    throw e instanceof QuietHoursError ? new PushConfigError(e.message) : e;
  }
}

/**
 * The `push:` block of the up config as the runtime takes it. PushBlockSchema (schema.ts, a part of the one up config
 * schema) is its one checker: `hookmap up` and `config check` report its findings with their lines; a caller with a
 * document of its own gets them here, each saying where.
 */
export function pushConfigOf(doc: unknown, where = 'push'): PushConfig {
  if (doc === undefined || doc === null) return {};
  const r = PushBlockSchema.safeParse(doc);
  if (!r.success) throw new PushConfigError(r.error.issues.map((i) => `${pathString([where, ...(i.path as (string | number)[])])}: ${i.message}`).join('; '));
  const o = r.data;
  const agents = o.agents && Object.fromEntries(Object.entries(o.agents).map(([id, a]) => [id, { delayMs: a.delay_ms, kinds: kindsOf(a.kinds) }]));
  return {
    delayMs: o.delay_ms,
    quietHours: o.quiet_hours === undefined ? undefined : parseQuietHours(o.quiet_hours, where),
    kinds: kindsOf(o.kinds),
    capture: o.capture,
    agents: agents && Object.keys(agents).length ? agents : undefined,
    ladder: ladderOf(o.ladder as LadderDoc | undefined),
  };
}

const kindsOf = (v: string[] | undefined): AlertKind[] | undefined => v && [...new Set(v as AlertKind[])];

export type When = { push: false; why: string } | { push: true; afterMs: number };

/** The wait of the default ladder's one step (push.agents.<agent>.delay_ms, push.delay_ms, the default). */
export const delayFor = (c: PushConfig, agent: string): number => c.agents?.[agent]?.delayMs ?? c.delayMs ?? DEFAULT_DELAY_MS;

/** Whether (and after how long) a moment of this kind from this agent is pushed. */
export function escalate(c: PushConfig, kind: AlertKind, agent: string, o: { now: Date; inboxVisible: boolean }): When {
  const a = c.agents?.[agent];
  const kinds = a?.kinds ?? c.kinds ?? DEFAULT_KINDS;
  if (!kinds.includes(kind)) return { push: false, why: `${kind} is not among the kinds pushed (push.kinds)` };
  if (inQuietHours(c.quietHours, o.now)) return { push: false, why: 'quiet hours' };
  if (!o.inboxVisible) return { push: true, afterMs: 0 };
  return { push: true, afterMs: a?.delayMs ?? c.delayMs ?? DEFAULT_DELAY_MS };
}
