// The last two mapping stages. Outcome: what the daemon does with the
// firing besides logging its events (a hold it opens, a hold it settles,
// the decided reply). Commit: the only place a firing changes engine state,
// reached once every event is built: the run (opened, closed, remembered as
// ended), consumed lookups, the hook's table stores (which see the firing's
// event ids), the attention bookkeeping, a session's end.
import type { Decision } from './decide.ts';
import type { AepEvent } from './envelope.ts';
import { RUN_TERMINALS } from './decide.ts';
import type { Choice } from './choose.ts';
import type { Firing, MapContext } from './firing.ts';
import type { Fragments } from './seal.ts';
import type { SessionState } from './state.ts';

/** The hold the firing opens (its request among `events`), the decided reply, the hold it settles. */
export async function outcome(m: MapContext, f: Firing, events: AepEvent[], choice: Choice): Promise<void> {
  const { hook, input, b, result } = f;
  if (choice.holdIndex >= 0) {
    const hold = hook!.holds[choice.holdIndex];
    const request = events.find((e) => e.type === hold.requestType);
    const key = hold.key ? await m.eval(hold.key, input, b) : undefined;
    result.hold = { kind: hold.kind, index: choice.holdIndex, hook: f.hookName, session: f.session, request, timeoutMs: hold.timeoutMs, key: key === undefined ? undefined : String(key), payload: input };
  }
  if (choice.decidedReply) {
    result.reply = choice.decidedReply.body;
    result.exitCode = choice.decidedReply.exit;
    result.decided = choice.decision!.verb;
  }
  if (hook?.settle) {
    const key = await m.eval(hook.settle.key, input, b);
    if (key !== undefined) {
      result.settle = { key: String(key), as: hook.settle.as };
      const answer = hook.settle.answer ? await m.eval(hook.settle.answer, input, b) : undefined;
      if (answer && typeof answer === 'object' && !Array.isArray(answer)) result.settle.answer = answer as Record<string, unknown>;
    }
  }
}

/** Commit: run state, tables, consumption. */
export async function commit(m: MapContext, f: Firing, events: AepEvent[], frag: Fragments, looked: { table: string; key: string; consume: boolean }[], decision: Decision | undefined): Promise<void> {
  const d = m.descriptor;
  const { st, run, hook, input, b, drafts, now } = f;
  const state = m.state;
  frag.commit();
  st.runId = d.runs === 'synthesized' ? run.id : st.runId;
  st.runStartId = run.startId;
  st.runCount = run.count;
  // the open run, for commands addressed to it (control.cancel): closed by a terminal, opened by any firing that names one
  const ended = drafts.filter((dr) => RUN_TERMINALS.has(dr.type) && dr.run !== undefined).map((dr) => dr.run!);
  for (const r of ended) markClosed(st, r);
  if (run.id !== undefined && !st.closedRuns?.has(run.id)) st.openRun = run.id;
  else if (d.runs === 'synthesized' || (st.openRun !== undefined && st.closedRuns?.has(st.openRun))) st.openRun = undefined;
  for (const l of looked) if (l.consume) state.tableDelete(st, l.table, l.key);
  if (hook?.stores.length) {
    b.events = events.map((e) => ({ id: e.id, type: e.type }));
    b.event_id = events[0]?.id;
    for (const s of hook.stores) {
      if (s.when && !(await m.eval(s.when, input, b))) continue;
      const key = await m.eval(s.key, input, b);
      if (key === undefined) continue;
      const value = await m.eval(s.value, input, b);
      state.tableSet(st, s.table, String(key), value, s.ttlMs ? now + s.ttlMs : undefined);
    }
  }
  for (const ev of events) state.noteEvent(ev as { type: string; id: string; session?: string; subject?: string; run?: string }, now);
  if (drafts.some((dr) => dr.emit.sessionEnd)) {
    state.forget(f.session);
    state.markEnded(f.vendorSession);
  }
  decision?.commit?.();
}

/** Remember a run that ended (bounded): its later terminals are dropped, commands to it refused. */
export function markClosed(st: SessionState, run: string): void {
  st.closedRuns ??= new Set();
  st.closedRuns.delete(run);
  st.closedRuns.add(run);
  if (st.closedRuns.size > 64) st.closedRuns.delete(st.closedRuns.values().next().value as string);
}
