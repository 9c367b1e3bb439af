// AEP → OTLP traces: the span-synthesis exporter mode AEP-0005 §3.1 leaves
// to a future revision, built additively beside the normative LogRecord
// export. A session is a root span, each run an `invoke_agent` span, each
// tool call an `execute_tool` span and each human wait an `attention` span,
// named and attributed per the OpenTelemetry GenAI semantic conventions
// (`@opentelemetry/semantic-conventions/incubating`). Spans close on their
// terminal events (structure.ts); one never closed ends with its parent and
// says so (`aep.unterminated`, `aep.closed_by`). Ids are derived from the
// session and event identity, so a re-export after a restart names the same
// spans. Only what survived the capture ceiling becomes an attribute.
import { createHash } from 'node:crypto';
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_SESSION_ID,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '@opentelemetry/semantic-conventions/incubating';
import type { CaptureLevel } from '../../../core/aep/schemas.ts';
import { SessionTracker, sessionKey, type SessionNode, type SessionState, type TrackerOptions } from '../structure.ts';
import { applyCeiling, parseTraceparent, timeToHr, type AepEvent } from './common.ts';
import { resourceFor, SCOPE } from './otlp-logs.ts';

export interface TraceOptions extends TrackerOptions {
  ceiling?: CaptureLevel;
  serviceName?: string;
}

const hex = (s: string, n: number) => createHash('sha256').update(s).digest('hex').slice(0, n);

// ids are pure functions of their inputs: remembered (bounded) so a span costs no hashing twice
const idCache = new Map<string, string>();
function cached(key: string, make: () => string): string {
  let v = idCache.get(key);
  if (v === undefined) {
    if (idCache.size > 50_000) idCache.clear();
    idCache.set(key, (v = make()));
  }
  return v;
}

/** The trace of a session: its session.started traceparent's trace when it had one, else derived from (source, session). */
export function traceIdOf(st: Pick<SessionState, 'source' | 'session' | 'traceparent'>): string {
  return parseTraceparent(st.traceparent)?.traceId ?? cached(`t\u0000${st.source}\u0000${st.session}`, () => hex(`hookmap-trace\u0000${sessionKey(st)}`, 32));
}

export function spanIdOf(traceId: string, key: string): string {
  return cached(`s\u0000${traceId}\u0000${key}`, () => {
    const id = hex(`${traceId}\u0000${key}`, 16);
    return /^0+$/.test(id) ? '0000000000000001' : id;
  });
}

/**
 * Events in, finished spans out. Stateful (open spans wait for their
 * terminal events); `snapshot()`/`restore()` carry that state across a
 * restart with the consumer's positions.
 */
export class TraceProjector {
  readonly tracker: SessionTracker;
  private out: ReadableSpan[] = [];

  constructor(private readonly opts: TraceOptions = {}) {
    this.tracker = new SessionTracker((n, st) => this.out.push(this.toSpan(this.tracker.withFate(n, st), st)), opts);
  }

  /** Feed one event; returns the spans it closed. */
  add(ev: AepEvent, now?: number): ReadableSpan[] {
    this.tracker.add(applyCeiling(ev, this.opts.ceiling ?? 'metadata'), now);
    return this.drain();
  }

  sweep(idleMs: number, now?: number): ReadableSpan[] {
    this.tracker.sweep(idleMs, now);
    return this.drain();
  }

  closeAll(): ReadableSpan[] {
    this.tracker.closeAll('end-of-input');
    return this.drain();
  }

  private drain(): ReadableSpan[] {
    const o = this.out;
    this.out = [];
    return o;
  }

  toSpan(n: SessionNode, st: SessionState): ReadableSpan {
    const traceId = traceIdOf(st);
    const ctx: SpanContext = { traceId, spanId: spanIdOf(traceId, n.key), traceFlags: TraceFlags.SAMPLED };
    let parent: SpanContext | undefined;
    if (n.parent) parent = { traceId, spanId: spanIdOf(traceId, n.parent), traceFlags: TraceFlags.SAMPLED };
    else {
      const remote = parseTraceparent(st.traceparent);
      if (remote) parent = { traceId, spanId: remote.spanId, traceFlags: remote.flags as TraceFlags, isRemote: true };
    }
    const start = timeToHr(n.start);
    const end = timeToHr(n.end ?? n.start);
    const { name, attributes, status } = describe(n);
    // what became of a call or a request, as the kernel's one fold reads it (the fate timeline, tail and the inbox say)
    if (n.fate) attributes[`aep.${n.kind}.fate`] = n.fate;
    if (n.closedBy) {
      attributes['aep.unterminated'] = true;
      attributes['aep.closed_by'] = n.closedBy;
    }
    const durNs = (end[0] - start[0]) * 1e9 + (end[1] - start[1]);
    return {
      name,
      kind: SpanKind.INTERNAL,
      spanContext: () => ctx,
      parentSpanContext: parent,
      startTime: start,
      endTime: end,
      duration: [Math.floor(durNs / 1e9), durNs % 1e9],
      status,
      attributes,
      links: [],
      events: n.events.map((e) => ({ name: e.name, time: timeToHr(e.time), attributes: e.attrs })),
      ended: true,
      resource: resourceFor(this.opts.serviceName ?? n.agent),
      instrumentationScope: SCOPE,
      droppedAttributesCount: 0,
      droppedEventsCount: n.droppedEvents,
      droppedLinksCount: 0,
    };
  }
}

