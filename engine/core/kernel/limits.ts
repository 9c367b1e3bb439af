// A session paused on a rate or usage limit (docs/usage.md, "Rate limits"):
// the daemon's x.hookmap.limit.reached, published beside the mapping of a
// firing in which the agent says it stopped on a limit (the descriptor's
// `limits` signs). The fold keeps a session's newest one until its next run
// starts; every view reads "paused until" from here. Browser-safe.

/** The agent stopped on a limit (data: kind, hook, resets_at when it said). */
export const LIMIT_REACHED = 'x.hookmap.limit.reached';
/** hookmap continued a paused session at its reset (on hookmap's own session; data: session, agent, at, launch). */
export const LIMIT_RESUMED = 'x.hookmap.limit.resumed';

export type LimitKind = 'rate_limit' | 'usage_limit';

export interface Pause {
  kind: LimitKind;
  /** When the limit resets (ISO), when the agent said. */
  until?: string;
  /** When the agent stopped (the event's time). */
  since: string;
}

/** What a limit event says, or undefined for any other event. */
export function pauseOf(ev: { type: string; time: string; data?: Record<string, unknown> }): Pause | undefined {
  if (ev.type !== LIMIT_REACHED) return undefined;
  const d = ev.data ?? {};
  const kind: LimitKind = d.kind === 'usage_limit' ? 'usage_limit' : 'rate_limit';
  const until = typeof d.resets_at === 'string' && !Number.isNaN(Date.parse(d.resets_at)) ? d.resets_at : undefined;
  return { kind, since: ev.time, ...(until ? { until } : {}) };
}

/** "paused until 15:04" (local time), "paused (no reset time given)". */
export function pauseText(p: Pause, clock: (d: Date) => string = hhmm): string {
  const what = p.kind === 'usage_limit' ? 'usage limit' : 'rate limit';
  return p.until ? `${what}: paused until ${clock(new Date(p.until))}` : `${what}: paused (no reset time given)`;
}

const hhmm = (d: Date) => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
