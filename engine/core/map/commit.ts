// The last mapping stages. Last expressions: everything the firing still
// evaluates once its events are known (the hold's key, the settle's key and
// answer, the hook's table stores, which see the firing's event ids), run
// before any position is taken. Outcome: what the daemon does with the
// firing besides logging its events (a hold it opens, a hold it settles,
// the decided reply). Commit: the only place a firing changes engine state,
// reached once nothing of the firing can fail any more: the draft's session
// and route held, its queued writes (suppression windows, snapshots)
// applied, positions taken (seq, epoch), the run (opened, closed,
// remembered as ended), consumed lookups, the stores, the attention
// bookkeeping, a session's end, the decision's own commit.
import type { Decision } from './decide.ts';
import type { AepEvent } from './envelope.ts';
import { RUN_TERMINALS } from './decide.ts';
import type { Choice } from './choose.ts';
import type { Firing, MapContext } from './firing.ts';
import type { Fragments, Gated } from './seal.ts';
import type { SessionState } from './state.ts';

/** What the last expressions computed: applied by outcome() and commit(), which evaluate nothing. */
export interface LastValues {
  holdKey?: unknown;
  settle?: { key: string; answer?: Record<string, unknown> };
  stores: { table: string; key: string; value: unknown; expires?: number }[];
}

const NOTHING_LAST: LastValues = Object.freeze({ stores: [] }) as LastValues;

/** Every expression the firing still has to run, over its gated drafts (ids and types as the envelopes will carry them). */
export function lastExpressions(m: MapContext, f: Firing, gated: Gated[], choice: Choice): LastValues | Promise<LastValues> {
  const { hook } = f;
  // most firings have none: no promise for them
  if (!hook || (choice.holdIndex < 0 && !hook.settle && !hook.stores.length)) return NOTHING_LAST;
  return evaluateLast(m, f, gated, choice);
}

async function evaluateLast(m: MapContext, f: Firing, gated: Gated[], choice: Choice): Promise<LastValues> {
  const { hook, input, b, now } = f;
  const out: LastValues = { stores: [] };
  if (choice.holdIndex >= 0) {
    const hold = hook!.holds[choice.holdIndex];
    if (hold.key) out.holdKey = await m.eval(hold.key, input, b);
  }
  if (hook?.settle) {
    const key = await m.eval(hook.settle.key, input, b);
    if (key !== undefined) {
      out.settle = { key: String(key) };
      const answer = hook.settle.answer ? await m.eval(hook.settle.answer, input, b) : undefined;
      if (answer && typeof answer === 'object' && !Array.isArray(answer)) out.settle.answer = answer as Record<string, unknown>;
    }
  }
  if (hook?.stores.length) {
    b.events = gated.map((g) => ({ id: g.dr.id, type: g.dr.type }));
    b.event_id = gated[0]?.dr.id;
    for (const s of hook.stores) {
      if (s.when && !(await m.eval(s.when, input, b))) continue;
      const key = await m.eval(s.key, input, b);
      if (key === undefined) continue;
      const value = await m.eval(s.value, input, b);
      out.stores.push({ table: s.table, key: String(key), value, expires: s.ttlMs ? now + s.ttlMs : undefined });
    }
  }
  return out;
}

/** The hold the firing opens (its request among `events`), the decided reply, the hold it settles. */
export function outcome(f: Firing, events: AepEvent[], choice: Choice, last: LastValues): void {
  const { hook, input, result } = f;
  if (choice.holdIndex >= 0) {
    const hold = hook!.holds[choice.holdIndex];
    const request = events.find((e) => e.type === hold.requestType);
    const key = last.holdKey;
    result.hold = {
      kind: hold.kind,
      index: choice.holdIndex,
      hook: f.hookName,
      session: f.session,
      request,
      timeoutMs: hold.timeoutMs,
      key: key === undefined ? undefined : String(key),
      payload: input,
    };
  }
  if (choice.decidedReply) {
    result.reply = choice.decidedReply.body;
    result.exitCode = choice.decidedReply.exit;
    if (choice.decidedReply.stream) result.stream = choice.decidedReply.stream;
    else delete result.stream;
    result.decided = choice.decision!.verb;
  }
  if (last.settle) result.settle = { ...last.settle, as: hook!.settle!.as };
}

/** Commit: the draft applied in one step (nothing here evaluates an expression or can fail on a descriptor's account). */
export function commit(
  m: MapContext,
  f: Firing,
  events: AepEvent[],
  frag: Fragments,
  looked: { table: string; key: string; consume: boolean }[],
  decision: Decision | undefined,
  last: LastValues,
): void {
  const d = m.descriptor;
  const { st, run, drafts, now } = f;
  const state = m.state;
  state.setRoute(f.vendorSession, f.route);
  state.adopt(f.session, st);
  for (const w of f.writes) w();
  // positions last: a failed firing never uses one up (a validator would see the gap)
  for (const ev of events) {
    if (ev.seq === undefined) continue;
    const pos = state.seq.next(f.session);
    ev.seq = pos.seq;
    ev.epoch = pos.epoch;
  }
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
  for (const s of last.stores) state.tableSet(st, s.table, s.key, s.value, s.expires);
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
