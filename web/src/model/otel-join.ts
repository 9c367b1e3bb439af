// The OTel companion channel on the hook channel's tool rows (issue 30): an
// agent's own OpenTelemetry logs (an `otlp-receiver` descriptor in
// companion mode) say what its hooks cannot (a command's exit code, the
// call's duration, a config deny) as x.<agent>.otel.tool_result /
// tool_decision, in the same session but from another emitter (the inbox
// names no agent: any channel of that family joins). Their data is the
// record's own attributes, values as OTLP carried them (the AEP Annex A pins:
// `call_id`, `success` "false", `duration_ms` "244"). A record joins the tool
// row whose data.tool.call_id is its data.call_id, in the same session, from another
// source; nothing else is matched (no name or time guess), a call id held by
// two rows joins neither, and a record with no row stays its own row. Pure.
import type { Ev } from './aep.ts';
import type { Row, ToolRow } from './timeline.ts';

/** `x.<agent>.otel.tool_result` (the call's outcome) and `x.<agent>.otel.tool_decision` (who decided it). */
const OTEL_RESULT = /^x\.[a-z0-9-]+\.otel\.tool_result$/;
const OTEL_DECISION = /^x\.[a-z0-9-]+\.otel\.tool_decision$/;

export interface OtelFacts {
  result?: Ev;
  decision?: Ev;
}

const idOf = (c: unknown): string | undefined => (typeof c === 'string' && c ? c : undefined);
/** A hook tool row's call id. */
const rowCall = (ev: Ev): string | undefined => idOf(ev.data?.tool?.call_id);
/** An OTel record's call id: the attribute as the record carries it. */
const otelCall = (ev: Ev): string | undefined => idOf(ev.data?.call_id);
/** A number as OTLP carries it: a number, or a string of digits (Codex sends `duration_ms: "244"`). */
const numberOf = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'string' && /^[0-9]+(\.[0-9]+)?$/.test(v) ? Number(v) : undefined;

/** Folds the OTel records that match a tool row into it (rows edited in place; rowOf points them at the row). */
export function joinOtel(rows: Row[], rowOf: Map<string, string>): void {
  const byCall = new Map<string, ToolRow | null>(); // null: two rows hold that id
  for (const r of rows) {
    if (r.kind !== 'tool') continue;
    const c = rowCall(r.ev);
    if (!c) continue;
    const key = `${r.ev.session ?? ''}\u0000${c}`;
    byCall.set(key, byCall.has(key) ? null : r);
  }
  const keep: Row[] = [];
  for (const r of rows) {
    const t = r.ev.type;
    const c = (OTEL_RESULT.test(t) || OTEL_DECISION.test(t)) && r.kind === 'event' ? otelCall(r.ev) : undefined;
    const tool = c ? byCall.get(`${r.ev.session ?? ''}\u0000${c}`) : undefined;
    if (!tool || tool.ev.source === r.ev.source) {
      keep.push(r);
      continue;
    }
    tool.otel ??= {};
    if (OTEL_RESULT.test(t)) tool.otel.result ??= r.ev;
    else tool.otel.decision ??= r.ev;
    rowOf.set(r.ev.id, tool.id);
  }
  rows.splice(0, rows.length, ...keep);
}

/** A duration as the OTel record gives it, to a tenth of a second: "244 ms", "1.2 s", "42 s". */
function otelDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 1000)} s`;
}

/** What the OTel records add to a tool row, as text: "exit 2 · 1.2 s (OTel)", "denied by config (OTel)". */
export function otelText(f: OtelFacts | undefined): string[] {
  const out: string[] = [];
  const d = f?.decision?.data;
  if (d && typeof d.decision === 'string') out.push(`${d.decision}${typeof d.source === 'string' && d.source ? ` by ${d.source}` : ''} (OTel)`);
  const r = f?.result?.data;
  if (r) {
    const bits: string[] = [];
    if (typeof r.exit_code === 'number') bits.push(`exit ${r.exit_code}`);
    else if (r.success === false || r.success === 'false') bits.push('unsuccessful');
    const ms = numberOf(r.duration_ms);
    if (ms !== undefined) bits.push(otelDuration(ms));
    if (bits.length) out.push(`${bits.join(' · ')} (OTel)`);
  }
  return out;
}
