// A resumed session and its `~N` parts as one story in `hookmap sessions` and
// the inbox's history (issue 44 "the whole bill"): each listed session that
// belongs to a line of more than one part carries the line's totals (every
// part's tokens and cost summed) and the parts, while its own row keeps its
// own figures. The line is the kernel's lineOf; a part is `<line>` or
// `<line>~N`, found by a range on the sessions' primary key (agent, session),
// so a line costs one indexed lookup, at most one per listed row.
import type { Db } from './store.ts';
import { lineOf } from '../../core/kernel/fold/index.ts';

export interface LineTotals {
  /** The line's first session (`<id>` of `<id>~2`). */
  id: string;
  /** Every part the history holds, `<id>` first, then `~2`, `~3`, ... */
  parts: string[];
  input_tokens: number;
  output_tokens: number;
  /** null when a part's usage has no price. */
  cost_usd: number | null;
}

interface PartRow {
  session: string;
  input_tokens: number;
  output_tokens: number;
  events: number;
  priced: number;
  cost: number | null;
}

/** `<id>` before `<id>~2` before `<id>~10`. */
export const partOrder = (x: string, y: string): number => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);

/** The totals of the line each row's session belongs to, keyed `agent session`; rows alone in their line get none. */
export function lineTotals(db: Db, rows: readonly { agent: string; session: string }[]): Map<string, LineTotals> {
  // '~' is 0x7E: every `<line>~...` sorts after `<line>~` and before `<line>\x7f`
  const stmt = db.prepare(`SELECT s.session, COALESCE(SUM(u.input), 0) AS input_tokens, COALESCE(SUM(u.output), 0) AS output_tokens,
      COUNT(u.event) AS events, COUNT(u.cost) AS priced, SUM(u.cost) AS cost
    FROM sessions s LEFT JOIN usage u ON u.agent = s.agent AND u.session = s.session
    WHERE s.agent = ? AND (s.session = ? OR (s.session > ? AND s.session < ?)) GROUP BY s.session`);
  const byLine = new Map<string, LineTotals | undefined>();
  const out = new Map<string, LineTotals>();
  for (const r of rows) {
    const id = lineOf(r.session);
    const key = `${r.agent} ${id}`;
    if (!byLine.has(key)) {
      const parts = (stmt.all(r.agent, id, `${id}~`, `${id}\x7f`) as PartRow[]).filter((p) => lineOf(p.session) === id);
      byLine.set(
        key,
        parts.length < 2
          ? undefined
          : {
              id,
              parts: parts.map((p) => p.session).sort(partOrder),
              input_tokens: parts.reduce((n, p) => n + p.input_tokens, 0),
              output_tokens: parts.reduce((n, p) => n + p.output_tokens, 0),
              cost_usd: parts.some((p) => p.priced < p.events) ? null : Math.round(parts.reduce((n, p) => n + (p.cost ?? 0), 0) * 1e9) / 1e9,
            },
      );
    }
    const line = byLine.get(key);
    if (line) out.set(`${r.agent} ${r.session}`, line);
  }
  return out;
}
