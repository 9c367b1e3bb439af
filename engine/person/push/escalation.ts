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
import { ALERT_KINDS, type AlertKind } from './payload.ts';
import { DEFAULT_PUSH_DELAY_MS as DEFAULT_DELAY_MS, DEFAULT_PUSH_KINDS } from '../../core/config/defaults.ts';
import { ladderOf, LadderError, type Ladder } from './ladder.ts';

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
const CAPTURES: readonly CaptureLevel[] = ['metadata', 'redacted', 'full'];

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

function kindsOf(v: unknown, where: string): AlertKind[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((k) => ALERT_KINDS.includes(k))) throw new PushConfigError(`${where}: kinds is a list of ${ALERT_KINDS.join(', ')}`);
  return [...new Set(v as AlertKind[])];
}

function delayOf(v: unknown, where: string): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw new PushConfigError(`${where}: delay_ms must be a non-negative integer (milliseconds)`);
  return v as number;
}

/** The `push:` block of the up config, checked (each error says where). */
export function pushConfigOf(doc: unknown, where = 'push'): PushConfig {
  if (doc === undefined || doc === null) return {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new PushConfigError(`${where} must be a mapping { delay_ms, quiet_hours, kinds, capture, agents, ladder }`);
  const o = doc as Record<string, unknown>;
  const known = ['delay_ms', 'quiet_hours', 'kinds', 'capture', 'agents', 'ladder'];
  for (const k of Object.keys(o)) if (!known.includes(k)) throw new PushConfigError(`${where}: unknown key '${k}' (known: ${known.join(', ')})`);
  if (o.capture !== undefined && !CAPTURES.includes(o.capture as CaptureLevel)) throw new PushConfigError(`${where}: capture is one of ${CAPTURES.join(', ')}`);
  const agents: Record<string, AgentPush> = {};
  if (o.agents !== undefined) {
    if (!o.agents || typeof o.agents !== 'object' || Array.isArray(o.agents))
      throw new PushConfigError(`${where}.agents maps an agent id to { delay_ms, kinds }`);
    for (const [id, a] of Object.entries(o.agents as Record<string, any>)) {
      const w = `${where}.agents.${id}`;
      if (!a || typeof a !== 'object' || Array.isArray(a)) throw new PushConfigError(`${w} must be a mapping { delay_ms, kinds }`);
      for (const k of Object.keys(a)) if (k !== 'delay_ms' && k !== 'kinds') throw new PushConfigError(`${w}: unknown key '${k}' (known: delay_ms, kinds)`);
      agents[id] = { delayMs: delayOf(a.delay_ms, w), kinds: kindsOf(a.kinds, w) };
    }
  }
  return {
    delayMs: delayOf(o.delay_ms, where),
    quietHours: o.quiet_hours === undefined ? undefined : parseQuietHours(o.quiet_hours, where),
    kinds: kindsOf(o.kinds, where),
    capture: o.capture as CaptureLevel | undefined,
    agents: Object.keys(agents).length ? agents : undefined,
    ladder: ladderOrThrow(o.ladder, `${where}.ladder`),
  };
}

function ladderOrThrow(v: unknown, where: string): Ladder | undefined {
  try {
    return ladderOf(v, where);
  } catch (e) {
    throw e instanceof LadderError ? new PushConfigError(e.message) : e;
  }
}

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
