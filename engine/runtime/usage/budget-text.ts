// How budgets read (docs/usage.md "Budgets"): a cap or spend as a person
// reads it, the scope's words, the window a moment falls in, what happens at
// the cap; and the bounded map touch the book keeps its sums with.
import type { Budget } from './budget-schema.ts';

/** An event of the stream as the book reads it (every field unchecked). */
export interface StreamEvent {
  id?: unknown;
  type?: unknown;
  time?: unknown;
  agent?: unknown;
  session?: unknown;
  source?: unknown;
  data?: unknown;
  [k: string]: unknown;
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
/** The window a budget counts a moment in: its UTC day or month of an ISO time, '' for a session's (no window). */
export const windowOf = (b: Budget, iso: string): string => (b.window ? iso.slice(0, b.window === 'day' ? 10 : 7) : '');
export const isoOf = (ms: number) => new Date(ms).toISOString();
export const touch = <K, V>(m: Map<K, V>, k: K, v: V, max: number) => {
  m.delete(k);
  m.set(k, v);
  while (m.size > max) m.delete(m.keys().next().value as K);
};

/** A cap or a spend as a person reads it. */
export const amount = (unit: Budget['unit'], n: number): string =>
  unit === 'usd' ? `$${n.toFixed(4).replace(/(\.\d\d\d*?)0+$/, '$1')}` : `${Math.round(n).toLocaleString('en-US')} tokens`;

export function label(b: Budget, name: string): string {
  if (b.scope === 'session') return `session ${name}`;
  if (b.scope === 'project') return `project ${name}`;
  if (b.scope === 'agent') return name;
  return 'all agents together';
}

/** What happens at a budget's cap (its events' text, `hookmap budgets`). */
export const NEXT: Record<Budget['atCap'], string> = {
  block: 'the next tool call is refused',
  ask: 'the next tool call is held with a card (ask)',
  notify: 'allowed (notify)',
};

export const period = (b: Budget) => (b.window === 'day' ? ' today (UTC)' : b.window === 'month' ? ' this month (UTC)' : '');

/** Until when a refusal lasts (the model reads it). */
export const untilText = (b: Budget): string =>
  b.atCap === 'ask'
    ? 'a person allows more'
    : b.window === 'day'
      ? 'the day ends (00:00 UTC)'
      : b.window === 'month'
        ? 'the month ends (UTC)'
        : 'a person raises the cap';
