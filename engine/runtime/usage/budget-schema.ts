// The up config's `budgets:` list as a person writes it (a part of the one up
// config schema, engine/app/up-schema.ts), and the runtime Budget it becomes.
// docs/usage.md "Budgets". Every number is bounded: a cap is positive and at
// most 1,000,000 USD or 10^12 tokens, the warning share lies in (0, 1).
import { z } from 'zod';

import { BUDGET_ACTIONS, BUDGET_SCOPES, BUDGET_WINDOWS, type BudgetAction, type BudgetScope, type BudgetWindow } from './budget-view.ts';

export { BUDGET_ACTIONS, BUDGET_SCOPES, BUDGET_WINDOWS, type BudgetAction, type BudgetScope, type BudgetWindow };
export const DEFAULT_WARN_AT = 0.8;
export const MAX_USD = 1_000_000;
export const MAX_TOKENS = 1e12;
export const MAX_BUDGETS = 64;

const budget = z
  .strictObject({
    id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, . _ - (at most 64), starting with a letter or digit')
      .describe('names the budget in its events, cards and `hookmap budgets`'),
    scope: z.enum(BUDGET_SCOPES).describe('session: each session (a resumed one included); project, agent: each one per window; all: everything'),
    only: z.string().min(1).max(200).optional().describe('project or agent scope: this project label or agent id alone (absent: each its own cap)'),
    window: z.enum(BUDGET_WINDOWS).optional().describe('project, agent, all: the UTC day (default) or month the spend is summed over; not for session'),
    usd: z.number().positive().max(MAX_USD).optional().describe('the cap in US dollars (priced usage only); or tokens'),
    tokens: z.number().int().positive().max(MAX_TOKENS).optional().describe('the cap in tokens (input + output); or usd'),
    warn_at: z.number().gt(0).lt(1).optional().meta({ default: DEFAULT_WARN_AT }).describe('the share of the cap at which a warning goes out, once per window'),
    at_cap: z
      .enum(BUDGET_ACTIONS)
      .describe(
        'block: the next tool call is refused with the reason (a cancel where the agent cannot block); ' +
          'ask: it is held with a card (finish the run, allow more, stop); notify: said, allowed',
      ),
    raise_by: z.number().positive().optional().describe('ask: what the card\'s "allow more" adds to the cap, in the cap\'s unit (default: half the cap)'),
    reason: z.string().trim().min(1).max(500).optional().describe('what the model reads when a tool call is refused (default: the budget, spend and cap)'),
  })
  .describe('one spending cap (docs/usage.md, Budgets)');

export const BudgetsSchema = z
  .array(budget)
  .max(MAX_BUDGETS)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((b, i) => {
      if (seen.has(b.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `budget id ${b.id} is used twice` });
      seen.add(b.id);
      if ((b.usd === undefined) === (b.tokens === undefined)) ctx.addIssue({ code: 'custom', path: [i], message: 'a budget has exactly one of usd or tokens' });
      if (b.scope === 'session' && b.window !== undefined)
        ctx.addIssue({ code: 'custom', path: [i, 'window'], message: 'a session budget runs for the session: no window' });
      if (b.raise_by !== undefined && b.at_cap !== 'ask') ctx.addIssue({ code: 'custom', path: [i, 'raise_by'], message: 'raise_by is for at_cap: ask' });
      if (b.raise_by !== undefined && b.raise_by > (b.usd !== undefined ? MAX_USD : MAX_TOKENS))
        ctx.addIssue({ code: 'custom', path: [i, 'raise_by'], message: 'raise_by is at most the largest cap' });
      if (b.only !== undefined && b.scope !== 'project' && b.scope !== 'agent')
        ctx.addIssue({ code: 'custom', path: [i, 'only'], message: 'only narrows a project or agent budget' });
    });
  })
  .describe('spending caps in USD or tokens, enforced from the usage on the stream (docs/usage.md, Budgets)');

export type BudgetDoc = z.infer<typeof budget>;

export interface Budget {
  id: string;
  scope: BudgetScope;
  only?: string;
  /** undefined for a session budget. */
  window?: BudgetWindow;
  unit: 'usd' | 'tokens';
  cap: number;
  warnAt: number;
  atCap: BudgetAction;
  /** ask: what "allow more" adds to the cap. */
  raiseBy: number;
  reason?: string;
}

/** The runtime budgets of a checked `budgets:` list. */
export function budgetsOf(list: readonly BudgetDoc[]): Budget[] {
  return list.map((b) => ({
    id: b.id,
    scope: b.scope,
    only: b.only,
    window: b.scope === 'session' ? undefined : (b.window ?? 'day'),
    unit: b.usd !== undefined ? 'usd' : 'tokens',
    cap: (b.usd ?? b.tokens)!,
    warnAt: b.warn_at ?? DEFAULT_WARN_AT,
    atCap: b.at_cap,
    raiseBy: b.raise_by ?? (b.usd !== undefined ? b.usd / 2 : Math.max(1, Math.round(b.tokens! / 2))),
    reason: b.reason,
  }));
}
