// AEP → OCSF 1.8.0 (AEP-0005 §4): the runtime-free projection of the three
// security-relevant families (sessions → Authentication 3002, tool activity
// → Process Activity 1007, attention → Detection Finding 2004). Every other
// event projects to nothing (§4.1, a scope decision). Records are built from
// the envelope plus the capture-surviving payload only (§4.3, §4.6), claim a
// disposition only where the wire asserts the outcome (§4.5), and carry the
// whole envelope in `unmapped.aep` (the fidelity carrier).
import type { CaptureLevel } from '../../../core/aep/schemas.ts';
import { applyCeiling, timeToMillis, type AepEvent } from './common.ts';
import { TYPE } from '../../../core/kernel/lifecycle.ts';

export const OCSF_VERSION = '1.8.0';

interface ClassRow {
  class_uid: number;
  category_uid: number;
  activity_id: number;
  status_id?: number;
  disposition_id?: number;
}

/** §4.2 class mapping (attention.resolved's disposition is decided by §4.5 below). */
export const OCSF_CLASS: Record<string, ClassRow> = {
  [TYPE.sessionStarted]: { class_uid: 3002, category_uid: 3, activity_id: 1, status_id: 1 },
  [TYPE.sessionEnded]: { class_uid: 3002, category_uid: 3, activity_id: 2, status_id: 1 },
  [TYPE.toolRequested]: { class_uid: 1007, category_uid: 1, activity_id: 1 },
  [TYPE.toolCompleted]: { class_uid: 1007, category_uid: 1, activity_id: 2, status_id: 1 },
  [TYPE.toolFailed]: { class_uid: 1007, category_uid: 1, activity_id: 2, status_id: 2 },
  [TYPE.toolDenied]: { class_uid: 1007, category_uid: 1, activity_id: 1, status_id: 2, disposition_id: 2 },
  [TYPE.attentionRequested]: { class_uid: 2004, category_uid: 2, activity_id: 1, status_id: 1 },
  [TYPE.attentionAnswered]: { class_uid: 2004, category_uid: 2, activity_id: 2, status_id: 2 },
  [TYPE.attentionResolved]: { class_uid: 2004, category_uid: 2, activity_id: 3, status_id: 4 },
  [TYPE.attentionTimeout]: { class_uid: 2004, category_uid: 2, activity_id: 3, disposition_id: 16 },
};

/** §4.4 */
export const OCSF_SEVERITY: Record<string, number> = { debug: 1, info: 1, notice: 2, warning: 3, error: 4, critical: 5 };

export type OcsfRecord = Record<string, unknown> & { class_uid: number; type_uid: number };

/** The OCSF record of one event, or null when the event is outside the projected families (§4.1). */
export function toOcsf(input: AepEvent, opts: { ceiling?: CaptureLevel } = {}): OcsfRecord | null {
  const row = OCSF_CLASS[input.type];
  if (!row) return null;
  const ev = applyCeiling(input, opts.ceiling ?? 'metadata'); // §4.6
  const data = ev.capture === 'none' ? undefined : ev.data;
  let disposition = row.disposition_id;
  // §4.5: a dismissed request is No Action; an answered one claims nothing
  if (ev.type === TYPE.attentionResolved && data?.resolution === 'dismissed') disposition = 16;
  const metadata: Record<string, unknown> = { version: OCSF_VERSION, uid: ev.id, original_time: ev.time, product: { name: ev.agent } };
  if (ev.cause !== undefined) metadata.correlation_uid = ev.cause;
  if (disposition !== undefined) metadata.profiles = ['security_control']; // the disposition rides that profile (§4.3)
  const { data: _omit, ...envelope } = ev;
  const unmapped: Record<string, unknown> = { aep: envelope };
  if (data && Object.keys(data).length) unmapped.data = data;
  const rec: Record<string, unknown> = {
    class_uid: row.class_uid,
    category_uid: row.category_uid,
    activity_id: row.activity_id,
    type_uid: row.class_uid * 100 + row.activity_id,
    time: timeToMillis(ev.time),
    severity_id: OCSF_SEVERITY[ev.severity ?? 'info'] ?? 1,
    message: ev.type,
    metadata,
    unmapped,
  };
  if (row.status_id !== undefined) rec.status_id = row.status_id;
  if (disposition !== undefined) rec.disposition_id = disposition;
  if (row.class_uid === 3002) {
    rec.user = { name: ev.agent };
    rec.session = { uid: ev.session };
  } else if (row.class_uid === 1007) {
    rec.actor = { app_name: ev.agent };
    rec.device = { type_id: 0, ...deviceOf(ev.source) };
    const tool = data?.tool as { name?: unknown; call_id?: unknown } | undefined;
    const process: Record<string, unknown> = { name: ev.subject ?? (typeof tool?.name === 'string' ? tool.name : ev.type) };
    // uid only from the surviving payload: never invented to satisfy OCSF's pid/uid/cpid constraint (§4.3)
    if (typeof tool?.call_id === 'string') process.uid = tool.call_id;
    rec.process = process;
  } else {
    // one finding identity per attention lifecycle: the request's id (§4.2)
    const uid = ev.type === TYPE.attentionRequested ? ev.id : (ev.subject ?? ev.cause ?? ev.id);
    rec.finding_info = { uid, title: ev.type };
  }
  return rec as OcsfRecord;
}

/** `hostname` := the `source` URI's authority when it has one, else `name` := source verbatim (§4.3). */
function deviceOf(source: string): { hostname: string } | { name: string } {
  try {
    const host = new URL(source).host;
    if (host) return { hostname: host };
  } catch {}
  return { name: source };
}
