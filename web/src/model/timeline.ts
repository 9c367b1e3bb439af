// A session's timeline as rows: runs (start and end on one row), tool calls
// (request paired with its completion, failure or denial, and with the
// permission request that asked about it), attention requests with their
// outcome, the agent's messages (AEP-0007), everything else as a plain row;
// each row knows the row its `cause` points at (AEP-0001 §5: cause links), so
// the UI can jump along the causal chain. Which call a terminal or a request
// belongs to, and what became of each, is the kernel's one fold
// (engine/core/kernel/fold/): the rows only place its stories. Pure: built from the
// session's ordered events in one pass. Views only: nothing here is written
// back to the stream.
import { StoryFold, type CallStory, type RequestStory } from '../../../engine/core/kernel/fold/index.ts';
import { closes, isAttentionFollower, opens } from '../../../engine/core/kernel/lifecycle.ts';
import type { Ev } from './aep.ts';
import { joinOtel, type OtelFacts } from './otel-join.ts';

export interface ToolRow {
  kind: 'tool';
  id: string;
  ev: Ev;
  end?: Ev;
  /** The call's story in the kernel's fold: its requests and what became of it (engine/core/kernel/fold/fates.ts). */
  call?: CallStory<Ev>;
  /** The first request that asked a person about this call, and its lifecycle (from the fold). */
  permission?: RequestStory<Ev> & { req: Ev };
  /** The run end or session end seen while the call had no terminal event. */
  closedBy?: Ev;
  /** The OTel companion's records of this call (model/otel-join.ts). */
  otel?: OtelFacts;
  causeRow?: string;
}

export interface RunRow {
  kind: 'run';
  id: string;
  ev: Ev;
  end?: Ev;
  /** session.ended seen while the run had no end. */
  closedBy?: Ev;
  causeRow?: string;
}

export type Row =
  | { kind: 'session'; id: string; ev: Ev; causeRow?: string }
  | RunRow
  | { kind: 'run-end'; id: string; ev: Ev; causeRow?: string }
  | ToolRow
  | { kind: 'attention'; id: string; ev: Ev; causeRow?: string }
  | { kind: 'message'; id: string; ev: Ev; causeRow?: string }
  | { kind: 'event'; id: string; ev: Ev; causeRow?: string; quiet?: boolean };

// Which type opens or closes what is the kernel's (engine/core/kernel/lifecycle.ts, generated from the AEP registry); the
// attention followers (routed, answered, resolved, timeout) are folded into the request's row instead of getting their own.

/**
 * A vendor extension type (x.<agent>.*) that says nothing to a person
 * reading the timeline: hidden unless asked for. A steer's fate and an
 * error stay visible.
 */
export function isQuiet(type: string): boolean {
  return /^x\./.test(type) && !/\.instruction\.(delivered|dropped)$/.test(type) && !/\.error$/.test(type);
}

export interface Timeline {
  rows: Row[];
  /** Event id -> id of the row that shows it. */
  rowOf: Map<string, string>;
}

