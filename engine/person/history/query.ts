// Questions the history answers (hookmap sessions | search | usage, the
// inbox's history routes): sessions filtered and paged, full-text search
// (FTS5: search.ts) with the matching events, token usage and cost grouped.
import type { Db } from './store.ts';
import { lineOf } from '../../core/kernel/fold/index.ts';
import { lineTotals, partOrder, type LineTotals } from './lines.ts';

export interface SessionFilter {
  agent?: string;
  project?: string;
  /** ISO time or date: sessions active since then. */
  since?: string;
  until?: string;
  state?: string;
  /** Paging: sessions whose last event is before this time. */
  before?: string;
  limit?: number;
}

export interface SessionRow {
  agent: string;
  session: string;
  project: string | null;
  started: string | null;
  last: string;
  ended: string | null;
  state: string;
  runs: number;
  events: number;
  tools: number;
  attention: number;
  models: string[];
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number | null;
  /** A resumed session's line (more than one part): every part's tokens and cost summed, the parts named (lines.ts). */
  line?: LineTotals;
}

const USAGE_COLS = `COALESCE(SUM(u.input), 0) AS input_tokens, COALESCE(SUM(u.output), 0) AS output_tokens,
  COALESCE(SUM(u.cache_read), 0) AS cache_read_tokens, COALESCE(SUM(u.cache_write), 0) AS cache_write_tokens,
  COALESCE(SUM(u.reasoning), 0) AS reasoning_tokens,
  CASE WHEN COUNT(u.event) = 0 OR COUNT(u.cost) < COUNT(u.event) THEN NULL ELSE ROUND(SUM(u.cost), 9) END AS cost_usd,
  GROUP_CONCAT(DISTINCT u.model) AS models`;

/** WHERE clauses and their arguments, in step. */
function clauses() {
  const where: string[] = [];
  const args: unknown[] = [];
  return { where, args, add: (clause: string, arg: unknown) => void (where.push(clause), args.push(arg)) };
}

export type Raw = Omit<SessionRow, 'models'> & { models: string | null };
export const withModels = (r: Raw): SessionRow => ({ ...r, models: r.models ? r.models.split(',').sort() : [] });

/** One session's row with its usage summed (a WHERE and GROUP BY s.agent, s.session follow). */
export const SESSION_ROW = `SELECT s.agent, s.session, s.project, s.started, s.last, s.ended, s.state, s.runs, s.events, s.tools, s.attention, ${USAGE_COLS}
    FROM sessions s LEFT JOIN usage u ON u.agent = s.agent AND u.session = s.session`;

/** A day (YYYY-MM-DD) or a time as the lower bound of an ISO time column. */
export function timeBound(v: string): string {
  const rel = /^(\d+)([dh])$/.exec(v);
  if (rel) return new Date(Date.now() - Number(rel[1]) * (rel[2] === 'd' ? 86_400_000 : 3_600_000)).toISOString();
  if (Number.isNaN(Date.parse(v))) throw new Error(`not a date or time: ${v} (YYYY-MM-DD, an ISO time, or 7d / 12h)`);
  return new Date(v).toISOString();
}

export function sessions(db: Db, f: SessionFilter = {}): SessionRow[] {
  const { where, args, add } = clauses();
  if (f.agent) add('s.agent = ?', f.agent);
  if (f.project) add('s.project = ?', f.project);
  if (f.state) add('s.state = ?', f.state);
  if (f.since) add('s.last >= ?', timeBound(f.since));
  if (f.until) add('s.last < ?', timeBound(f.until));
  if (f.before) add('s.last < ?', f.before);
  const sql = `${SESSION_ROW}
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY s.agent, s.session ORDER BY s.last DESC LIMIT ?`;
  const rows = (db.prepare(sql).all(...args, f.limit ?? 50) as Raw[]).map(withModels);
  const lines = lineTotals(db, rows);
  return rows.map((r) => {
    const line = lines.get(`${r.agent} ${r.session}`);
    return line ? { ...r, line } : r;
  });
}

export type UsageBy = 'agent' | 'project' | 'day' | 'model' | 'session';
export const USAGE_BY: UsageBy[] = ['agent', 'project', 'day', 'model', 'session'];

export interface UsageGroup {
  key: string | null;
  sessions: number;
  responses: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number | null;
  /** By session: the sessions summed into the group, a resumed session's `~N` parts beside it (the kernel's lineOf). */
  parts?: string[];
  /** By session: what its sub-agents spent (counted in the group's figures too), each apart. */
  subagents?: SubagentUsage[];
}

export interface SubagentUsage {
  part: string;
  responses: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
}

