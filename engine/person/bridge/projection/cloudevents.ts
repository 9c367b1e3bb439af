// AEP ⇄ CloudEvents 1.0 (AEP-0005 §1, §2): the forward mapping is five rules
// and one table (B1 constants, B2 pass-through, B3 type prefix, B4 prefixed
// extension attributes, B5 traceparent); the inverse undoes them exactly
// (§2 rule 1), keeps legal unknown extension names (§2 rule 2) and refuses
// foreign CE types (§2 rule 3). The output is the JSON-format (structured)
// object; `toHttp` hands it to the `cloudevents` SDK for the binary and
// structured HTTP modes, `fromHttp` takes either mode back in.
import type { CaptureLevel } from '../../../core/aep/schemas.ts';
import { formatAjvErrors, validateEnvelope } from '../../../core/aep/schemas.ts';
import { CloudEvent, HTTP } from 'cloudevents';
import { applyCeiling, extensionAttributes, EXTENSION_NAME, TYPE_ROOT, type AepEvent } from './common.ts';

/** B4/B5: AEP envelope attribute → CE attribute. */
export const CE_ATTRIBUTE: Record<string, string> = {
  aep: 'aepversion',
  agent: 'aepagentid',
  session: 'aepsessionid',
  run: 'aeprunid',
  step: 'aepstep',
  seq: 'aepsequence',
  epoch: 'aepepoch',
  cause: 'aepcausationid',
  severity: 'aepseverity',
  capture: 'aepcapture',
  traceparent: 'traceparent',
};
const AEP_ATTRIBUTE = Object.fromEntries(Object.entries(CE_ATTRIBUTE).map(([a, c]) => [c, a]));
/** CE integer attributes in the table: binary mode carries them as header strings. */
const INTEGER_CE = new Set(['aepsequence', 'aepepoch']);
/** B1 constants, dropped by the inverse. */
const CE_CONSTANTS = new Set(['specversion', 'datacontenttype']);

export type CloudEventJson = Record<string, unknown> & { specversion: '1.0'; id: string; source: string; type: string };

/** AEP → CE (AEP-0005 §1), after the capture ceiling (§6: a CE forwarder is a re-emitting hop, AEP-0001 §8.2). */
export function toCloudEvent(input: AepEvent, ceiling: CaptureLevel = 'metadata'): CloudEventJson {
  const ev = applyCeiling(input, ceiling);
  const ce: Record<string, unknown> = { specversion: '1.0' }; // B1
  ce.id = ev.id; // B2
  ce.source = ev.source;
  ce.type = TYPE_ROOT + ev.type; // B3
  if (ev.subject !== undefined) ce.subject = ev.subject;
  ce.time = ev.time;
  if (ev.data !== undefined) ce.datacontenttype = 'application/json'; // B1: only when data is present
  for (const [attr, ceName] of Object.entries(CE_ATTRIBUTE)) {
    // B4/B5; absent OPTIONAL attributes produce no CE attribute (defaults are not materialized)
    if (ev[attr] !== undefined) ce[ceName] = ev[attr];
  }
  for (const [k, v] of extensionAttributes(ev)) ce[k] = v; // B4: AEP extension attributes pass through verbatim
  if (ev.data !== undefined) ce.data = ev.data; // B2
  return ce as CloudEventJson;
}

export interface InverseResult {
  event?: AepEvent;
  /** Attributes dropped on the way in, each with why (§2 rule 2). */
  diagnostics: string[];
  /** Why the CE event cannot become an AEP event (foreign type §2 rule 3, or an invalid envelope). */
  error?: { code: 'foreign-type' | 'unsupported-data' | 'invalid-event'; detail: string };
}

