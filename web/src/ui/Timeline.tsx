// A session's timeline (model/timeline.ts rows), oldest first, following the
// stream: it stays pinned to the newest row while the reader is at the
// bottom, renders the newest rows first (older ones on request, so a
// 10,000-event session stays cheap), and every row with a `cause` links to
// the row that caused it. A tool call says what became of it (model/calls.ts);
// vendor extension rows that say nothing to a person are one click away.
import { Component } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { TYPE, runEnd } from '../../../engine/core/kernel/lifecycle.ts';
import { runStatus } from '../model/calls.ts';
import { outcomeOf } from '../model/outcome.ts';
import { ruleOf } from '../model/rules.ts';
import type { SessionModel } from '../model/session-model.ts';
import { buildTimeline, durationMs, formatDuration, toolDetail, type Row } from '../model/timeline.ts';
import { usageLong, usageOf, type UsageSum } from '../model/usage.ts';
import { clockTime } from './bits.tsx';
import { useApp } from './context.ts';
import { permSig, ToolCall, UsageNote } from './ToolCall.tsx';

const PAGE = 300;

export function Timeline({ s }: { s: SessionModel }) {
  const { store } = useApp();
  const rev = s.rev.value;
  const attnRev = store.attnRev.value;
  const [limit, setLimit] = useState(PAGE);
  const [focusRow, setFocusRow] = useState<string | undefined>();
  const [showQuiet, setShowQuiet] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const tl = useMemo(() => {
    const folded = new Set<string>();
    for (const c of store.cmds.values()) if (c.type === TYPE.controlAttentionRespond && c.session === s.id) folded.add(c.id);
    for (const id of s.attention) {
      const cause = store.attn.get(id)?.answered?.cause;
      if (cause) folded.add(cause);
    }
    return buildTimeline(s.events, folded);
  }, [s, rev, attnRev]);
  const quiet = useMemo(() => tl.rows.filter((r) => r.kind === 'event' && r.quiet).length, [tl]);
  const rows = useMemo(() => (showQuiet ? tl.rows : tl.rows.filter((r) => !(r.kind === 'event' && r.quiet))), [tl, showQuiet]);
  const uncaptured = useMemo(() => rows.some((r) => r.ev.type === TYPE.toolRequested && !toolDetail(r.ev)), [rows]);
  const start = Math.max(0, rows.length - limit);
  const shown = rows.slice(start);
  const labelOf = useMemo(() => new Map(rows.map((r) => [r.id, rowLabel(r)])), [rows]);
  const usage = useMemo(() => usageOf(s), [s, rev]);

  useLayoutEffect(() => {
    const el = box.current;
    if (el && atBottom.current && !focusRow) el.scrollTop = el.scrollHeight;
  });
  useEffect(() => {
    if (!focusRow) return;
    const el = document.getElementById(`row-${focusRow}`);
    if (!el) return;
    el.scrollIntoView({ block: 'center' });
    el.focus({ preventScroll: true });
    el.classList.add('flash');
    const t = setTimeout(() => el.classList.remove('flash'), 1600);
    setFocusRow(undefined);
    return () => clearTimeout(t);
  }, [focusRow, shown.length]);

  const now = store.clock.value;
  const attentionText = (id: string) => {
    const a = store.attn.get(id);
    return a ? { ...outcomeOf(store, a, now), rule: ruleOf(a.answered?.data?.by) } : undefined;
  };

  const jump = (rowId: string) => {
    const idx = rows.findIndex((r) => r.id === rowId);
    if (idx >= 0 && idx < start) setLimit(rows.length - idx + 20);
    atBottom.current = false;
    setFocusRow(rowId);
  };

  return (
    <section class="timeline" aria-label="Timeline">
      <div
        class="timeline-box"
        ref={box}
        onScroll={(e) => {
          const el = e.currentTarget as HTMLDivElement;
          atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        {s.gap ? (
          <p class="timeline-gap" role="note">
            Earlier events of this session are no longer held by the relay (its buffer starts at epoch {s.gap.epoch}, seq {s.gap.seq}).
          </p>
        ) : null}
        {start > 0 ? (
          <button type="button" class="btn btn-quiet show-earlier" onClick={() => setLimit(limit + PAGE)}>
            Show earlier ({start} more)
          </button>
        ) : null}
        {uncaptured ? (
          <p class="timeline-note muted">
            Commands and paths are not captured at this session's capture level (privacy default: metadata); permission prompts show what is asked.
          </p>
        ) : null}
        {quiet ? (
          <button type="button" class="btn btn-quiet show-quiet" aria-pressed={showQuiet} onClick={() => setShowQuiet(!showQuiet)}>
            {showQuiet ? 'Hide' : 'Show'} {quiet} agent-specific {quiet === 1 ? 'event' : 'events'}
          </button>
        ) : null}
        {rows.length === 0 ? <p class="empty">{s.history === 'full' ? 'No events held for this session.' : 'Loading the session…'}</p> : null}
        <ol class="rows" data-rows={rows.length}>
          {shown.map((r) => {
            const outcome = r.kind === 'attention' ? attentionText(r.ev.id) : undefined;
            const u = (r.kind === 'run' || r.kind === 'run-end') && r.ev.run ? usage.runs.get(r.ev.run) : undefined;
            const sig =
              `${r.ev.id}|${'end' in r ? (r.end?.id ?? '') : ''}|${'closedBy' in r ? (r.closedBy?.id ?? '') : ''}|` +
              `${r.kind === 'tool' ? permSig(r) : ''}|${r.causeRow ?? ''}|${outcome?.text ?? ''}|` +
              `${outcome?.tone ?? ''}|${u ? usageLong(u) : ''}`;
            const causeLabel = r.causeRow ? labelOf.get(r.causeRow) : undefined;
            return <TimelineRow key={r.id} sig={sig} r={r} outcome={outcome} usage={u} causeLabel={causeLabel} onJump={jump} />;
          })}
        </ol>
      </div>
    </section>
  );
}

function rowView(r: Row, outcome: { text: string; tone: string; rule?: string } | undefined) {
  const d = r.ev.data ?? {};
  switch (r.kind) {
    case 'session':
      return r.ev.type === TYPE.sessionStarted ? (
        <p>
          <strong>Session started</strong>
          {d.trigger ? ` (${d.trigger})` : ''}
          {d['gen_ai.request.model'] ? ` · ${d['gen_ai.request.model']}` : ''}
          {d.cwd ? <span class="muted"> · {d.cwd}</span> : null}
        </p>
      ) : (
        <p>
          <strong>Session ended</strong>
          {d.reason ? ` (${d.reason})` : ''}
        </p>
      );
    case 'run': {
      const end = r.end;
      const status = runStatus(r);
      return (
        <p>
          <strong>Run</strong> <span class={`pill pill-run-${status}`}>{status}</span>
          {d.trigger ? <span class="muted"> · {String(d.trigger)}</span> : null}
          {end ? <span class="muted"> · {formatDuration(durationMs(r.ev, end))}</span> : null}
          {end && runEnd(end.type) === 'failed' && end.data?.reason ? <span class="muted">: {String(end.data.reason)}</span> : null}
          {status === 'ended' ? <span class="muted"> · no end reported before the session ended</span> : null}
          {typeof d.prompt === 'string' && d.prompt ? <span class="row-text clip">{d.prompt}</span> : null}
        </p>
      );
    }
    case 'run-end':
      return (
        <p class="muted">
          Run {r.ev.type.slice(4)}
          {runEnd(r.ev.type) === 'failed' && d.reason ? `: ${d.reason}` : ''}
        </p>
      );
    case 'tool':
      return <ToolCall r={r} />;
    case 'attention': {
      const o = outcome;
      return (
        <p>
          <strong>{d.kind === 'form' ? 'Question' : d.kind === 'permission' ? 'Permission' : 'Request'}</strong>{' '}
          {typeof d.prompt === 'string' ? d.prompt : r.ev.subject}
          <span class={`row-outcome tone-${o?.tone ?? 'info'}`}>{o?.text || 'waiting for an answer'}</span>
          {o?.rule ? (
            <a class="rule-link" href={`#/rules/${encodeURIComponent(o.rule)}`} data-rule-link={o.rule}>
              see rule {o.rule}
            </a>
          ) : null}
        </p>
      );
    }
    case 'message': {
      const who = r.ev.type === 'message.user.submitted' ? 'User' : r.ev.type === 'message.agent.replied' ? 'Agent' : r.ev.type.slice(8);
      return (
        <p>
          <strong>{who}</strong>
          {typeof d.text === 'string' ? (
            <span class="row-text message-text">{d.text}</span>
          ) : (
            <span class="muted"> · {typeof d.chars === 'number' ? `${d.chars} characters` : 'a message'} (text not captured)</span>
          )}
        </p>
      );
    }
    default:
      if (/\.instruction\.(delivered|dropped)$/.test(r.ev.type)) {
        return (
          <p>
            <strong>Instruction</strong>{' '}
            {r.ev.type.endsWith('delivered')
              ? d.carrier === 'next-turn'
                ? 'delivered: it woke the idle session into a new turn'
                : 'delivered to the agent'
              : `dropped${d.reason ? ` (${d.reason})` : ''}`}
          </p>
        );
      }
      return (
        <p>
          <code>{r.ev.type}</code>
          {r.ev.subject ? ` ${r.ev.subject}` : ''}
          {r.ev.type === TYPE.controlRejected && d.reason ? <span class="muted"> · {d.reason}</span> : null}
        </p>
      );
  }
}

interface RowProps {
  sig: string;
  r: Row;
  outcome?: { text: string; tone: string; rule?: string };
  /** A run's tokens and cost. */
  usage?: UsageSum;
  causeLabel?: string;
  onJump: (rowId: string) => void;
}

/** One timeline row; re-rendered only when what it shows changed (its signature). */
class TimelineRow extends Component<RowProps> {
  shouldComponentUpdate(next: RowProps): boolean {
    return next.sig !== this.props.sig || next.causeLabel !== this.props.causeLabel;
  }

  render({ r, outcome, usage, causeLabel, onJump }: RowProps) {
    return (
      <li id={`row-${r.id}`} tabIndex={-1} class={`row row-${r.kind}`} data-type={r.ev.type} data-seq={`${r.ev.epoch ?? 0}:${r.ev.seq ?? ''}`}>
        <time class="row-time" dateTime={r.ev.time}>
          {clockTime(r.ev.time)}
        </time>
        <div class="row-body">
          {rowView(r, outcome)}
          {usage ? <UsageNote u={usage} class="usage row-usage" /> : null}
          {r.causeRow ? (
            <button type="button" class="cause-link" onClick={() => onJump(r.causeRow!)}>
              ↳ after {causeLabel ?? 'an earlier event'}
            </button>
          ) : null}
        </div>
      </li>
    );
  }
}

function rowLabel(r: Row): string {
  const d = r.ev.data ?? {};
  switch (r.kind) {
    case 'session':
      return r.ev.type === TYPE.sessionStarted ? 'session start' : 'session end';
    case 'run':
      return 'run start';
    case 'run-end':
      return r.ev.type.replace('.', ' ');
    case 'tool':
      return `${d.tool?.name ?? r.ev.subject ?? 'tool'} call`;
    case 'attention':
      return `${d.kind ?? 'attention'} request`;
    case 'message':
      return 'message';
    default:
      return r.ev.type;
  }
}
