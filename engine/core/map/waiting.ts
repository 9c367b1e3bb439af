// A descriptor's waiting signs, evaluated beside the mapping (docs/watch.md):
// after a firing is mapped and its events logged, the first `waiting` rule of
// its hook whose `when` holds on the raw payload makes one x.hookmap.watch.waiting
// event in the firing's session and run (data: sign, reason, hook; all
// structural, so capture metadata); a sign with `unless` is published by the
// daemon only once the hook it expects next has not come in time (its
// data.expected names them). The hook's own emit is untouched (the pinned
// events stay as they are); the watch (engine/person/watch) reads the sign
// off the stream. A `when` that fails is the caller's to say; it never stops
// the firing or the next one.
import { evaluate } from '../expr/compile.ts';
import { buildEnvelope, type AepEvent } from './envelope.ts';
import type { Mapper, MapResult } from './mapper.ts';
import type { WaitingSign } from '../descriptor/waiting.ts';

export const WAITING_TYPE = 'x.hookmap.watch.waiting';

/** The first waiting sign this firing carries (its hook's, whose `when` holds on the raw payload), if any. */
export async function waitingSignOf(m: Mapper, r: MapResult, payload: unknown, surface?: Record<string, unknown>): Promise<WaitingSign | undefined> {
  const d = m.descriptor;
  if (!d.waiting.length || r.session === undefined || r.deferredTo !== undefined || r.endsSession) return undefined;
  for (const w of d.waiting) {
    if (w.hook !== r.hook) continue;
    if (await evaluate(w.when, payload, { hook: r.hook, agent: d.vendor, config: m.effectiveConfig, surface })) return w;
  }
  return undefined;
}

/** The x.hookmap.watch.waiting event of a sign in `session`, at the session's position now (its open run). */
export function waitingEventOf(m: Mapper, session: string, w: WaitingSign): AepEvent {
  const data = { sign: w.sign, reason: w.reason, hook: w.hook, ...(w.unless ? { expected: w.unless.hooks } : {}) };
  return signEvent(m, WAITING_TYPE, session, m.openRun(session), data);
}

/** An event hookmap adds beside the mapping (a waiting or a limit sign) in the agent's session, next in its order; all metadata. */
export function signEvent(m: Mapper, type: string, session: string, run: string | undefined, data: Record<string, unknown>): AepEvent {
  const d = m.descriptor;
  const pos = m.state.seq.next(session);
  return buildEnvelope({ type, host: m.host, agent: d.agent, channel: d.channel, session, run, seq: pos.seq, epoch: pos.epoch, capture: 'metadata', data });
}
