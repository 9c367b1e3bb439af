// Small shared pieces of the inbox UI: the agent badge (initials on a colour
// derived from the agent id, so no agent is named in code), times and
// durations in words (ages rounded as a person says them: "active 1 min
// ago", never "1 min 0 s ago").
import { formatDuration } from '../model/timeline.ts';
import type { SessionState } from '../model/session-model.ts';

export function AgentIcon({ agent, size = 'md' }: { agent: string; size?: 'sm' | 'md' }) {
  const initials =
    (agent || '?')
      .split(/[-_. ]+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((w) => w[0]!.toUpperCase())
      .join('') || '?';
  let h = 0;
  for (let i = 0; i < agent.length; i++) h = (h * 31 + agent.charCodeAt(i)) % 360;
  return (
    <span class={`agent-icon agent-icon-${size}`} style={{ backgroundColor: `hsl(${h} 50% 34%)` }} aria-hidden="true">
      {initials}
    </span>
  );
}

export function ago(ms: number, now: number): string {
  const d = Math.max(0, now - ms);
  if (d < 5_000) return 'just now';
  return `${roughly(d)} ago`;
}

/** A span at the precision a person reads it: seconds under a minute, then whole minutes ("1 min", "2 h 5 min"). */
export function roughly(ms: number): string {
  if (!Number.isFinite(ms) || ms < 60_000) return span(ms);
  return span(Math.floor(ms / 60_000) * 60_000);
}

/** A human time span at whole seconds ("<1 s", "42 s", "3 min 5 s"). */
export function span(ms: number): string {
  if (!Number.isFinite(ms) || ms < 1000) return '<1 s';
  return formatDuration(Math.floor(ms / 1000) * 1000);
}

export function clockTime(iso: string | undefined): string {
  if (!iso) return '';
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? '' : t.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

// one formatter each, made once: toLocale*String with options builds a new one per call (200 rows, every second)
const HOUR_MINUTE = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' });
const MONTH_DAY = new Intl.DateTimeFormat([], { month: 'short', day: 'numeric' });

/** A moment, short: "09:02" today, "Nov 30, 09:02" on another day. */
export function dayTime(ms: number, now: number): string {
  if (!Number.isFinite(ms)) return '';
  const t = new Date(ms);
  const n = new Date(now);
  const today = t.getFullYear() === n.getFullYear() && t.getMonth() === n.getMonth() && t.getDate() === n.getDate();
  return today ? HOUR_MINUTE.format(t) : `${MONTH_DAY.format(t)}, ${HOUR_MINUTE.format(t)}`;
}

export const STATE_LABEL: Record<SessionState, string> = {
  waiting: 'waiting for you',
  running: 'running',
  paused: 'paused',
  idle: 'idle',
  ended: 'ended',
};

export function StatePill({ state }: { state: SessionState }) {
  return <span class={`pill pill-${state}`}>{STATE_LABEL[state]}</span>;
}

export function sessionHref(id: string): string {
  return `#/s/${encodeURIComponent(id)}`;
}
