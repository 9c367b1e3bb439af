// What kind of moment an event is (moments.ts): which alert, and whether a
// form is one a chat answers with a button per choice; what an alert says.
import type { AepEvent } from '../../runtime/relay/index.ts';
import type { AlertKind } from './payload.ts';
import type { Moment } from './moment-types.ts';
import { isSessionTerminal, runEnd } from '../../core/kernel/lifecycle.ts';
import { BUDGET_REACHED, BUDGET_WARNED } from '../../runtime/usage/budgets.ts';
import { LIMIT_REACHED, LIMIT_RESUMED, pauseOf, pauseText, worthTelling } from '../../core/kernel/limits.ts';

/** A budget's warning and its cap reached: alerts of their own kind. */
export const BUDGET_ALERTS = [BUDGET_WARNED, BUDGET_REACHED];
export const WORDS: Record<AlertKind, string> = {
  permission: 'is waiting for you',
  question: 'has a question',
  run_failed: 'a run failed',
  idle: 'is waiting for your input',
  session_error: 'the session ended on an error',
  turn_finished: 'finished its turn',
  budget: 'a budget',
  limit: 'stopped on a limit',
};

/** A form a chat can answer with one button per choice: one single-select field, at most 8 choices, labels real (never placeholders). */
export function singleChoice(view: {
  kind: string;
  labelsReal: boolean;
  fields?: { id: string; type: string; label?: string; multi?: boolean; choices?: { id: string; label?: string }[] }[];
}): { field: string; question?: string; choices: { id: string; label: string }[] } | undefined {
  const f = view.fields;
  if (view.kind !== 'form' || !view.labelsReal || f?.length !== 1) return undefined;
  const q = f[0];
  if (q.type !== 'select' || q.multi || !q.choices?.length || q.choices.length > 8 || q.choices.some((c) => !c.label)) return undefined;
  return { field: q.id, question: q.label, choices: q.choices.map((c) => ({ id: c.id, label: c.label! })) };
}

/** Which opt-in alert an event is, if any. */
export function alertKind(ev: AepEvent): AlertKind | undefined {
  const d = (ev.data ?? {}) as Record<string, unknown>;
  const end = runEnd(ev.type);
  if (end === 'failed') return 'run_failed';
  if (end === 'finished') return 'turn_finished';
  if (isSessionTerminal(ev.type)) return d.reason === 'error' ? 'session_error' : undefined;
  if (ev.type === 'progress.status' && (ev.subject === 'idle_prompt' || d.status === 'idle')) return 'idle';
  if (BUDGET_ALERTS.includes(ev.type)) return 'budget';
  if (ev.type === LIMIT_REACHED) {
    const p = pauseOf({ type: ev.type, time: ev.time, data: d });
    return p && worthTelling(p) ? 'limit' : undefined; // an agent retrying by itself within a minute is its own business
  }
  if (ev.type === LIMIT_RESUMED && d.ok === true) return 'limit';
  return undefined;
}

/** A limit alert's agent, session and words: "<agent>: rate limit: paused until 15:04", "<agent>: continued after its limit". */
export function limitAlert(ev: AepEvent): { agent: string; session?: string; title: string } {
  const d = (ev.data ?? {}) as Record<string, unknown>;
  if (ev.type === LIMIT_RESUMED) {
    const agent = String(d.agent ?? '');
    return { agent, session: typeof d.session === 'string' ? d.session : undefined, title: `${agent}: continued after its limit` };
  }
  const p = pauseOf({ type: ev.type, time: ev.time, data: d });
  return { agent: String(ev.agent ?? ''), session: ev.session, title: `${ev.agent}: ${p ? pauseText(p) : 'stopped on a limit'}` };
}

/** An informational request declares no deadline: its card stands this long at most unless settled. */
const INFORMATIONAL_MS = 24 * 3_600_000;

/** The watch's "answer at the agent" (AEP-0008: respond_via without control) as a moment: shown, no buttons, nothing asked. */
export function informational(ev: AepEvent, d: Record<string, any>, agent: string, deadline: number, now: number): Moment {
  const about = d.watch && typeof d.watch === 'object' ? (d.watch as Record<string, unknown>) : {};
  const s = (v: unknown) => (typeof v === 'string' && v ? v.slice(0, 200) : undefined);
  return {
    id: ev.id,
    session: s(about.session) ?? String(ev.session ?? ''),
    agent: s(about.agent) ?? agent,
    kind: 'watch',
    words: s(d.prompt) ?? '',
    expires: Number.isFinite(deadline) ? deadline : now + INFORMATIONAL_MS,
    tool: s(about.tool),
    project: s(about.project),
    redact: (t) => t,
    rulable: false,
    paths: 0,
  };
}
