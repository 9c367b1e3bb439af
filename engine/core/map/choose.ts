// The reply stage: does the firing hold (its first hold whose `when` holds),
// or, when it does not, does a Decider (queued commands, operator policy:
// engine/runtime/daemon/instructions.ts) choose a verb its reply can carry? A held
// firing's reply is the answer, never a decision beside it (the steering
// design record). A decision may replace the firing's emits and author
// events of its own; its reply bytes are rendered by decide.ts. Then the
// session-end stage: AEP-0002 §7 rule 2 (a session never ends with a
// request open) and a resumed session's `resumed_from`.
import type { CompiledEmit, Verb } from '../descriptor/types.ts';
import type { Expr } from '../expr/compile.ts';
import { eligibleVerbs, renderDecision, RUN_TERMINALS, type Decision } from './decide.ts';
import type { DraftBuilder } from './drafts.ts';
import { newId } from './envelope.ts';
import { MapError } from './errors.ts';
import { setRunBindings, type Draft, type Firing, type MapContext, type MapOptions } from './firing.ts';
import { decidedShape, type Shape } from './reply-shape.ts';

export interface Choice {
  /** Which of the hook's holds applies (-1: none). */
  holdIndex: number;
  decision?: Decision;
  decidedReply?: { body: string } & Shape;
}

/** The first hold whose `when` holds, else -1. */
export async function chooseHold(m: MapContext, f: Firing): Promise<number> {
  for (const [i, hold] of (f.hook?.holds ?? []).entries()) {
    if (hold.when && !(await m.eval(hold.when, f.input, f.b))) continue;
    return i;
  }
  return -1;
}

/** Ask the Decider (when the firing does not hold) and apply its decision: replaced emits, the reply bytes, its authored events. */
export async function chooseDecision(m: MapContext, f: Firing, builder: DraftBuilder, holdIndex: number, opts: MapOptions): Promise<Choice> {
  const d = m.descriptor;
  const { hook, hookName, input, b, drafts, run } = f;
  if (!opts.decide || !hook || holdIndex >= 0) return { holdIndex };
  let decidedReply: Choice['decidedReply'];
  const verbs = await eligibleVerbs(hook, input, b);
  const decision = await opts.decide({
    agent: d.vendor,
    hook: hookName,
    session: f.session,
    runBefore: f.runBefore,
    runAfter: run.id,
    closesRun: drafts.some((dr) => RUN_TERMINALS.has(dr.type)),
    endsSession: drafts.some((dr) => dr.emit.sessionEnd),
    verbs,
    events: drafts.map((dr) => ({ id: dr.id, type: dr.type, subject: dr.subject, run: dr.run, data: dr.data ?? {} })),
  });
  const verb: Verb | undefined = decision?.verb;
  if (decision && verb !== undefined) {
    if (!verbs.has(verb)) throw new MapError('mapping-error', `a decision chose '${verb}', which ${hookName} cannot carry here`, hookName);
    const entry = hook.decide.get(verb)!;
    if (entry.emit) {
      // the decision replaces what the firing emitted: a cause naming a replaced event names that event's own cause
      const replaced = new Map(drafts.map((dr) => [dr.id, dr.cause]));
      await builder.build(entry.emit, false);
      const kept = new Set(drafts.map((dr) => dr.id));
      for (const a of decision.authored ?? []) {
        if (a.cause === undefined || kept.has(a.cause) || !replaced.has(a.cause)) continue;
        let c = replaced.get(a.cause);
        while (c !== undefined && replaced.has(c) && !kept.has(c)) c = replaced.get(c);
        a.cause = c;
      }
    }
    decidedReply = { body: await renderDecision(entry, decision, input, b), ...decidedShape(d, f.hookName, entry) };
  }
  // the decision's own events: before the session's end when the firing ends it (nothing follows session.ended)
  const authored: Draft[] = [];
  for (const a of decision?.authored ?? []) {
    authored.push({
      emit: {
        type: a.type,
        typeText: a.type,
        expr: undefined as unknown as CompiledEmit['expr'],
        path: `decide.${verb ?? 'audit'}`,
        severity: a.severity,
        gates: a.gates,
      },
      type: a.type,
      data: a.data,
      cause: a.cause,
      subject: a.subject,
      run: run.id,
      id: newId(),
    });
    if (a.closesRun) {
      run.id = undefined;
      run.startId = undefined;
      setRunBindings(b, run);
    }
  }
  const end = drafts.findIndex((dr) => dr.emit.sessionEnd);
  drafts.splice(end >= 0 ? end : drafts.length, 0, ...authored);
  return { holdIndex, decision, decidedReply };
}

/**
 * AEP-0002 §7 rule 2: a session never ends with a request still open; the engine closes them (dismissed) first.
 * A resumed session's start names the one it resumes.
 */
export function closeAtSessionEnd(f: Firing, opts: MapOptions): void {
  const { drafts, now } = f;
  const endAt = drafts.findIndex((dr) => dr.emit.sessionEnd);
  if (endAt >= 0) {
    f.result.endsSession = true;
    const open = new Map(f.st.attention);
    // what the caller holds open there (a held hook, an ask) is closed by this same firing, in its order
    for (const [id, a] of opts.open?.(f.session) ?? []) if (!open.has(id)) open.set(id, a);
    for (const dr of drafts.slice(0, endAt)) {
      if (dr.type === 'attention.requested') open.set(dr.id, { run: dr.run, at: now });
      else if ((dr.type === 'attention.resolved' || dr.type === 'attention.timeout') && dr.subject) open.delete(dr.subject);
    }
    const dismissals: Draft[] = [...open].map(([id, a]) => ({
      emit: DISMISS_AT_END,
      type: 'attention.resolved',
      subject: id,
      cause: id,
      run: a.run,
      data: { resolution: 'dismissed', latency_ms: Math.max(0, now - a.at) },
      id: newId(),
    }));
    // before the run this firing closes (if any), else right before the end
    const runEnd = drafts.findIndex((dr, i) => i < endAt && dr.emit.run === 'close');
    drafts.splice(runEnd >= 0 ? runEnd : endAt, 0, ...dismissals);
  }
  if (f.resumedFrom !== undefined) {
    for (const dr of drafts) if (dr.type === 'session.started') dr.data = { ...dr.data, resumed_from: f.resumedFrom };
  }
}

/** The engine's own rule (no descriptor wrote it): open attention closed as dismissed when its session ends. */
const DISMISS_AT_END: CompiledEmit = {
  type: 'attention.resolved',
  typeText: 'attention.resolved',
  expr: undefined as unknown as Expr,
  run: 'none',
  path: 'engine: session end closes open attention (AEP-0002 §7 rule 2)',
};
