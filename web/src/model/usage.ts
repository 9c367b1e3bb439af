// Tokens and cost per session and per run, from what the session's events
// say: the daemons' x.hookmap.usage.reported events (engine/runtime/usage/tally.ts:
// OpenTelemetry GenAI token fields, cost { currency, total }) and the usage
// an agent's own hooks put on run ends or on session.ended (pi, opencode:
// gen_ai.usage.* on the event's data). A run's reported events win over its
// run end's usage (one count, never two); a session.ended count is used only
// when nothing else was seen. A cost is shown only when every count that
// makes up the sum carries one in one currency: never guessed. Pure.
import { isRunTerminal, isSessionTerminal } from '../../../engine/core/kernel/lifecycle.ts';
import type { Ev } from './aep.ts';
import { tokens, usd } from './history.ts';
import type { SessionModel } from './session-model.ts';

export const USAGE_TYPE = 'x.hookmap.usage.reported';
const ATTRS = {
  input: 'gen_ai.usage.input_tokens',
  output: 'gen_ai.usage.output_tokens',
  cacheRead: 'gen_ai.usage.cache_read.input_tokens',
  cacheWrite: 'gen_ai.usage.cache_creation.input_tokens',
} as const;

export interface UsageSum {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The summed cost; absent when any part of the sum had none (or another currency). */
  cost?: { currency: string; total: number };
}

export interface SessionUsage {
  total?: UsageSum;
  runs: Map<string, UsageSum>;
}

interface Part {
  u: Omit<UsageSum, 'cost'>;
  cost?: { currency: string; total: number };
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/** The usage one event carries (flat gen_ai.usage.* on its data, or under data.usage); undefined when none. */
export function usagePart(ev: Ev): Part | undefined {
  const d = ev.data;
  if (!d || typeof d !== 'object') return undefined;
  const srcs = [d, d.usage].filter((x): x is Record<string, unknown> => !!x && typeof x === 'object');
  const u = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let any = false;
  for (const src of srcs)
    for (const k of Object.keys(ATTRS) as (keyof typeof ATTRS)[]) {
      const n = num(src[ATTRS[k]]);
      if (n !== undefined) {
        u[k] += n;
        any = true;
      }
    }
  if (!any) return undefined;
  const c = d.cost;
  const cost =
    c && typeof c === 'object' && typeof c.currency === 'string' && num(c.total) !== undefined ? { currency: c.currency, total: c.total } : undefined;
  return { u, cost };
}

function sum(parts: Part[]): UsageSum | undefined {
  if (!parts.length) return undefined;
  const out: UsageSum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const currency = parts[0].cost?.currency;
  let costed = !!currency;
  let total = 0;
  for (const p of parts) {
    out.input += p.u.input;
    out.output += p.u.output;
    out.cacheRead += p.u.cacheRead;
    out.cacheWrite += p.u.cacheWrite;
    if (!p.cost || p.cost.currency !== currency) costed = false;
    else total += p.cost.total;
  }
  if (costed) out.cost = { currency: currency!, total };
  return out;
}

/** Sums over a session's ordered, deduplicated events. */
export function usageOfEvents(events: readonly Ev[]): SessionUsage {
  const reported = new Map<string, Part[]>(); // run ('' = none) -> parts
  const runEnd = new Map<string, Part>();
  let ended: Part | undefined;
  for (const ev of events) {
    const isReport = ev.type === USAGE_TYPE;
    if (!isReport && !isRunTerminal(ev.type) && !isSessionTerminal(ev.type)) continue;
    const p = usagePart(ev);
    if (!p) continue;
    if (isReport) {
      const k = ev.run ?? '';
      reported.set(k, [...(reported.get(k) ?? []), p]);
    } else if (isSessionTerminal(ev.type)) ended = p;
    else if (ev.run && !runEnd.has(ev.run)) runEnd.set(ev.run, p);
  }
  const runs = new Map<string, UsageSum>();
  const all: Part[] = [...(reported.get('') ?? [])];
  for (const [run, parts] of reported) if (run) runs.set(run, sum(parts)!);
  for (const [run, p] of runEnd) if (!runs.has(run)) runs.set(run, sum([p])!);
  for (const [run, parts] of reported) if (run) all.push(...parts);
  for (const [run, p] of runEnd) if (!reported.has(run)) all.push(p);
  return { total: sum(all.length ? all : ended ? [ended] : []), runs };
}

const cache = new WeakMap<SessionModel, { rev: number; n: number; u: SessionUsage }>();

/** A session's usage, recomputed only when its events changed. */
export function usageOf(s: SessionModel): SessionUsage {
  const c = cache.get(s);
  if (c && c.rev === s.rev.peek() && c.n === s.events.length) return c.u;
  const u = usageOfEvents(s.events);
  cache.set(s, { rev: s.rev.peek(), n: s.events.length, u });
  return u;
}

export const tokenCount = (u: UsageSum): number => u.input + u.output;

export function money(c: { currency: string; total: number }): string {
  return c.currency === 'USD' ? usd(c.total) : `${c.total.toFixed(c.total < 1 ? 4 : 2)} ${c.currency}`;
}

/** "1.5k tokens · $0.0123": compact; the cost only when known. */
export function usageText(u: UsageSum): string {
  return `${tokens(tokenCount(u))} tokens${u.cost ? ` · ${money(u.cost)}` : ''}`;
}

/** The same, spelled out (a tooltip and screen readers): every count, and why no cost when none. */
export function usageLong(u: UsageSum): string {
  const parts = [`${u.input.toLocaleString('en')} input`, `${u.output.toLocaleString('en')} output`];
  if (u.cacheRead) parts.push(`${u.cacheRead.toLocaleString('en')} cache read`);
  if (u.cacheWrite) parts.push(`${u.cacheWrite.toLocaleString('en')} cache write`);
  const cost = u.cost ? `cost ${money(u.cost)}` : 'cost not reported';
  return `${tokenCount(u).toLocaleString('en')} tokens (${parts.join(', ')}), ${cost}`;
}
