// The three bridge targets (AEP-0005): each wraps its one projection
// function (projection/*.ts) with how a batch goes out: OTLP/HTTP requests
// (protobuf or JSON, written by the OpenTelemetry serializers) for logs and
// traces, CloudEvents over HTTP (the cloudevents SDK's binary or structured
// mode, or a JSON batch), OCSF records as NDJSON; or JSONL on stdout when
// no sink is given. The same target runs over the relay and over a file.
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { JsonLogsSerializer, JsonTraceSerializer, ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { HttpRequestSpec } from './delivery.ts';
import { toCloudEvent, toHttp, type CeMode, type CloudEventJson } from './projection/cloudevents.ts';
import type { AepEvent } from './projection/common.ts';
import { toOcsf, type OcsfRecord } from './projection/ocsf.ts';
import { toLogRecord } from './projection/otlp-logs.ts';
import { TraceProjector } from './projection/otlp-traces.ts';
import type { SessionState } from './structure.ts';
import type { BridgeConfig } from './config.ts';

export type TargetKind = 'otlp' | 'cloudevents' | 'ocsf';

export interface BridgeTarget<Item = unknown> {
  kind: TargetKind;
  /** Where batches go; undefined = stdout. */
  endpoint?: string;
  project(ev: AepEvent, now: number): Item[];
  /** Live mode, periodically: items that time makes (idle spans closed). */
  tick(now: number): Item[];
  /** End of a finite input: everything still held. */
  end(): Item[];
  requests(items: Item[]): HttpRequestSpec[];
  lines(items: Item[]): string[];
  snapshot(): unknown;
  restore(state: unknown): void;
}

export interface CommonTargetOptions {
  endpoint?: string;
  ceiling: CaptureLevel;
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';
export type OtlpSignal = 'logs' | 'traces';

export interface OtlpTargetOptions extends CommonTargetOptions {
  protocol?: OtlpProtocol;
  signals?: OtlpSignal[];
  serviceName?: string;
  /** A session silent this long has its open spans closed (`aep.closed_by: idle`). */
  idleCloseMs?: number;
}

type OtlpItem = { log: ReadableLogRecord } | { span: ReadableSpan };

/** `http://collector:4318` → `http://collector:4318/v1/logs` (OTLP/HTTP's per-signal paths). */
export function signalUrl(endpoint: string, signal: OtlpSignal): string {
  const base = endpoint.replace(/\/+$/, '');
  if (/\/v1\/(logs|traces)$/.test(base)) return base.replace(/\/v1\/(logs|traces)$/, `/v1/${signal}`);
  return `${base}/v1/${signal}`;
}

export function otlpTarget(o: OtlpTargetOptions): BridgeTarget<OtlpItem> {
  const signals = new Set(o.signals ?? ['logs', 'traces']);
  const traces = new TraceProjector({ ceiling: o.ceiling, serviceName: o.serviceName });
  const json = o.protocol === 'http/json';
  const spans = (s: ReadableSpan[]): OtlpItem[] => s.map((span) => ({ span }));
  return {
    kind: 'otlp',
    endpoint: o.endpoint,
    project(ev, now) {
      const out: OtlpItem[] = [];
      if (signals.has('logs')) out.push({ log: toLogRecord(ev, { ceiling: o.ceiling, serviceName: o.serviceName }) });
      if (signals.has('traces')) out.push(...spans(traces.add(ev, now)));
      return out;
    },
    tick: (now) => (signals.has('traces') ? spans(traces.sweep(o.idleCloseMs ?? 30 * 60_000, now)) : []),
    end: () => (signals.has('traces') ? spans(traces.closeAll()) : []),
    requests(items) {
      const logs = items.flatMap((i) => ('log' in i ? [i.log] : []));
      const sp = items.flatMap((i) => ('span' in i ? [i.span] : []));
      const reqs: HttpRequestSpec[] = [];
      const headers = { 'content-type': json ? 'application/json' : 'application/x-protobuf' };
      if (logs.length)
        reqs.push({
          url: signalUrl(o.endpoint!, 'logs'),
          headers,
          body: (json ? JsonLogsSerializer : ProtobufLogsSerializer).serializeRequest(logs)!,
          items: logs.length,
        });
      if (sp.length)
        reqs.push({
          url: signalUrl(o.endpoint!, 'traces'),
          headers,
          body: (json ? JsonTraceSerializer : ProtobufTraceSerializer).serializeRequest(sp)!,
          items: sp.length,
        });
      return reqs;
    },
    lines(items) {
      // OTLP/JSON export requests, one per signal per batch (the shape a collector's file exporter writes)
      const logs = items.flatMap((i) => ('log' in i ? [i.log] : []));
      const sp = items.flatMap((i) => ('span' in i ? [i.span] : []));
      const dec = new TextDecoder();
      const out: string[] = [];
      if (logs.length) out.push(dec.decode(JsonLogsSerializer.serializeRequest(logs)));
      if (sp.length) out.push(dec.decode(JsonTraceSerializer.serializeRequest(sp)));
      return out;
    },
    snapshot: () => traces.tracker.snapshot(),
    restore: (s) => {
      if (Array.isArray(s)) traces.tracker.restore(s as SessionState[]);
    },
  };
}

export interface CeTargetOptions extends CommonTargetOptions {
  mode?: CeMode | 'batch';
}

export function cloudEventsTarget(o: CeTargetOptions): BridgeTarget<CloudEventJson> {
  const mode = o.mode ?? 'structured';
  return {
    kind: 'cloudevents',
    endpoint: o.endpoint,
    project: (ev) => [toCloudEvent(ev, o.ceiling)],
    tick: () => [],
    end: () => [],
    requests(items) {
      if (mode === 'batch') {
        return [{ url: o.endpoint!, headers: { 'content-type': 'application/cloudevents-batch+json' }, body: JSON.stringify(items), items: items.length }];
      }
      return items.map((ce) => ({ url: o.endpoint!, ...toHttp(ce, mode), items: 1 }));
    },
    lines: (items) => items.map((ce) => JSON.stringify(ce)),
    snapshot: () => null,
    restore: () => {},
  };
}

export function ocsfTarget(o: CommonTargetOptions): BridgeTarget<OcsfRecord> {
  return {
    kind: 'ocsf',
    endpoint: o.endpoint,
    project: (ev) => {
      const r = toOcsf(ev, { ceiling: o.ceiling });
      return r ? [r] : [];
    },
    tick: () => [],
    end: () => [],
    requests: (items) => [
      {
        url: o.endpoint!,
        headers: { 'content-type': 'application/x-ndjson' },
        body: items.map((r) => JSON.stringify(r)).join('\n') + '\n',
        items: items.length,
      },
    ],
    lines: (items) => items.map((r) => JSON.stringify(r)),
    snapshot: () => null,
    restore: () => {},
  };
}

export function makeTarget(cfg: BridgeConfig): BridgeTarget {
  if (cfg.kind === 'otlp') {
    return otlpTarget({
      endpoint: cfg.endpoint,
      ceiling: cfg.capture,
      protocol: cfg.protocol,
      signals: cfg.signals,
      serviceName: cfg.serviceName,
      idleCloseMs: cfg.idleCloseMs,
    }) as BridgeTarget;
  }
  if (cfg.kind === 'cloudevents') return cloudEventsTarget({ endpoint: cfg.endpoint, ceiling: cfg.capture, mode: cfg.mode }) as BridgeTarget;
  return ocsfTarget({ endpoint: cfg.endpoint, ceiling: cfg.capture }) as BridgeTarget;
}
