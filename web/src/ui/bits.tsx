// Small shared pieces of the inbox UI: the agent badge (initials on a colour
// derived from the agent id, so no agent is named in code), times and
// durations in words, a session's project folder.
import { formatDuration } from '../model/timeline.ts';
import type { SessionState } from '../model/store.ts';

export function AgentIcon({ agent, size = 'md' }: { agent: string; size?: 'sm' | 'md' }) {
  const initials = (agent || '?').split(/[-_. ]+/).filter(Boolean).slice(0, 2).map((w) => w[0]!.toUpperCase()).join('') || '?';
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
  return `${span(d)} ago`;
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

export function projectName(cwd: string | undefined): string | undefined {
  if (!cwd) return undefined;
  const parts = cwd.replace(/[\\/]+$/, '').split(/[\\/]/);
  return parts[parts.length - 1] || cwd;
}

export const STATE_LABEL: Record<SessionState, string> = {
  waiting: 'waiting for you',
  running: 'running',
  idle: 'idle',
  ended: 'ended',
};

export function StatePill({ state }: { state: SessionState }) {
  return <span class={`pill pill-${state}`}>{STATE_LABEL[state]}</span>;
}

export function sessionHref(id: string): string {
  return `#/s/${encodeURIComponent(id)}`;
}
