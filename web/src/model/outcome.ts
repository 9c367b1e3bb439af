// What a card says about its request, derived only from the stream
// (AEP-0002 §7 lifecycle: requested -> answered -> resolved | timeout;
// AEP-0004 §3 acks; the relay's refusal frames): never from what this page
// hoped would happen. The request's fate and whether its answer refuses are
// the kernel fold's (engine/core/kernel/fold/fates.ts); this module says them.
// Also the words for an answer and for a command's state.
import { answerOf, requestFate, type RequestStory } from '../../../engine/core/kernel/fold/index.ts';
import { isSessionTerminal, runEnd } from '../../../engine/core/kernel/lifecycle.ts';
import { effectOf, requestEffects } from '../../../engine/core/kernel/option-effects.ts';
import type { Ev } from './aep.ts';
import { ruleOf } from './rules.ts';
import { answerableHere, isStale, terminalOf } from './attention.ts';
import type { Attn, CmdState } from './session-model.ts';
import type { Store } from './store.ts';

export type Phase = 'pending' | 'sending' | 'accepted' | 'answered' | 'resolved' | 'dismissed' | 'timeout' | 'refused' | 'stale' | 'elsewhere';

export interface Outcome {
  phase: Phase;
  text: string;
  /** The card no longer takes answers. */
  settled: boolean;
  tone: 'info' | 'good' | 'warn' | 'bad';
}

export const TIMED_OUT = "Timed out, the agent's own dialog decides";

export function outcomeOf(store: Store, a: Attn, now: number): Outcome {
  const o = baseOutcome(store, a, now);
  // two people, one card: whoever's answer the agent applied is named; the other learns theirs was not
  const mine = [...store.commandsOf(a)].reverse().find((c) => c.mine);
  if (o.settled && mine && a.answered && a.answered.cause !== mine.id) o.text += ' Your answer came second and was not applied.';
  return o;
}

/** A card's request as the kernel fold's record of it (the store gathers the same events). */
export function storyOf(a: Attn): RequestStory<Ev> {
  if (a.story) return a.story;
  const loose = (e: Ev | undefined) => e as (Ev & Record<string, unknown>) | undefined;
  return { ...a, effects: requestEffects(loose(a.req), loose(a.answered)) };
}

function baseOutcome(store: Store, a: Attn, now: number): Outcome {
  const term = terminalOf(a);
  const q = storyOf(a);
  const fate = requestFate(q);
  if (fate === 'timed-out') return { phase: 'timeout', text: TIMED_OUT, settled: true, tone: 'warn' };
  if (fate === 'unanswered') return { phase: 'dismissed', text: 'The session ended before anyone answered', settled: true, tone: 'info' };
  if (a.resolved) {
    const r = a.resolved.data?.resolution;
    if (r === 'dismissed')
      return { phase: 'dismissed', text: 'Dismissed: the agent moved on (answered in its own dialog, or the session ended)', settled: true, tone: 'info' };
    if (a.answered) return { phase: 'resolved', text: `${answeredText(a, a.answered)}. Resolved.`, settled: true, tone: fate === 'refused' ? 'bad' : 'good' };
    return { phase: 'resolved', text: r === 'auto' ? 'Resolved automatically' : 'Resolved', settled: true, tone: 'good' };
  }
  if (a.answered) return { phase: 'answered', text: `${answeredText(a, a.answered)}. Waiting for the agent to resolve it…`, settled: true, tone: 'good' };
  if (term) return { phase: 'resolved', text: 'Resolved', settled: true, tone: 'good' };
  if (isStale(a, now)) return { phase: 'stale', text: 'No outcome on the stream: the request is long past its deadline', settled: true, tone: 'warn' };
  const cmds = store.commandsOf(a);
  const mine = [...cmds].reverse().find((c) => c.mine);
  if (mine) {
    if (mine.ack?.type === 'control.accepted') {
      return { phase: 'accepted', text: 'Accepted: the agent is applying your answer…', settled: false, tone: 'info' };
    }
    if (mine.ack?.type === 'control.rejected')
      return {
        phase: 'refused',
        text: `Refused by the agent (${mine.ack.data?.reason ?? 'rejected'})${mine.ack.data?.detail ? `: ${mine.ack.data.detail}` : ''}`,
        settled: false,
        tone: 'bad',
      };
    if (mine.refusal) return { phase: 'refused', text: refusalText(mine.refusal), settled: false, tone: 'bad' };
    return { phase: 'sending', text: 'Sent: waiting for the agent to acknowledge…', settled: false, tone: 'info' };
  }
  const other = cmds.find((c) => !c.mine && !c.refusal && c.ack?.type !== 'control.rejected');
  if (other) return { phase: 'pending', text: `Someone else is answering (${other.cmd?.agent ?? 'another client'})…`, settled: false, tone: 'info' };
  if (!answerableHere(a))
    return { phase: 'elsewhere', text: 'Answer this in the agent itself: it declared no remote answer for this request', settled: false, tone: 'info' };
  return { phase: 'pending', text: '', settled: false, tone: 'info' };
}