/** CE → AEP (AEP-0005 §2). Takes the CE JSON-format object (or an SDK CloudEvent). */
export function fromCloudEvent(input: Record<string, unknown>): InverseResult {
  const ce = { ...input };
  const diagnostics: string[] = [];
  const type = ce.type;
  if (typeof type !== 'string' || !type.startsWith(TYPE_ROOT)) {
    return {
      diagnostics,
      error: {
        code: 'foreign-type',
        detail: `CE type '${String(type)}' is outside ${TYPE_ROOT}* (AEP-0005 §2 rule 3: lifting foreign CloudEvents is an adapter's job)`,
      },
    };
  }
  if (ce.data_base64 !== undefined) return { diagnostics, error: { code: 'unsupported-data', detail: 'data_base64: AEP data is a JSON object' } };
  const dct = ce.datacontenttype;
  if (dct !== undefined && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(String(dct))) {
    return { diagnostics, error: { code: 'unsupported-data', detail: `datacontenttype '${String(dct)}': AEP data is a JSON object` } };
  }
  const ev: Record<string, unknown> = {};
  ev.aep = ce.aepversion;
  ev.id = ce.id;
  ev.type = type.slice(TYPE_ROOT.length); // B3 reversed
  if (ce.subject !== undefined) ev.subject = ce.subject;
  ev.time = ce.time;
  ev.source = ce.source;
  for (const [ceName, attr] of Object.entries(AEP_ATTRIBUTE)) {
    if (attr === 'aep' || ce[ceName] === undefined || ce[ceName] === null) continue;
    let v = ce[ceName];
    // binary mode carries every attribute as a header string; the table knows which are integers
    if (INTEGER_CE.has(ceName) && typeof v === 'string' && /^\d+$/.test(v)) v = Number(v);
    ev[attr] = v;
  }
  const known = new Set(['id', 'source', 'type', 'subject', 'time', 'data', 'specversion', 'datacontenttype', ...Object.keys(AEP_ATTRIBUTE)]);
  for (const [k, v] of Object.entries(ce)) {
    if (known.has(k) || CE_CONSTANTS.has(k) || v === undefined || v === null) continue;
    if (!EXTENSION_NAME.test(k)) {
      diagnostics.push(`dropped attribute '${k}': not a legal AEP extension name (AEP-0001 §5.4 [a-z0-9]{1,20})`);
      continue;
    }
    if (!['string', 'boolean'].includes(typeof v) && !(typeof v === 'number' && Number.isSafeInteger(v))) {
      diagnostics.push(`dropped attribute '${k}': AEP extension values are strings, integers or booleans`);
      continue;
    }
    ev[k] = v; // §2 rule 2: aep*-prefixed (MUST) and other legal names (SHOULD) are preserved
  }
  if (ce.data !== undefined && ce.data !== null) {
    let data = ce.data;
    if (typeof data === 'string') {
      try {
        data = JSON.parse(data);
      } catch {
        return { diagnostics, error: { code: 'unsupported-data', detail: 'data is a string that is not JSON' } };
      }
    }
    ev.data = data;
  }
  for (const k of Object.keys(ev)) if (ev[k] === undefined) delete ev[k];
  const errs = validateEnvelope(ev);
  if (errs.length) return { diagnostics, error: { code: 'invalid-event', detail: formatAjvErrors(errs) } };
  return { event: ev as AepEvent, diagnostics };
}

export type CeMode = 'binary' | 'structured';

/** One CE as an HTTP request (the SDK's HTTP binding); header values are strings on the wire. */
export function toHttp(ce: CloudEventJson, mode: CeMode): { headers: Record<string, string>; body: string } {
  const event = new CloudEvent(ce as any, false);
  const msg = mode === 'binary' ? HTTP.binary(event) : HTTP.structured(event);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(msg.headers)) if (v !== undefined) headers[k] = String(v);
  let body = typeof msg.body === 'string' ? msg.body : msg.body === undefined ? '' : JSON.stringify(msg.body);
  // The SDK re-renders `time` at millisecond precision; B2 copies it verbatim.
  if (mode === 'binary') headers['ce-time'] = ce.time as string;
  else body = JSON.stringify({ ...JSON.parse(body), time: ce.time });
  return { headers, body };
}

/**
 * An HTTP request in binary or structured mode (through the SDK's HTTP
 * binding) or a JSON batch → CE JSON objects.
 */
export function fromHttp(headers: Record<string, string | string[] | undefined>, body: string): Record<string, unknown>[] {
  const lower: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
  const ct = String(lower['content-type'] ?? '');
  if (ct.includes('cloudevents-batch+json')) {
    const list = JSON.parse(body);
    if (!Array.isArray(list)) throw new Error('a CloudEvents batch is a JSON array');
    return list.map((o) => (o && typeof o === 'object' && !Array.isArray(o) ? o : { invalid: o }));
  }
  const got = HTTP.toEvent({ headers: lower, body });
  const event = (Array.isArray(got) ? got[0] : got) as CloudEvent;
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(event.toJSON())) if (v !== undefined) o[k] = v;
  // The SDK mints a time for an event without one and re-renders a given one
  // at millisecond precision: take the time as it was on the wire.
  const structured = ct.includes('cloudevents+json');
  let wireTime: unknown;
  if (structured) {
    try {
      wireTime = JSON.parse(body)?.time;
    } catch {}
  } else wireTime = lower['ce-time'];
  if (!structured && body.trim() === '') delete o.data; // binary mode, no body: the event had no data
  if (typeof wireTime === 'string') o.time = wireTime;
  else delete o.time;
  return [o];
}
