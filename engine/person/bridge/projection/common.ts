// Shared by the AEP-0005 projections: the capture ceiling every bridge
// enforces before anything leaves (AEP-0005 §3.3, §4.6, §6: the bridge is
// the egress boundary; default `metadata`), RFC 3339 time to epoch nanos /
// millis without losing sub-millisecond digits, and the envelope's core
// attribute names (AEP-0001 §5) as opposed to its extension attributes (§5.4).
import { CAPTURE_ORDER, CORE_ATTRIBUTES, type CaptureLevel } from '../../../core/aep/schemas.ts';
import { downLevelEvent } from '../../../core/capture/gate.ts';
import type { AepEvent } from '../../../runtime/relay/store.ts';

export type { AepEvent };

export const DEFAULT_CEILING: CaptureLevel = 'metadata';

/** The frozen reverse-DNS root every exported identity carries (AEP-0005 B3, §3.2). */
export const TYPE_ROOT = 'dev.aep.';

/** AEP-0001 §5.4: extension attribute names. */
export const EXTENSION_NAME = /^[a-z0-9]{1,20}$/;

export function isCaptureLevel(v: unknown): v is CaptureLevel {
  return typeof v === 'string' && (CAPTURE_ORDER as string[]).includes(v);
}

/**
 * Down-level an event to the bridge's ceiling (AEP-0001 §8.2, per field from
 * the schemas' `x-aep-capture` annotations); never up. A payload that keeps
 * nothing is removed rather than sent as `{}`. Events at or below the ceiling
 * pass untouched (the same object), so the CE round trip stays exact.
 */
export function applyCeiling(ev: AepEvent, ceiling: CaptureLevel): AepEvent {
  const out = downLevelEvent(ev, ceiling);
  if (out === ev) return ev;
  if (out.capture === 'metadata') structuralValuesOnly(out.data);
  if (out.data && Object.keys(out.data).length === 0) delete out.data;
  return out;
}

/**
 * AEP-0006 form answers at `metadata`, at a hop: without the form's field
 * specs a string may be free text, so only numbers and booleans survive
 * (the conservative direction, AEP-0001 §8.2(b)). The relay's down-level
 * does this too once the form rules land there; at the egress boundary it
 * is checked again.
 */
function structuralValuesOnly(data: Record<string, unknown> | undefined): void {
  const answer = data?.answer as { values?: unknown } | undefined;
  if (!answer || typeof answer.values !== 'object' || answer.values === null || Array.isArray(answer.values)) return;
  const kept = Object.fromEntries(Object.entries(answer.values).filter(([, v]) => typeof v === 'number' || typeof v === 'boolean'));
  data!.answer = { ...answer, values: kept };
}

export function extensionAttributes(ev: AepEvent): [string, unknown][] {
  return Object.entries(ev).filter(([k, v]) => !CORE_ATTRIBUTES.has(k) && v !== undefined);
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** RFC 3339 → [epoch seconds, nanoseconds], keeping every fractional digit up to 9. */
export function timeToHr(time: string): [number, number] {
  const m = RFC3339.exec(time);
  if (!m) {
    const ms = Date.parse(time);
    if (Number.isNaN(ms)) throw new Error(`time '${time}' is not RFC 3339`);
    return [Math.floor(ms / 1000), (ms % 1000) * 1e6];
  }
  const whole = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(whole)) throw new Error(`time '${time}' is not RFC 3339`);
  const frac = (m[2] ?? '').slice(0, 9).padEnd(9, '0');
  return [Math.floor(whole / 1000), Number(frac)];
}

export function timeToNanos(time: string): bigint {
  const [s, n] = timeToHr(time);
  return BigInt(s) * 1_000_000_000n + BigInt(n);
}

export function timeToMillis(time: string): number {
  const [s, n] = timeToHr(time);
  return s * 1000 + Math.floor(n / 1e6);
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** W3C Trace Context `traceparent` → its fields (AEP-0005 B5, §3.2), or undefined. */
export function parseTraceparent(tp: unknown): { traceId: string; spanId: string; flags: number } | undefined {
  if (typeof tp !== 'string') return undefined;
  const m = TRACEPARENT.exec(tp);
  if (!m || /^0+$/.test(m[2]) || /^0+$/.test(m[3])) return undefined;
  return { traceId: m[2], spanId: m[3], flags: parseInt(m[4], 16) };
}
