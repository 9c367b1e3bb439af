// Parsing of subscription requests, shared by SSE (query) and WS (subscribe
// frame), so both bindings refuse the same things with the same closed set
// of codes (AEP-0003 §6.5): invalid-filter, limit-exceeded.
import type { Position } from '../../core/kernel/position.ts';
import { CAPTURE_ORDER, type CaptureLevel } from '../../core/aep/schemas.ts';
import { compileFilter, FilterError } from './attr-match.ts';
import type { SubscriptionSpec } from './subscription.ts';

export class RequestError extends Error {
  constructor(
    readonly code: 'invalid-filter' | 'limit-exceeded',
    detail: string,
  ) {
    super(detail);
  }
}

type Pos = Position & { session: string };

const isCount = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function parseFrom(v: unknown, maxFrom: number): Pos[] | 'all' | undefined {
  if (v === undefined || v === null) return undefined;
  if (v === 'all') return 'all';
  if (!Array.isArray(v)) throw new RequestError('invalid-filter', "from must be an array of {session, epoch, seq} or the string 'all'");
  // Checked before any entry is looked at: each entry costs a buffer scan.
  if (v.length > maxFrom) throw new RequestError('limit-exceeded', `from has ${v.length} positions; maxFrom is ${maxFrom}`);
  return v.map((p, i) => {
    if (!p || typeof p !== 'object' || typeof p.session !== 'string' || !p.session || !isCount(p.seq) || !(p.epoch === undefined || isCount(p.epoch))) {
      throw new RequestError('invalid-filter', `from[${i}] must be {session: string, epoch: integer >= 0, seq: integer >= 0}`);
    }
    return { session: p.session, epoch: p.epoch ?? 0, seq: p.seq };
  });
}

export function parseCapture(v: unknown): CaptureLevel | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !CAPTURE_ORDER.includes(v as CaptureLevel))
    throw new RequestError('invalid-filter', `capture must be one of ${CAPTURE_ORDER.join(', ')}`);
  return v as CaptureLevel;
}

/** `Last-Event-ID: {session}:{epoch}:{seq}`; the session may itself contain colons. */
export function parseLastEventId(v: string | undefined): Pos | undefined {
  if (!v) return undefined;
  const m = /^(.+):(\d+):(\d+)$/.exec(v);
  if (!m) throw new RequestError('invalid-filter', 'Last-Event-ID must be {session}:{epoch}:{seq}');
  return { session: m[1], epoch: Number(m[2]), seq: Number(m[3]) };
}

export function buildSpec(filter: unknown, capture: unknown, from: unknown, maxFrom: number): SubscriptionSpec {
  try {
    return { filter: compileFilter(filter), capture: parseCapture(capture), from: parseFrom(from, maxFrom) };
  } catch (e) {
    if (e instanceof FilterError) throw new RequestError('invalid-filter', e.message);
    throw e;
  }
}
