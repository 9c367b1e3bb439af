// The spending caps `up` holds (GET /budgets: engine/app/up-budgets.ts, the
// book in engine/runtime/usage/budgets.ts), for the inbox's usage view: each budget
// with what every scope it counts spent in the current window and what
// happens next. The book is derived from the stream on the server; the
// inbox only shows it. Read scope (the sign-in cookie).

import type { BudgetView } from '../../../engine/runtime/usage/budget-view.ts';
import { tokens, usd } from './history.ts';

/** One budget as GET /budgets shows it (the book's own view type). */
export type Budget = BudgetView;

export interface Budgets {
  budgets: Budget[];
  prices?: { name?: string; version?: string; published?: string };
}

/** The budgets; an `up` without the route (an older one) reads as none. */
export async function budgets(): Promise<Budgets> {
  const res = await fetch('/budgets', { credentials: 'same-origin', cache: 'no-store' });
  if (res.status === 404) return { budgets: [] };
  const j = (await res.json().catch(() => ({}))) as Partial<Budgets> & { detail?: string };
  if (!res.ok) throw new Error(String(j.detail ?? res.statusText));
  return { budgets: Array.isArray(j.budgets) ? j.budgets : [], prices: j.prices };
}

/** A cap or a spend in the budget's unit, as the usage view writes amounts: `$10.00`, `$0.0412`, `1.2M tokens`. */
export const amount = (unit: Budget['unit'], n: number): string => (unit === 'usd' ? usd(n) : `${tokens(n)} tokens`);

/** What a budget counts: `per project, per day`, `claude-code, per month`, `per session`. */
export function counts(b: Budget): string {
  const what = b.only ?? (b.scope === 'all' ? 'everything' : `per ${b.scope}`);
  return b.window ? `${what}, per ${b.window}` : what;
}
