// Every session the relay holds, newest activity first: agent, project
// (model/label.ts; a short id and the start time tell one project's
// sessions apart), state (waiting for you / running / idle / ended), how
// long, last activity, tokens and cost (model/usage.ts) and what waits;
// filterable by agent and state.
import { Component } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useSignal } from '@preact/signals';
import type { SessionState } from '../model/session-model.ts';
import { pauseText } from '../../../engine/core/kernel/limits.ts';
import { isWaiting } from '../model/attention.ts';
import { longId, sessionLabel } from '../model/label.ts';
import { usageLong, usageOf, type UsageSum } from '../model/usage.ts';
import { AgentIcon, STATE_LABEL, StatePill, dayTime, roughly, sessionHref, span } from './bits.tsx';
import { useApp } from './context.ts';
import { UsageNote } from './ToolCall.tsx';

const STATES: SessionState[] = ['waiting', 'running', 'paused', 'idle', 'ended'];
/** Rows rendered at first; more as the reader scrolls to the end (a list of hundreds costs what is on screen). */
const STEP = 60;

export function SessionList({ current }: { current?: string }) {
  const { store } = useApp();
  store.listRev.value;
  store.attnRev.value;
  const now = store.clock.value;
  const agent = useSignal('');
  const state = useSignal('');
  const shown = useSignal(STEP);
  const all = store.sessionList();
  const agents = [...new Set(all.map((s) => s.agent).filter(Boolean))].sort();
  const rows = all
    .map((s) => ({ s, st: store.stateOf(s, now) }))
    .filter(({ s, st }) => (!agent.value || s.agent === agent.value) && (!state.value || st === state.value));
  return (
    <section class="sessions" aria-labelledby="sessions-h">
      <div class="sessions-head">
        <h2 id="sessions-h">
          Sessions <span class="count">{all.length}</span>
        </h2>
        <div class="filters">
          <label>
            <span class="sr-only">Agent</span>
            <select value={agent.value} onChange={(e) => (agent.value = (e.target as HTMLSelectElement).value)} aria-label="Filter by agent">
              <option value="">All agents</option>
              {agents.map((a) => (
                <option value={a} key={a}>
                  {a}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span class="sr-only">State</span>
            <select value={state.value} onChange={(e) => (state.value = (e.target as HTMLSelectElement).value)} aria-label="Filter by state">
              <option value="">All states</option>
              {STATES.map((st) => (
                <option value={st} key={st}>
                  {STATE_LABEL[st]}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>
      {rows.length === 0 ? (
        <p class="empty">{all.length ? 'No session matches these filters.' : 'No sessions yet. Wire an agent with `hookmap setup <agent>` and start it.'}</p>
      ) : null}
      <ul class="session-list" data-count={rows.length}>
        {rows.slice(0, shown.value).map(({ s, st }) => {
          const waiting = [...s.attention].filter((id) => {
            const a = store.attn.get(id);
            return a && isWaiting(a, now);
          }).length;
          const label = sessionLabel(s);
          const started = Number.isFinite(s.firstAt);
          const ended = st === 'ended' && started;
          const pause = st === 'paused' ? store.pauseOf(s) : undefined;
          const sub = [
            pause ? pauseText(pause, (d) => dayTime(d.getTime(), now)) : '',
            label.project ? label.short : '',
            // when it started says how long a live session has run; an ended one says how long it lasted
            ended ? `${dayTime(s.firstAt, now)}, lasted ${span(s.lastAt - s.firstAt)}` : started ? `since ${dayTime(s.firstAt, now)}` : '',
            s.lastAt ? `active ${coarseAgo(s.lastAt, now)}` : '',
          ]
            .filter(Boolean)
            .join(' · ');
          return (
            <SessionRow
              key={s.id}
              id={s.id}
              agent={s.agent}
              project={label.project}
              from={label.from}
              state={st}
              sub={sub}
              waiting={waiting}
              usage={usageOf(s).total}
              current={current === s.id}
            />
          );
        })}
        {rows.length > shown.value ? <MoreRows onVisible={() => (shown.value += STEP)} label={`${rows.length - shown.value} more sessions`} /> : null}
      </ul>
    </section>
  );
}

interface RowProps {
  id: string;
  agent: string;
  project?: string;
  from?: string;
  state: SessionState;
  sub: string;
  waiting: number;
  /** Tokens and cost (model/usage.ts). */
  usage?: UsageSum;
  current: boolean;
}

/** One row; re-rendered only when what it shows changed (200 rows, many updates a second). */
class SessionRow extends Component<RowProps> {
  shouldComponentUpdate(next: RowProps): boolean {
    const p = this.props;
    return (
      p.id !== next.id ||
      p.agent !== next.agent ||
      p.project !== next.project ||
      p.from !== next.from ||
      p.state !== next.state ||
      p.sub !== next.sub ||
      p.waiting !== next.waiting ||
      (p.usage && usageLong(p.usage)) !== (next.usage && usageLong(next.usage)) ||
      p.current !== next.current
    );
  }

  render({ id, agent, project, from, state, sub, waiting, usage, current }: RowProps) {
    return (
      <li>
        <a
          href={sessionHref(id)}
          class={`session-row${current ? ' current' : ''}`}
          aria-current={current ? 'page' : undefined}
          data-session={id}
          data-state={state}
        >
          <AgentIcon agent={agent} />
          <span class="session-main">
            <span class="session-title">
              <span class="session-agent">{agent || 'unknown agent'}</span>
              {project ? (
                <span class="session-project" title={from}>
                  {project}
                </span>
              ) : (
                <span class="session-project session-id" title={`session ${id}`}>
                  {longId(id)}
                </span>
              )}
            </span>
            <span class="session-sub">
              <StatePill state={state} />
              <span class="muted">{sub}</span>
              {usage ? <UsageNote u={usage} class="usage muted" /> : null}
            </span>
          </span>
          {waiting ? (
            <span class="badge" aria-label={`${waiting} waiting`}>
              {waiting}
            </span>
          ) : null}
        </a>
      </li>
    );
  }
}

/** The end of the rendered rows: renders the next ones when it scrolls into view, or on a click. */
function MoreRows({ onVisible, label }: { onVisible: () => void; label: string }) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onVisible(), { rootMargin: '400px' });
    io.observe(el);
    return () => io.disconnect();
  });
  return (
    <li ref={ref} class="more-rows">
      <button type="button" class="btn btn-quiet" onClick={onVisible}>
        Show {label}
      </button>
    </li>
  );
}

/** Seconds under a minute, then whole minutes: a list of 200 does not change every second for old sessions. */
function coarseAgo(at: number, now: number): string {
  const d = Math.max(0, now - at);
  return d < 5_000 ? 'just now' : `${roughly(d)} ago`;
}
