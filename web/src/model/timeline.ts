// A session's timeline as rows: runs (start and end on one row), tool calls
// (request paired with its completion, failure or denial by call id, and
// with the permission request that asked about it), attention requests with
// their outcome, the agent's messages (AEP-0007), everything else as a plain
// row; each row knows the row its `cause` points at (AEP-0001 §5: cause
// links), so the UI can jump along the causal chain. Pure: built from the
// session's ordered events in one pass. Views only: nothing here is written
// back to the stream.
import { fateOf, isAttentionFollower, isRunTerminal, isSessionTerminal, isToolTerminal, opens } from '../../../engine/kernel/lifecycle.ts';
import type { Ev } from './aep.ts';
import { joinOtel, type OtelFacts } from './otel-join.ts';

export interface ToolRow {
  kind: 'tool';
  id: string;
  ev: Ev;
  end?: Ev;
  /** The attention.requested that asked a person about this call, and its lifecycle. */
  permission?: { req: Ev; answered?: Ev; resolved?: Ev; timeout?: Ev };
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

// Which type opens or closes what is the kernel's (engine/kernel/lifecycle.ts, generated from the AEP registry); the
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
  const toolByCall = new Map<string, ToolRow>();
  const tools: ToolRow[] = [];
  const toolById = new Map<string, ToolRow>();
  const byPermission = new Map<string, ToolRow>();
  const runRows = new Map<string, RunRow>();
  const runEnds = new Map<string, Ev>();
  const push = (r: Row) => {
    rows.push(r);
    rowOf.set(r.ev.id, r.id);
  };
  for (const ev of events) {
    const t = ev.type;
    const fate = fateOf(t);
    if (opens(t) === 'session' || isSessionTerminal(t)) {
      push({ kind: 'session', id: ev.id, ev });
    } else if (t === 'run.started') {
      const r: RunRow = { kind: 'run', id: ev.id, ev };
      if (ev.run) runRows.set(ev.run, r);
      push(r);
    } else if (isRunTerminal(t)) {
      const start = ev.run ? runRows.get(ev.run) : undefined;
      if (ev.run && !runEnds.has(ev.run)) runEnds.set(ev.run, ev);
      if (start && !start.end) {
        // the run is one row: its start shows how it ended and how long it took
        start.end = ev;
        rowOf.set(ev.id, start.id);
      } else {
        push({ kind: 'run-end', id: ev.id, ev }); // an end whose start is not held
      }
    } else if (t === 'tool.requested') {
      const r: ToolRow = { kind: 'tool', id: ev.id, ev };
      const call = callId(ev);
      if (call) toolByCall.set(call, r);
      tools.push(r);
      toolById.set(r.id, r);
      push(r);
    } else if (isToolTerminal(t)) {
      const call = callId(ev);
      const r = call ? toolByCall.get(call) : undefined;
      if (r && !r.end) {
        r.end = ev;
        rowOf.set(ev.id, r.id);
      } else {
        push({ kind: 'tool', id: ev.id, ev }); // a denial or completion with no request seen: its own row
      }
    } else if (t === 'attention.requested') {
      const r = askedAbout(ev, tools, toolById, rowOf);
      if (r) {
        r.permission = { req: ev };
        byPermission.set(ev.id, r);
      }
      push({ kind: 'attention', id: ev.id, ev });
    } else if (isAttentionFollower(t) && ev.subject && rowOf.has(ev.subject)) {
      rowOf.set(ev.id, rowOf.get(ev.subject)!);
      const p = byPermission.get(ev.subject)?.permission;
      if (p && t === 'attention.answered') p.answered ??= ev;
      else if (p && fate?.fate === 'resolved') p.resolved ??= ev;
      else if (p && fate?.fate === 'timeout') p.timeout ??= ev;
    } else if ((t === 'control.accepted' || t === 'control.rejected') && ev.cause && foldedCommands.has(ev.cause)) {
      // the ack of an answer is shown on the attention row it answers
      continue;
    } else if (t.startsWith('message.')) {
      push({ kind: 'message', id: ev.id, ev });
    } else {
      push({ kind: 'event', id: ev.id, ev, quiet: isQuiet(t) || undefined });
    }
  }
  closeOpen(rows, runEnds);
  joinOtel(rows, rowOf);
  for (const r of rows) {
    const cause = r.ev.cause;
    if (!cause) continue;
    const target = rowOf.get(cause);
    if (target && target !== r.id) r.causeRow = target;
  }
  return { rows, rowOf };
}

/** A call or run with no end of its own, followed by its run's end or the session's end: closed without an outcome. */
function closeOpen(rows: Row[], runEnds: Map<string, Ev>): void {
  let sessionEnd: Ev | undefined;
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i];
    if (r.kind === 'session' && isSessionTerminal(r.ev.type)) sessionEnd ??= r.ev;
    else if (r.kind === 'session')
      sessionEnd = undefined; // resumed after that end
    else if (r.kind === 'run' && !r.end) r.closedBy = sessionEnd;
    else if (r.kind === 'tool' && r.ev.type === 'tool.requested' && !r.end) {
      const runEnd = r.ev.run ? runEnds.get(r.ev.run) : undefined;
      r.closedBy = runEnd ?? sessionEnd;
    }
  }
}

/**
 * The tool call a request asks about: the one its `cause` names or whose call id is its subject, else (a
 * permission request that carries no call id) the newest call of that tool in the same run that is still open and not yet
 * asked about: the agent asks right after announcing the call.
 */
function askedAbout(req: Ev, tools: ToolRow[], toolById: Map<string, ToolRow>, rowOf: Map<string, string>): ToolRow | undefined {
  // by what the stream says: its cause the call's request, or its subject the call's id (ACP names the call by toolCallId)
  const byCause = req.cause ? toolById.get(rowOf.get(req.cause) ?? '') : undefined;
  let byCall = byCause;
  const call = req.subject ? `${req.run ?? ''}\u0000${req.subject}` : undefined; // a call id is its run's (callId)
  for (let i = tools.length - 1; !byCall && call && i >= 0; i--) if (callId(tools[i].ev) === call) byCall = tools[i];
  if (byCall) return byCall.permission ? undefined : byCall;
  if (req.data?.kind !== 'permission' || !req.subject) return undefined;
  for (let i = tools.length - 1; i >= 0; i--) {
    const r = tools[i];
    if (r.ev.run !== req.run) continue;
    if (r.end || r.permission) continue;
    if ((r.ev.data?.tool?.name ?? r.ev.subject) === req.subject) return r;
  }
  return undefined;
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
