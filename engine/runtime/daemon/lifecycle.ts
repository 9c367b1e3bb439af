// Events the daemon authors itself (the control loop's acks and the
// attention lifecycle, AEP-0002 §7, AEP-0004 §3), built exactly like mapped
// ones: a position from the session's allocator, data through the capture
// gate at the descriptor's ceiling for that type, schema-checked.
import { formatAjvErrors, REGISTRY_BY_TYPE, TYPE_PATTERN, validateEnvelope, validatePayload, type Severity } from '../../core/aep/schemas.ts';
import { aepDigest } from '../../core/capture/canonical.ts';
import { gateData, gateFormValues, type FormFieldSpec } from '../../core/capture/gate.ts';
import type { Redactor } from '../../core/capture/redact.ts';
import { buildEnvelope, reboundData, type AepEvent } from '../../core/map/envelope.ts';
import { boundId } from '../../core/map/bounds.ts';
import type { DroppedLine } from './relay-link.ts';
import type { Mapper } from '../../core/map/mapper.ts';
import type { Applied } from './answer.ts';
import { TYPE } from '../../core/kernel/lifecycle.ts';

export interface EventParts {
  type: string;
  session: string;
  subject?: string;
  cause?: string;
  run?: string;
  severity?: Severity;
  data: Record<string, unknown>;
  /** Descriptor gates for fields the schema does not annotate. */
  gates?: Record<string, 'none' | 'metadata' | 'redacted' | 'full'>;
}

/** The type an event that failed its final check becomes (its position kept, its content not). */
/** The code a nack's detail starts with (`queue-full: ...`). */
const NACK_CODE = /^([a-z][a-z0-9]*(?:-[a-z0-9]+)*): /;

export const INVALID_EVENT_TYPE = 'x.hookmap.error.invalid_event';
/** The notice that an event was set aside instead of reaching the relay (relay-link.ts dead-letter file). */
export const DROPPED_EVENT_TYPE = 'x.hookmap.event.dropped';

/**
 * hookmap's own event types (x.hookmap.*, AEP-0002 §6 vendor types): each
 * data field and the capture level it is gated at. Every field is
 * hookmap's own structural metadata (codes, ids, sizes, digests), never
 * content from the agent.
 */
export const HOOKMAP_TYPES: Record<string, Record<string, 'metadata'>> = {
  [INVALID_EVENT_TYPE]: { code: 'metadata', type: 'metadata', digest: 'metadata', detail: 'metadata' },
  [DROPPED_EVENT_TYPE]: { code: 'metadata', id: 'metadata', type: 'metadata', bytes: 'metadata', reason: 'metadata', file: 'metadata', offset: 'metadata' },
};

/** Why `ev` may not be logged (envelope or payload schema), or undefined when it is valid. */
export function invalidity(ev: AepEvent): string | undefined {
  const env = validateEnvelope(ev);
  if (env.length) return formatAjvErrors(env);
  if (ev.data && REGISTRY_BY_TYPE.has(ev.type)) {
    const errs = validatePayload(ev.type, ev.data);
    if (errs.length) return `/data${formatAjvErrors(errs)}`;
  }
  return undefined;
}

export class LifecycleEvents {
  constructor(
    private readonly mapper: Mapper,
    private readonly host: string,
    readonly redactor: Redactor,
  ) {}

  make(p: EventParts): AepEvent {
    const d = this.mapper.descriptor;
    const ceiling = this.mapper.ceilingFor(p.type);
    const data = gateData(p.type, p.data, {
      ceiling,
      gates: { ...d.capture.gates, ...(p.gates ?? {}) },
      redactor: this.redactor,
      agent: d.agent,
      subject: p.subject,
    });
    if (data && REGISTRY_BY_TYPE.has(p.type)) {
      const errs = validatePayload(p.type, data);
      if (errs.length) throw new Error(`daemon built a ${p.type} payload its schema rejects: ${formatAjvErrors(errs)}`);
    }
    const pos = this.mapper.state.seq.next(p.session);
    const ev = buildEnvelope({
      type: p.type,
      subject: p.subject,
      host: this.host,
      agent: d.agent,
      channel: d.channel,
      session: p.session,
      run: p.run,
      seq: pos.seq,
      epoch: pos.epoch,
      cause: p.cause,
      severity: p.severity,
      capture: ceiling,
      data: data ?? (ceiling === 'none' ? undefined : {}),
    });
    this.mapper.state.noteEvent(ev as { type: string; id: string; session?: string; subject?: string; run?: string }, Date.now());
    return ev;
  }

