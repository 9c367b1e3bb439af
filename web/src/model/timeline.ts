// A session's timeline as rows: runs, tool calls (request paired with its
// completion, failure or denial by call id), attention requests with their
// outcome, the agent's messages (AEP-0007), everything else as a plain row;
// each row knows the row its `cause` points at (AEP-0001 §5: cause links),
// so the UI can jump along the causal chain. Pure: built from the session's
// ordered events in one pass.
import type { Ev } from './aep.ts';

export type Row =
  | { kind: 'session'; id: string; ev: Ev; causeRow?: string }
  | { kind: 'run'; id: string; ev: Ev; end?: Ev; causeRow?: string }
  | { kind: 'run-end'; id: string; ev: Ev; start?: Ev; causeRow?: string }
  | { kind: 'tool'; id: string; ev: Ev; end?: Ev; causeRow?: string }
  | { kind: 'attention'; id: string; ev: Ev; causeRow?: string }
  | { kind: 'message'; id: string; ev: Ev; causeRow?: string }
  | { kind: 'event'; id: string; ev: Ev; causeRow?: string };

/** Types folded into another row instead of getting their own. */
const FOLDED_ATTENTION = new Set(['attention.answered', 'attention.resolved', 'attention.timeout', 'attention.routed']);
const TOOL_ENDS = new Set(['tool.completed', 'tool.failed', 'tool.denied']);
const RUN_ENDS = new Set(['run.finished', 'run.failed', 'run.cancelled']);

export interface Timeline {
  rows: Row[];
  /** Event id -> id of the row that shows it. */
  rowOf: Map<string, string>;
}

export function buildTimeline(events: Ev[], foldedCommands: ReadonlySet<string> = new Set()): Timeline {
  const rows: Row[] = [];
  const rowOf = new Map<string, string>();
  const toolByCall = new Map<string, Extract<Row, { kind: 'tool' }>>();
  const runRows = new Map<string, Extract<Row, { kind: 'run' }>>();
  const push = (r: Row) => {
    rows.push(r);
    rowOf.set(r.ev.id, r.id);
  };
  for (const ev of events) {
    const t = ev.type;
    if (t === 'session.started' || t === 'session.ended') {
      push({ kind: 'session', id: ev.id, ev });
    } else if (t === 'run.started') {
      const r = { kind: 'run' as const, id: ev.id, ev };
      if (ev.run) runRows.set(ev.run, r);
      push(r);
    } else if (RUN_ENDS.has(t)) {
      const start = ev.run ? runRows.get(ev.run) : undefined;
      if (start) start.end = ev;
      push({ kind: 'run-end', id: ev.id, ev, start: start?.ev });
    } else if (t === 'tool.requested') {
      const r = { kind: 'tool' as const, id: ev.id, ev };
      const call = callId(ev);
      if (call) toolByCall.set(call, r);
      push(r);
    } else if (TOOL_ENDS.has(t)) {
      const call = callId(ev);
      const r = call ? toolByCall.get(call) : undefined;
      if (r && !r.end) {
        r.end = ev;
        rowOf.set(ev.id, r.id);
      } else {
        push({ kind: 'tool', id: ev.id, ev }); // a denial or completion with no request seen: its own row
      }
    } else if (t === 'attention.requested') {
      push({ kind: 'attention', id: ev.id, ev });
    } else if (FOLDED_ATTENTION.has(t) && ev.subject && rowOf.has(ev.subject)) {
      rowOf.set(ev.id, rowOf.get(ev.subject)!);
    } else if ((t === 'control.accepted' || t === 'control.rejected') && ev.cause && foldedCommands.has(ev.cause)) {
      // the ack of an answer is shown on the attention row it answers
      continue;
    } else if (t.startsWith('message.')) {
      push({ kind: 'message', id: ev.id, ev });
    } else {
      push({ kind: 'event', id: ev.id, ev });
    }
  }
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

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