export function refusalText(r: NonNullable<CmdState['refusal']>): string {
  if (r.code === 'timeout') return `No acknowledgement: ${r.detail ?? 'the agent did not answer in time'}`;
  if (r.code === 'not-connected') return r.detail ?? 'Not connected';
  return `Not delivered (${r.code})${r.detail ? `: ${r.detail}` : ''}`;
}

function answeredText(a: Attn, ev: Ev): string {
  const d = ev.data ?? {};
  const by = typeof d.by === 'string' && d.by ? d.by : undefined;
  if (d.via === 'oob') return "Answered in the agent's own dialog";
  const rule = ruleOf(by);
  if (rule) return `${answerOf({ ...storyOf(a), answered: ev })?.refuses ? 'Denied' : 'Allowed'} by rule ${rule}`;
  const who = by ? `Answered by ${by}` : 'Answered';
  return `${who}: ${answerSummary(a.req, d.answer)}`;
}

/** A card button's key: `a` for the option that allows once, `d` for the one that refuses once (by the options' effects). */
export function optionKey(req: Ev | undefined, id: string): 'a' | 'd' | undefined {
  const effect = effectOf(id, requestEffects(req));
  return effect === 'allow' ? 'a' : effect === 'deny' ? 'd' : undefined;
}

/** An answer in words: the option's label, the guidance text, or the form's values. */
export function answerSummary(req: Ev | undefined, answer: any): string {
  if (!answer || typeof answer !== 'object') return 'an answer';
  const parts: string[] = [];
  if (typeof answer.option === 'string') {
    const opt = (req?.data?.options ?? []).find((o: any) => o?.id === answer.option);
    parts.push(opt?.label && opt.label !== answer.option && !/^\d+$/.test(opt.label) ? `${opt.label}` : answer.option);
  }
  if (typeof answer.text === 'string') parts.push(`“${answer.text}”`);
  if (answer.values && typeof answer.values === 'object') {
    const fields: any[] = Array.isArray(req?.data?.fields) ? req!.data!.fields : [];
    const shown = Object.entries(answer.values).map(([k, v]) => {
      const f = fields.find((x) => x?.id === k);
      const label = (id: unknown) => f?.choices?.find((c: any) => c?.id === id)?.label ?? String(id);
      const val = Array.isArray(v) ? v.map(label).join(', ') : typeof v === 'boolean' ? (v ? 'yes' : 'no') : f?.type === 'select' ? label(v) : String(v);
      return `${f?.label ?? k} = ${val}`;
    });
    parts.push(shown.length ? shown.join('; ') : 'form answered');
  }
  return parts.join(' ') || 'an answer';
}

/** A steer or stop command's state in words. */
export function commandText(c: CmdState): { text: string; tone: Outcome['tone']; done: boolean } {
  const delivered = c.outcomes.find((o) => /\.instruction\.delivered$/.test(o.type));
  const dropped = c.outcomes.find((o) => /\.instruction\.dropped$/.test(o.type));
  const cancelled = c.outcomes.find((o) => runEnd(o.type) === 'cancelled' || isSessionTerminal(o.type));
  if (delivered)
    return {
      text: delivered.data?.carrier === 'next-turn' ? 'Delivered: it woke the idle session into a new turn' : 'Delivered to the agent',
      tone: 'good',
      done: true,
    };
  if (dropped) return { text: `Dropped${dropped.data?.reason ? ` (${dropped.data.reason})` : ''}`, tone: 'warn', done: true };
  if (cancelled) return { text: runEnd(cancelled.type) ? 'Run cancelled' : 'Session ended', tone: 'good', done: true };
  if (c.ack?.type === 'control.rejected')
    return { text: `Refused by the agent (${c.ack.data?.reason ?? 'rejected'})${c.ack.data?.detail ? `: ${c.ack.data.detail}` : ''}`, tone: 'bad', done: true };
  if (c.ack?.type === 'control.accepted')
    return {
      text: c.type === 'control.cancel' ? 'Accepted: the agent will stop at its next chance…' : "Accepted: queued for the agent's next turn…",
      tone: 'info',
      done: false,
    };
  if (c.refusal) return { text: refusalText(c.refusal), tone: 'bad', done: true };
  return { text: 'Sent: waiting for the agent to acknowledge…', tone: 'info', done: false };
}