/** The session's line (a resumed `<id>~2` is `<id>`'s), in SQL: the kernel's one definition, registered per connection. */
const LINE_FN = 'hookmap_line';
const lined = new WeakSet<Db>();
function withLine(db: Db): Db {
  if (!lined.has(db)) {
    db.function(LINE_FN, { deterministic: true }, (s: unknown) => (typeof s === 'string' ? lineOf(s) : s));
    lined.add(db);
  }
  return db;
}

/**
 * Token usage and cost grouped by agent, project, day (UTC), model or session, since a time. By session, a resumed
 * session and its `~N` parts are one story (one group keyed by the line, its parts listed).
 */
export function usage(db: Db, o: { since?: string; by?: UsageBy; agent?: string } = {}): UsageGroup[] {
  const by = o.by ?? 'agent';
  const key = { agent: 'u.agent', project: 's.project', day: 'substr(u.time, 1, 10)', model: 'u.model', session: `u.agent || ' ' || ${LINE_FN}(u.session)` }[
    by
  ];
  const { where, args, add } = clauses();
  if (o.since) add('u.time >= ?', timeBound(o.since));
  if (o.agent) add('u.agent = ?', o.agent);
  const sql = `SELECT ${key} AS key, COUNT(DISTINCT u.agent || ' ' || u.session) AS sessions, COUNT(*) AS responses,
    SUM(u.input) AS input_tokens, SUM(u.output) AS output_tokens, SUM(u.cache_read) AS cache_read_tokens, SUM(u.cache_write) AS cache_write_tokens,
    SUM(u.reasoning) AS reasoning_tokens, CASE WHEN COUNT(u.cost) < COUNT(*) THEN NULL ELSE ROUND(SUM(u.cost), 9) END AS cost_usd
    ${by === 'session' ? ', GROUP_CONCAT(DISTINCT u.session) AS parts' : ''}
    FROM usage u LEFT JOIN sessions s ON s.agent = u.agent AND s.session = u.session
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY key ORDER BY key`;
  const rows = withLine(db)
    .prepare(sql)
    .all(...args) as (UsageGroup & { parts?: string | null })[];
  if (by !== 'session') return rows as UsageGroup[];
  // what each sub-agent spent, apart (its usage is in the group's figures already)
  const subs = withLine(db)
    .prepare(
      `SELECT ${key} AS key, u.part AS part, COUNT(*) AS responses, SUM(u.input) AS input_tokens, SUM(u.output) AS output_tokens,
        SUM(u.cache_read) AS cache_read_tokens, SUM(u.cache_write) AS cache_write_tokens,
        CASE WHEN COUNT(u.cost) < COUNT(*) THEN NULL ELSE ROUND(SUM(u.cost), 9) END AS cost_usd
      FROM usage u LEFT JOIN sessions s ON s.agent = u.agent AND s.session = u.session
      WHERE ${[...where, 'u.part IS NOT NULL'].join(' AND ')} GROUP BY key, u.part ORDER BY key, u.part`,
    )
    .all(...args) as (SubagentUsage & { key: string })[];
  const byKey = new Map<string, SubagentUsage[]>();
  for (const { key: k, ...x } of subs) byKey.set(k, [...(byKey.get(k) ?? []), x]);
  return rows.map((r) => {
    const sub = byKey.get(String(r.key));
    return { ...r, parts: (r.parts ?? '').split(',').filter(Boolean).sort(partOrder), ...(sub ? { subagents: sub } : {}) };
  });
}

/** Per session, the usage JSON `hookmap usage --json` prints. */
export function usageSessions(db: Db, o: { since?: string; agent?: string } = {}) {
  const { where, args, add } = clauses();
  where.push('EXISTS (SELECT 1 FROM usage x WHERE x.agent = s.agent AND x.session = s.session)');
  if (o.since) add('s.last >= ?', timeBound(o.since));
  if (o.agent) add('s.agent = ?', o.agent);
  const sql = `SELECT s.agent, s.session, s.project, ${USAGE_COLS} FROM sessions s LEFT JOIN usage u ON u.agent = s.agent AND u.session = s.session
    WHERE ${where.join(' AND ')} GROUP BY s.agent, s.session ORDER BY s.last DESC`;
  return (db.prepare(sql).all(...args) as (Raw & { project: string | null })[]).map((r) => ({
    agent: r.agent,
    session: r.session,
    project: r.project,
    models: r.models ? r.models.split(',').sort() : [],
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    cache_read_tokens: r.cache_read_tokens,
    cache_write_tokens: r.cache_write_tokens,
    reasoning_tokens: r.reasoning_tokens,
    cost_usd: r.cost_usd,
  }));
}
