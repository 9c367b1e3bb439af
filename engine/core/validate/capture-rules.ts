// Capture honesty (AEP-0001 §8.2(a), AEP-0002 §5.1): every payload field's
// `x-aep-capture` annotation names the minimum level at which it may be
// present, so a field above the Event's declared `capture` is content the
// emitter promised not to carry. Unannotated fields default to `metadata`
// (§5.1 rule 4). The type-dependent gating of form `values` needs the request
// and lives in form-rules.ts.
import { captureRank, CAPTURE_ORDER, type CaptureLevel } from '../aep/schemas.ts';
import { annotationsFor, type FieldNote } from '../capture/annotations.ts';
import type { Finding } from './envelope-rules.ts';

/** The Event's declared capture level (default metadata), or undefined when it is not a valid level. */
export function declaredCapture(ev: Record<string, unknown>): CaptureLevel | undefined {
  const c = ev.capture ?? 'metadata';
  return CAPTURE_ORDER.includes(c as CaptureLevel) ? (c as CaptureLevel) : undefined;
}

function walk(value: unknown, note: FieldNote | undefined, path: string, limit: number, out: string[]): void {
  const level = note?.level ?? 'metadata';
  if (captureRank(level) > limit) {
    out.push(`${path || '/'} (${level})`);
    return;
  }
  if (!note) return;
  if (Array.isArray(value)) {
    if (note.items) value.forEach((v, i) => walk(v, note.items, `${path}/${i}`, limit, out));
  } else if (value && typeof value === 'object' && note.props) {
    for (const [k, v] of Object.entries(value)) walk(v, note.props.get(k), `${path}/${k}`, limit, out);
  }
}

export function captureFindings(ev: Record<string, unknown>): Finding[] {
  const level = declaredCapture(ev);
  const data = ev.data;
  if (!level || typeof ev.type !== 'string' || !data || typeof data !== 'object' || Array.isArray(data)) return [];
  const limit = captureRank(level);
  const notes = annotationsFor(ev.type);
  const over: string[] = [];
  if (notes) {
    for (const [k, v] of Object.entries(data)) walk(v, notes.props?.get(k), `/${k}`, limit, over);
  } else if (level === 'none' && Object.keys(data).length) {
    // no schema (x.* types): only `none` is decidable, it means no payload content at all
    over.push(...Object.keys(data).map((k) => `/${k}`));
  }
  if (!over.length) return [];
  const shown = over.length > 5 ? [...over.slice(0, 5), `… ${over.length - 5} more`] : over;
  return [{ rule: 'capture/above-level', message: `capture ${level} but data carries ${shown.join(', ')}` }];
}
