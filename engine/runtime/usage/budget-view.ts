// What a budget is and what it spent, as `hookmap budgets --json`, GET
// /budgets and the inbox show it: browser-safe (no imports), so the inbox
// (web/src/model/budgets.ts) reads the book's own type.

export const BUDGET_SCOPES = ['session', 'project', 'agent', 'all'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
export const BUDGET_ACTIONS = ['block', 'ask', 'notify'] as const;
export type BudgetAction = (typeof BUDGET_ACTIONS)[number];
export const BUDGET_WINDOWS = ['day', 'month'] as const;
export type BudgetWindow = (typeof BUDGET_WINDOWS)[number];

/** What one scope spent in a budget's current window. */
export interface SpendView {
  name: string;
  spent: number;
  share: number;
  state: 'under' | 'warned' | 'reached';
  next: string;
  unpriced: number;
  /** What people allowed beyond the cap in this window (x.hookmap.budget.raised). */
  raised?: number;
}

export interface BudgetView {
  id: string;
  scope: BudgetScope;
  only?: string;
  window?: BudgetWindow;
  /** The window now: YYYY-MM-DD or YYYY-MM (UTC). */
  current?: string;
  unit: 'usd' | 'tokens';
  cap: number;
  warn_at: number;
  at_cap: BudgetAction;
  /** ask: what "allow more" adds to the cap. */
  raise_by?: number;
  /** How many scopes spent in the window. */
  scopes: number;
  /** The most spent first, at most VIEW_MAX of `scopes`. */
  spends: SpendView[];
}
