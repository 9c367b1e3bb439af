// A session paused on a rate or usage limit (docs/usage.md, "Rate limits"):
// the daemon's x.hookmap.limit.reached, published beside the mapping of a
// firing in which the agent says it stopped on a limit (the descriptor's
// `limits` signs). A pause lasts until the session's next run starts; when
// the agent retries by itself (data.agent_retries: the sign says it waits and
// tries again), until the session's next event from the agent or its retry
// time. The fold keeps a session's newest one; every view reads "paused
// until" and its end from here. Browser-safe.
import { opens } from './lifecycle.ts';

/** The agent stopped on a limit (data: kind, hook, resets_at when it said, agent_retries when it retries by itself). */
export const LIMIT_REACHED = 'x.hookmap.limit.reached';
/** hookmap continued a paused session at its reset (on hookmap's own session; data: session, agent, at, ok, launch or via+command, why). */
export const LIMIT_RESUMED = 'x.hookmap.limit.resumed';

export type LimitKind = 'rate_limit' | 'usage_limit';

export interface Pause {
  kind: LimitKind;
  /** When the limit resets (ISO), when the agent said. */
  until?: string;
  /** When the agent stopped (the event's time). */
  since: string;
  /** The agent retries by itself at the reset: nobody needs to continue it. */
  agentRetries?: true;
}

/** A pause whose agent retries by itself is news to a person only when it waits this long at least. */
export const TELL_RETRY_AFTER_MS = 60_000;

/** What a limit event says, or undefined for any other event. */
export function pauseOf(ev: { type: string; time: string; data?: Record<string, unknown> }): Pause | undefined {
  if (ev.type !== LIMIT_REACHED) return undefined;
  const d = ev.data ?? {};
  const kind: LimitKind = d.kind === 'usage_limit' ? 'usage_limit' : 'rate_limit';
  const until = typeof d.resets_at === 'string' && !Number.isNaN(Date.parse(d.resets_at)) ? d.resets_at : undefined;
  return { kind, since: ev.time, ...(until ? { until } : {}), ...(d.agent_retries === true ? { agentRetries: true as const } : {}) };
}

/** Whether `ev`, later in the paused session, ends the pause: its next run, or any event of the agent's when it retries by itself. */
export function endsPause(pause: Pause, ev: { type: string }): boolean {
  if (opens(ev.type) === 'run') return true;
  return pause.agentRetries === true && !ev.type.startsWith('x.hookmap.');
}

/** Whether a pause still holds at `now`: an agent retrying by itself is at work again from its retry time on. */
export function holds(p: Pause, now: number): boolean {
  return !(p.agentRetries && p.until !== undefined && now >= Date.parse(p.until));
}

/** The pause a limit event says, while it holds at `now`. */
export function pauseAt(ev: { type: string; time: string; data?: Record<string, unknown> }, now: number): Pause | undefined {
  const p = pauseOf(ev);
  return p && holds(p, now) ? p : undefined;
}

/** Whether a person hears of the pause: always, unless the agent retries by itself soon (or says no time). */
export function worthTelling(p: Pause): boolean {
  if (!p.agentRetries) return true;
  return p.until !== undefined && Date.parse(p.until) - Date.parse(p.since) >= TELL_RETRY_AFTER_MS;
}

/** "paused until 15:04" (local time), "paused (no reset time given)", "retrying by itself at 15:04". */
export function pauseText(p: Pause, clock: (d: Date) => string = hhmm): string {
  const what = p.kind === 'usage_limit' ? 'usage limit' : 'rate limit';
  if (p.agentRetries) return p.until ? `${what}: retrying by itself at ${clock(new Date(p.until))}` : `${what}: retrying by itself`;
  return p.until ? `${what}: paused until ${clock(new Date(p.until))}` : `${what}: paused (no reset time given)`;
}

const hhmm = (d: Date) => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
