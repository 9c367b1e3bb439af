// The help of the commands that read the history and usage (sessions,
// search, usage, budgets): entries of the one command table (usage.ts),
// kept in their place in it.
import type { CommandEntry } from './usage-entry.ts';

export const HISTORY: CommandEntry[] = [
  {
    name: 'sessions',
    group: 'daily',
    module: 'sessions',
    synopsis: 'sessions [--agent A] [--project P] [--since D] [--state S] [--limit N] [--json]',
    summary: 'every logged session, newest first, with its tokens and cost (the history database)',
    help: `  --agent A              one agent's sessions
  --project P            one project's (the folder name a session's start carries)
  --since D              active since D: YYYY-MM-DD, an ISO time, or 7d / 12h
  --state S              active, waiting (a request open), paused (stopped on a rate limit), retrying (waiting out
                         a rate limit by itself), ended or imported
  --limit N              at most N sessions (default 50)
  --json                 the rows as JSON (token counts, cost_usd: null when a price is unknown)
Reads $HOOKMAP_HOME/history.db, brought up to the JSONL logs first (up need not run).`,
  },
  {
    name: 'search',
    group: 'daily',
    module: 'search',
    synopsis: 'search TEXT [--agent A] [--project P] [--since D] [--until D] [--limit N] [--json]',
    summary: 'the sessions whose logged events hold every word of TEXT, with those events',
    help: `  Full-text search (SQLite FTS5) over the text the logs hold: only what the capture ceiling let in
  (at the default metadata: tool names and ids, not prompts or commands; up's capture option raises it).
  --agent A              one agent's sessions
  --project P            one project's
  --since D / --until D  events at or after D / before D: YYYY-MM-DD, an ISO time, or 7d / 12h
  --limit N              at most N sessions (default 50)
  --json                 [{session, events: [{id, type, time, run, subject, event}]}]
Exit: 0 found, 1 nothing found, 2 usage.`,
  },
  {
    name: 'usage',
    group: 'daily',
    module: 'usage-report',
    synopsis: 'usage [--since D] [--by agent|project|day|model|session] [--agent A] [--json]',
    summary: 'tokens and cost per agent, project, day or model (and per session in --json)',
    help: `  --since D              usage since D: YYYY-MM-DD, an ISO time, or 7d / 12h
  --by K                 group by agent (default), project, day (UTC), model or session
  --agent A              one agent only
  --json                 {by, groups, sessions: [{agent, session, project, models, input_tokens, output_tokens,
                         cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd}], prices}
  Cost in USD from @pydantic/genai-prices (its version and date printed) or $HOOKMAP_HOME/prices.yaml;
  a model neither prices has cost_usd null, never a guess (docs/usage.md).`,
  },
  {
    name: 'budgets',
    group: 'daily',
    module: 'budgets',
    synopsis: 'budgets [--json] [--url U] [--token T | --token-file F]',
    summary: "the running up's spending caps: each scope's spend in its window and what happens next",
    help: `  Each budget of the up config (budgets:): its cap in USD or tokens, its scope and window (UTC day or
  month), the warning share, what happens at the cap (block, ask, notify); under it, every session, project or
  agent it counted in the current window: the spend, the share, and whether the next tool call is refused.
  --json                 {budgets: [{id, scope, only, window, current, unit, cap, warn_at, at_cap,
                         spends: [{name, spent, share, state, next, unpriced}]}], prices}
  --url U --token T      the running up (default $HOOKMAP_URL; --token-file F, else $HOOKMAP_HOME/token)
Spend is read from the usage on the stream (docs/usage.md, Budgets). Exit: 0 listed, 1 no up answered, 2 usage.`,
  },
];
