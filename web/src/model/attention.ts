// Where an attention request stands (AEP-0002 §7, AEP-0008): its terminal event, its deadline,
// whether it is stale, answerable from here, or waiting for a human.
import type { Ev } from './aep.ts';
import { answerableViaControl } from '../../../engine/core/kernel/option-effects.ts';
import { STALE_AFTER_MS, STALE_NO_DEADLINE_MS, type Attn } from './session-model.ts';

/** What closed a request: its own terminal, else its session's end (the kernel fold's `closedBy`). */
export function terminalOf(a: Attn): Ev | undefined {
  return a.timeout ?? a.resolved ?? a.story?.closedBy;
}

/** Deadline of a request (its `expires_at`), ms; undefined when it declares none. */
export function deadlineOf(a: Attn): number | undefined {
  const x = a.req?.data?.expires_at;
  const t = typeof x === 'string' ? Date.parse(x) : NaN;
  return Number.isFinite(t) ? t : undefined;
}

/** Pending with no outcome on the stream, long past any deadline: the outcome was lost, not pending. */
export function isStale(a: Attn, now: number): boolean {
  if (!a.req || terminalOf(a)) return false;
  const dl = deadlineOf(a);
  if (dl !== undefined) return now > dl + STALE_AFTER_MS;
  const t = Date.parse(a.req.time);
  return Number.isFinite(t) && now - t > STALE_NO_DEADLINE_MS;
}

/** AEP-0008: a present respond_via without `control` is informational (answered elsewhere): the kernel's reading. */
export function answerableHere(a: Attn): boolean {
  return answerableViaControl(a.req?.data);
}

export function isWaiting(a: Attn, now: number): boolean {
  return !!a.req && !terminalOf(a) && !isStale(a, now);
}
