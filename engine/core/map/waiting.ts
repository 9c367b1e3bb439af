// A descriptor's waiting signs, evaluated beside the mapping (docs/watch.md):
// after a firing is mapped and its events logged, the first `waiting` rule of
// its hook whose `when` holds on the raw payload makes one x.hookmap.watch.waiting
// event in the firing's session and run (data: sign, reason, hook; all
// structural, so capture metadata). The hook's own emit is untouched (the
// pinned events stay as they are); the watch (engine/person/watch) reads the sign
// off the stream. A `when` that fails is the caller's to say; it never stops
// the firing or the next one.
import { evaluate } from '../expr/compile.ts';
import { buildEnvelope, type AepEvent } from './envelope.ts';
import type { Mapper, MapResult } from './mapper.ts';

export const WAITING_TYPE = 'x.hookmap.watch.waiting';

export async function waitingEvent(m: Mapper, r: MapResult, payload: unknown, surface?: Record<string, unknown>): Promise<AepEvent | undefined> {
  const d = m.descriptor;
  if (!d.waiting.length || r.session === undefined || r.deferredTo !== undefined || r.endsSession) return undefined;
  for (const w of d.waiting) {
    if (w.hook !== r.hook) continue;
    if (!(await evaluate(w.when, payload, { hook: r.hook, agent: d.vendor, config: m.effectiveConfig, surface }))) continue;
    const pos = m.state.seq.next(r.session);
    return buildEnvelope({
      type: WAITING_TYPE,
      host: m.host,
      agent: d.agent,
      channel: d.channel,
      session: r.session,
      run: m.openRun(r.session),
      seq: pos.seq,
      epoch: pos.epoch,
      capture: 'metadata',
      data: { sign: w.sign, reason: w.reason, hook: r.hook },
    });
  }
  return undefined;
}