export function buildTimeline(events: Ev[], foldedCommands: ReadonlySet<string> = new Set()): Timeline {
  const rows: Row[] = [];
  const rowOf = new Map<string, string>();
  const fold = new StoryFold<Ev>();
  const rowByCall = new Map<CallStory<Ev>, ToolRow>();
  const runRows = new Map<string, RunRow>();
  const push = (r: Row) => {
    rows.push(r);
    rowOf.set(r.ev.id, r.id);
  };
  for (const ev of events) {
    fold.add(ev);
    const t = ev.type;
    const unit = opens(t) ?? closes(t);
    if (unit === 'session') {
      push({ kind: 'session', id: ev.id, ev });
    } else if (unit === 'run' && opens(t)) {
      const r: RunRow = { kind: 'run', id: ev.id, ev };
      if (ev.run) runRows.set(ev.run, r);
      push(r);
    } else if (unit === 'run') {
      const start = ev.run ? runRows.get(ev.run) : undefined;
      if (start && !start.end) {
        // the run is one row: its start shows how it ended and how long it took
        start.end = ev;
        rowOf.set(ev.id, start.id);
      } else {
        push({ kind: 'run-end', id: ev.id, ev }); // an end whose start is not held
      }
    } else if (unit === 'tool') {
      const call = fold.call(ev, ev.id);
      const r = call ? rowByCall.get(call) : undefined;
      if (r && !opens(t) && r.ev !== ev && !r.end) {
        r.end = ev;
        rowOf.set(ev.id, r.id);
      } else {
        // a call's request, or a denial or completion with no request seen: its own row
        const row: ToolRow = { kind: 'tool', id: ev.id, ev, call };
        if (call && !rowByCall.has(call)) rowByCall.set(call, row);
        push(row);
      }
    } else if (opens(t) === 'attention') {
      const q = fold.request(ev, ev.id);
      const r = q?.call ? rowByCall.get(q.call) : undefined;
      if (r && q && !r.permission) r.permission = q as RequestStory<Ev> & { req: Ev };
      push({ kind: 'attention', id: ev.id, ev });
    } else if (isAttentionFollower(t) && ev.subject && rowOf.has(ev.subject)) {
      rowOf.set(ev.id, rowOf.get(ev.subject)!);
    } else if ((t === 'control.accepted' || t === 'control.rejected') && ev.cause && foldedCommands.has(ev.cause)) {
      // the ack of an answer is shown on the attention row it answers
      continue;
    } else if (t.startsWith('message.')) {
      push({ kind: 'message', id: ev.id, ev });
    } else {
      push({ kind: 'event', id: ev.id, ev, quiet: isQuiet(t) || undefined });
    }
  }
  // what closed a run or a call with no end of its own: the fold's story says
  for (const r of rows) {
    if (r.kind === 'run' && !r.end && r.ev.run) r.closedBy = fold.session(r.ev)?.runs.get(r.ev.run)?.closedBy;
    else if (r.kind === 'tool' && opens(r.ev.type) && !r.end) r.closedBy = r.call?.closedBy;
  }
  joinOtel(rows, rowOf);
  for (const r of rows) {
    const cause = r.ev.cause;
    if (!cause) continue;
    const target = rowOf.get(cause);
    if (target && target !== r.id) r.causeRow = target;
  }
  return { rows, rowOf };
}

export function callId(ev: Ev): string | undefined {
  const c = ev.data?.tool?.call_id;
  return typeof c === 'string' && c ? `${ev.run ?? ''}\u0000${c}` : undefined;
}

/** What a tool call did, where capture allows: the command, else a path, else nothing. */
export function toolDetail(ev: Ev): string | undefined {
  const d = ev.data ?? {};
  for (const args of [d.args, d.args_redacted]) {
    if (!args || typeof args !== 'object') continue;
    for (const k of ['command', 'cmd', 'file_path', 'path', 'filePath', 'url', 'pattern', 'query']) {
      const v = (args as Record<string, unknown>)[k];
      if (typeof v === 'string' && v) return v;
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(' ');
    }
  }
  return undefined;
}

export function durationMs(start: Ev | undefined, end: Ev | undefined): number | undefined {
  if (typeof end?.data?.duration_ms === 'number') return end.data.duration_ms;
  if (!start || !end) return undefined;
  const d = Date.parse(end.time) - Date.parse(start.time);
  return Number.isFinite(d) && d >= 0 ? d : undefined;
}

/** A duration as a person says it: "420 ms", "42 s", "3 min 5 s", "1 min" (no "0 s"), "2 h 5 min", "3 d 1 h". */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return both(m, 'min', s % 60, 's');
  const h = Math.floor(m / 60);
  if (h < 48) return both(h, 'h', m % 60, 'min');
  return both(Math.floor(h / 24), 'd', h % 24, 'h');
}

function both(big: number, bigUnit: string, small: number, smallUnit: string): string {
  return small ? `${big} ${bigUnit} ${small} ${smallUnit}` : `${big} ${bigUnit}`;
}