  /**
   * The stand-in for an event that failed its last check before the log:
   * same session and (epoch, seq) (no gap, no reuse), the original's type and
   * digest (SHA-256 of its canonical JSON, AEP-0003 §9.3) for correlation,
   * the schema's complaint, and none of its content.
   */
  invalidEvent(orig: AepEvent, detail: string): AepEvent {
    const d = this.mapper.descriptor;
    const ceiling = this.mapper.ceilingFor(INVALID_EVENT_TYPE);
    const fields: Record<string, unknown> = { code: 'invalid-event', digest: aepDigest(orig), detail };
    if (typeof orig.type === 'string' && TYPE_PATTERN.test(orig.type)) fields.type = orig.type;
    const data = gateData(INVALID_EVENT_TYPE, fields, { ceiling, gates: HOOKMAP_TYPES[INVALID_EVENT_TYPE], redactor: this.redactor, agent: d.agent });
    const session = typeof orig.session === 'string' && orig.session ? orig.session : 'unknown';
    const sequenced = Number.isSafeInteger(orig.seq) && session === orig.session;
    const pos = sequenced ? { seq: orig.seq as number, epoch: (orig.epoch ?? 0) as number } : this.mapper.state.seq.next(session);
    return buildEnvelope({
      type: INVALID_EVENT_TYPE,
      host: this.host,
      agent: d.agent,
      channel: d.channel,
      session,
      seq: pos.seq,
      epoch: pos.epoch,
      severity: 'warning',
      capture: ceiling,
      data: data ?? (ceiling === 'none' ? undefined : {}),
    });
  }

  /** The notice for a logged event the relay link set aside (dead-letter file): its id, type and size, in its own session. */
  dropped(info: DroppedLine): AepEvent {
    const data: Record<string, unknown> = { code: 'event-dropped', bytes: info.bytes, reason: info.reason, file: info.file, offset: info.offset };
    if (info.id) data.id = boundId(info.id);
    if (info.type && TYPE_PATTERN.test(info.type)) data.type = info.type;
    return this.make({
      type: DROPPED_EVENT_TYPE,
      session: info.session ? boundId(info.session) : 'unknown',
      cause: info.id,
      severity: 'warning',
      data,
      gates: HOOKMAP_TYPES[DROPPED_EVENT_TYPE],
    });
  }

  /**
   * An ack. A `note` (`code: detail`) says why the accepted command cannot
   * take effect on its own yet (e.g. next-turn-off: the session is idle and
   * nothing wakes it); like a nack's, its code and detail are vendor fields
   * (AEP-0002 §5.4), metadata.
   */
  accepted(session: string, command: AepEvent, run?: string, note?: string, result?: Record<string, unknown>): AepEvent {
    const code = note ? NACK_CODE.exec(note)?.[1] : undefined;
    const ev = this.make({
      type: TYPE.controlAccepted,
      session,
      cause: command.id,
      run,
      data: note ? { ...(code ? { code } : {}), detail: note } : {},
      gates: note ? { ...(code ? { code: 'metadata' } : {}), detail: 'metadata' } : undefined,
    });
    // a control query's answer (door.ts): redacted text above the ceiling, handed only to control subscribers (relay/subscription.ts)
    return result ? { ...ev, capture: ev.capture === 'full' ? 'full' : 'redacted', data: { ...(ev.data as object), result } } : ev;
  }

  /**
   * A nack. A detail that starts with a code (`text-too-long: ...`) also
   * carries that code as `code` (a vendor field, AEP-0002 §5.4: metadata), so
   * a refusal stays coded on a stream whose ceiling drops the detail (the
   * schema gates `detail` at redacted; the steering design record: a
   * capture-gated detail).
   */
  rejected(session: string, command: AepEvent, reason: string, detail?: string, run?: string): AepEvent {
    const code = detail ? NACK_CODE.exec(detail)?.[1] : undefined;
    return this.make({
      type: TYPE.controlRejected,
      session,
      cause: command.id,
      run,
      data: { reason, ...(code ? { code } : {}), ...(detail ? { detail } : {}) },
      gates: code ? { code: 'metadata' } : undefined,
    });
  }

  /** attention.answered: the APPLIED answer (AEP-0008); text and free-text values gated like answer.text. */
  answered(request: AepEvent, cause: string, applied: Applied, via: 'control' | 'oob', by: string | undefined, fields: FormFieldSpec[] | undefined): AepEvent {
    const answer: Record<string, unknown> = {};
    if (applied.option !== undefined) answer.option = applied.option;
    if (applied.text !== undefined) answer.text = applied.text;
    const data: Record<string, unknown> = { answer, via };
    if (by) data.by = by;
    const ev = this.make({ type: TYPE.attentionAnswered, session: request.session!, subject: request.id, cause, run: request.run, data });
    if (applied.values !== undefined && ev.data) {
      // the schema can't say which values are free text; the field specs can (AEP-0006)
      const ceiling = this.mapper.ceilingFor(TYPE.attentionAnswered);
      const gated = fields ? gateFormValues(fields, applied.values, ceiling, this.redactor) : {};
      (ev.data.answer as Record<string, unknown>).values = gated;
      reboundData(ev); // the values join after the envelope's own bound
    }
    return ev;
  }

  resolved(request: AepEvent, cause: string, resolution: 'answered' | 'dismissed' | 'auto', latencyMs: number): AepEvent {
    return this.make({
      type: TYPE.attentionResolved,
      session: request.session!,
      subject: request.id,
      cause,
      run: request.run,
      data: { resolution, latency_ms: Math.max(0, Math.round(latencyMs)) },
    });
  }

  timeout(request: AepEvent, afterMs: number): AepEvent {
    return this.make({
      type: TYPE.attentionTimeout,
      session: request.session!,
      subject: request.id,
      cause: request.id,
      run: request.run,
      data: { after_ms: Math.max(0, Math.round(afterMs)) },
    });
  }
}