function describe(n: SessionNode): { name: string; attributes: Attributes; status: { code: SpanStatusCode; message?: string } } {
  const a = n.attrs;
  const attributes: Attributes = { 'aep.session_id': n.session, 'aep.agent_id': n.agent, [ATTR_GEN_AI_CONVERSATION_ID]: n.session };
  let status: { code: SpanStatusCode; message?: string } = { code: SpanStatusCode.UNSET };
  if (n.outcome) attributes[`aep.${n.kind}.outcome`] = n.outcome;
  if (a.start_seen === false) attributes[`aep.${n.kind}.start_seen`] = false;
  const model = a['gen_ai.request.model'];
  switch (n.kind) {
    case 'session': {
      attributes[ATTR_SESSION_ID] = n.session;
      attributes[ATTR_GEN_AI_AGENT_NAME] = n.agent;
      if (model !== undefined) attributes[ATTR_GEN_AI_REQUEST_MODEL] = model;
      for (const k of ['client.name', 'client.version', 'runs', 'duration_ms'] as const) if (a[k] !== undefined) attributes[`aep.session.${k}`] = a[k];
      return { name: `session ${n.agent}`, attributes, status };
    }
    case 'run': {
      attributes[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT;
      attributes[ATTR_GEN_AI_AGENT_NAME] = n.agent;
      attributes['aep.run_id'] = n.label;
      if (model !== undefined) attributes[ATTR_GEN_AI_REQUEST_MODEL] = model;
      if (a['gen_ai.usage.input_tokens'] !== undefined) attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = a['gen_ai.usage.input_tokens'];
      if (a['gen_ai.usage.output_tokens'] !== undefined) attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = a['gen_ai.usage.output_tokens'];
      for (const k of ['trigger', 'duration_ms', 'by', 'cost.total', 'cost.currency'] as const) if (a[k] !== undefined) attributes[`aep.run.${k}`] = a[k];
      if (n.outcome === 'failed') {
        attributes[ATTR_ERROR_TYPE] = String(a['error.type'] ?? a.reason ?? 'run_failed');
        status = { code: SpanStatusCode.ERROR, message: typeof a.reason === 'string' ? a.reason : undefined };
      }
      return { name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${n.agent}`, attributes, status };
    }
    case 'tool': {
      attributes[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL;
      attributes[ATTR_GEN_AI_TOOL_NAME] = n.label;
      if (a.call_id !== undefined) attributes[ATTR_GEN_AI_TOOL_CALL_ID] = a.call_id;
      if (a.request_seen === false) attributes['aep.tool.request_seen'] = false;
      for (const k of ['duration_ms', 'status', 'rule'] as const) if (a[k] !== undefined) attributes[`aep.tool.${k}`] = a[k];
      if (n.outcome === 'failed') {
        attributes[ATTR_ERROR_TYPE] = String(a['error.type'] ?? 'tool_error');
        status = { code: SpanStatusCode.ERROR, message: typeof a['error.message'] === 'string' ? a['error.message'] : undefined };
      } else if (n.outcome === 'denied') {
        attributes[ATTR_ERROR_TYPE] = 'denied';
        if (a.denied_by !== undefined) attributes['aep.tool.denied_by'] = a.denied_by;
        status = { code: SpanStatusCode.ERROR, message: `denied${a.denied_by ? ` by ${a.denied_by}` : ''}` };
      }
      return { name: `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${n.label}`, attributes, status };
    }
    case 'attention': {
      // a human's wait has no GenAI operation: AEP names it
      for (const k of ['id', 'kind', 'subject', 'answer.option', 'via', 'latency_ms', 'after_ms'] as const)
        if (a[k] !== undefined) attributes[`aep.attention.${k}`] = a[k];
      return { name: `attention ${n.label}`, attributes, status };
    }
  }
}
