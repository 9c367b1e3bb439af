// A descriptor's limit signs, evaluated beside the mapping (docs/usage.md,
// "Rate limits"): after a firing is mapped and its events logged, the first
// `limits` rule of its hook whose `when` holds on the raw payload makes one
// x.hookmap.limit.reached event in the firing's session (data: kind, hook,
// resets_at when the payload says when the limit resets, agent_retries when
// the agent retries by itself; all structural, so capture metadata). A reset
// that cannot be read is left out (the session is paused with no reset
// time); a `when` that fails is the caller's to say.
import { evaluate } from '../expr/compile.ts';
import { LIMIT_REACHED } from '../kernel/limits.ts';
import type { AepEvent } from './envelope.ts';
import { signEvent } from './waiting.ts';
import type { Mapper, MapResult } from './mapper.ts';
import type { LimitRule } from '../descriptor/waiting.ts';

/** A reset further out than this is not believed (a week). */
const MAX_AHEAD_MS = 7 * 24 * 3600_000;

/** The limit event of a firing that says the agent stopped on a limit, if it does. */
export async function limitEventOf(
  m: Mapper,
  r: MapResult,
  payload: unknown,
  surface?: Record<string, unknown>,
  now = Date.now(),
): Promise<AepEvent | undefined> {
  const d = m.descriptor;
  if (!d.limits.length || r.session === undefined || r.deferredTo !== undefined) return undefined;
  const ctx = { hook: r.hook, agent: d.vendor, config: m.effectiveConfig, surface };
  for (const l of d.limits) {
    if (l.hook !== r.hook) continue;
    const data = await limitData(l, payload, ctx, r.hook, now);
    if (!data) continue;
    const run = [...r.events].reverse().find((e) => e.run !== undefined)?.run ?? m.openRun(r.session); // the run the firing closed
    return signEvent(m, LIMIT_REACHED, r.session, run, data);
  }
  return undefined;
}

/**
 * What a limit rule reads of `input` (a payload, a transcript line) when its `when` holds: the limit event's data (kind,
 * hook, resets_at when it says and it is believed, agent_retries); undefined when it does not hold. A `when` that fails throws.
 */
export async function limitData(l: LimitRule, input: unknown, ctx: Record<string, unknown>, hook: string, now = Date.now()) {
  if (!(await evaluate(l.when, input, ctx))) return undefined;
  const at = l.resetsAt ? instant(await evaluate(l.resetsAt, input, ctx)) : undefined;
  const inS = at === undefined && l.resetsInS ? Number(await evaluate(l.resetsInS, input, ctx)) : NaN;
  const resets = at ?? (Number.isFinite(inS) && inS >= 0 ? now + inS * 1000 : undefined);
  const believed = resets !== undefined && resets - now <= MAX_AHEAD_MS ? new Date(resets).toISOString() : undefined;
  return { kind: l.kind, hook, ...(believed ? { resets_at: believed } : {}), ...(l.agentRetries ? { agent_retries: true } : {}) };
}

/** Epoch seconds (or milliseconds), or an ISO time, as milliseconds; undefined when it is neither. */
function instant(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v < 1e12 ? v * 1000 : v;
  if (typeof v === 'string' && /^\d{9,13}$/.test(v)) return instant(Number(v));
  if (typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}
