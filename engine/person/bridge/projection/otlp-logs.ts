// AEP → OTLP LogRecord (AEP-0005 §3): one OTel Event per AEP event
// (LogRecord + `event_name`), built as the OpenTelemetry SDK's
// `ReadableLogRecord`, so the OpenTelemetry packages' own serializers
// (`@opentelemetry/otlp-transformer`: JSON and protobuf) write the wire.
// §3.2 field mapping, §3.3 capture ceiling before export (`none`: envelope
// attributes only, no body), §3.4 severity table.
import type { CaptureLevel } from '../../../core/aep/schemas.ts';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { TraceFlags } from '@opentelemetry/api';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { applyCeiling, extensionAttributes, parseTraceparent, timeToHr, TYPE_ROOT, type AepEvent } from './common.ts';

/** §3.4 */
export const SEVERITY: Record<string, { text: string; number: SeverityNumber }> = {
  debug: { text: 'DEBUG', number: SeverityNumber.DEBUG },
  info: { text: 'INFO', number: SeverityNumber.INFO },
  notice: { text: 'INFO2', number: SeverityNumber.INFO2 },
  warning: { text: 'WARN', number: SeverityNumber.WARN },
  error: { text: 'ERROR', number: SeverityNumber.ERROR },
  critical: { text: 'FATAL', number: SeverityNumber.FATAL },
};

/** §3.4 inverse: OTLP's 24 levels bucketed back to the six AEP levels. */
export function severityFromNumber(n: number): string {
  if (n <= 8) return 'debug';
  if (n === 9) return 'info';
  if (n <= 12) return 'notice';
  if (n <= 16) return 'warning';
  if (n <= 20) return 'error';
  return 'critical';
}

/** §3.2: envelope attribute → LogRecord attribute. */
const ENVELOPE_ATTRIBUTES: [string, string][] = [
  ['agent', 'aep.agent_id'],
  ['id', 'aep.event_id'],
  ['capture', 'aep.capture'],
  ['source', 'aep.source'],
  ['session', 'aep.session_id'],
  ['run', 'aep.run_id'],
  ['step', 'aep.step'],
  ['seq', 'aep.sequence'],
  ['epoch', 'aep.epoch'],
  ['cause', 'aep.causation_id'],
  ['subject', 'aep.subject'],
];

export const SCOPE = { name: 'hookmap-bridge', version: '0.1.0' };

export interface OtlpLogOptions {
  ceiling?: CaptureLevel;
  /** `service.name` for every record (a shared relay's override, §3.2); default: the event's `agent`. */
  serviceName?: string;
}

// The serializer groups records by resource object identity: one object per service name.
const resources = new Map<string, Resource>();
export function resourceFor(serviceName: string): Resource {
  let r = resources.get(serviceName);
  if (!r) {
    if (resources.size > 10_000) resources.clear();
    r = resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName });
    resources.set(serviceName, r);
  }
  return r;
}

/** The LogRecord projection of one event. */
export function toLogRecord(input: AepEvent, opts: OtlpLogOptions = {}): ReadableLogRecord {
  const ev = applyCeiling(input, opts.ceiling ?? 'metadata'); // §3.3
  const hr = timeToHr(ev.time);
  const sev = SEVERITY[ev.severity ?? 'info'] ?? SEVERITY.info;
  const attributes: Record<string, any> = {};
  for (const [attr, name] of ENVELOPE_ATTRIBUTES) if (ev[attr] !== undefined) attributes[name] = ev[attr];
  // AEP extension attributes (AEP-0001 §5.4) have no row in §3.2; they ride a namespace no core name can take.
  for (const [k, v] of extensionAttributes(ev)) attributes[`aep.extension.${k}`] = v;
  let body: Record<string, unknown> | undefined;
  if (ev.capture !== 'none' && ev.data) {
    for (const [k, v] of Object.entries(ev.data)) {
      if (k.startsWith('gen_ai.'))
        attributes[k] = v; // hoisted verbatim (§3.2)
      else (body ??= {})[k] = v; // the rest stays the body, wholesale
    }
  }
  const tp = parseTraceparent(ev.traceparent);
  return {
    hrTime: hr,
    hrTimeObserved: hr,
    spanContext: tp ? { traceId: tp.traceId, spanId: tp.spanId, traceFlags: tp.flags as TraceFlags } : undefined,
    severityText: sev.text,
    severityNumber: sev.number,
    body: body as any,
    eventName: TYPE_ROOT + ev.type,
    resource: resourceFor(opts.serviceName ?? ev.agent),
    instrumentationScope: SCOPE,
    attributes,
    droppedAttributesCount: 0,
  };
}
