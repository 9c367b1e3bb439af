// Full-text search of the history (hookmap search, GET /history/search):
// the user's words as literal FTS5 terms (no query syntax gets through),
// the newest matching events first, at most maxEvents of them, narrowed by
// agent, project and time in the same query, grouped into their sessions,
// each event with an excerpt of its logged text, the words marked.
import { excerpt, queryTokens, type Part } from './highlight.ts';
import { SESSION_ROW, timeBound, withModels, type Raw, type SessionRow } from './query.ts';
import { textOf } from './rows.ts';
import type { Db } from './store.ts';

/** A query longer than this, or with more words, is refused (an error the caller shows), not cut. */
export const MAX_QUERY_CHARS = 1000;
export const MAX_QUERY_WORDS = 32;

export class SearchQueryError extends Error {}

/** The user's words as an FTS5 query: each word a quoted term, all of them required (no query syntax gets through). */
export function ftsQuery(text: string): string | undefined {
  if (text.length > MAX_QUERY_CHARS) throw new SearchQueryError(`a search is at most ${MAX_QUERY_CHARS} characters (this one is ${text.length})`);
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length > MAX_QUERY_WORDS) throw new SearchQueryError(`a search is at most ${MAX_QUERY_WORDS} words (this one has ${words.length})`);
  return words.length ? words.map((w) => `"${w}"`).join(' ') : undefined;
}

export interface SearchFilter {
  agent?: string;
  project?: string;
  /** A day, an ISO time, or 7d / 12h: events at or after it. */
  since?: string;
  /** Events before it. */
  until?: string;
}

export interface SearchEvent {
  id: string;
  type: string;
  time: string;
  run: string | null;
  subject: string | null;
  /** The level the event was logged at (its `capture`): at metadata, no prompt or command text is there to show. */
  capture: string | null;
  /** Where the words are in its logged text, marked; absent when they matched only what is not shown (an id). */
  excerpt?: Part[];
  event: unknown;
}

export interface SearchHit {
  session: SessionRow;
  events: SearchEvent[];
}

type Found = { agent: string; session: string | null; rowid: number };

/** Rowids FTS5 is asked for at a time (the LIMIT is its own: it stops there), and at most this many are looked at in all. */
const PAGE = 2000;
const MAX_SCANNED = 100_000;

/**
 * The newest events matching `q` and the filters, at most `max`: the match's rowids a page at a time, each page one FTS5
 * query with its own LIMIT (FTS5 stops there; with a join above it, it would not be told the limit and would read the
 * whole match to return it backwards), the filters applied to each row by its rowid. A filter that keeps few of many
 * matches stops after MAX_SCANNED rowids looked at.
 */
function matching(db: Db, q: string, f: SearchFilter, max: number): Found[] {
  const on = ['e.rowid = m.rowid'];
  const args: unknown[] = [];
  const add = (clause: string, arg: unknown) => void (on.push(clause), args.push(arg));
  if (f.agent) add('e.agent = ?', f.agent);
  if (f.project) add('EXISTS (SELECT 1 FROM sessions s WHERE s.agent = e.agent AND s.session = e.session AND s.project = ?)', f.project);
  if (f.since) add('e.time >= ?', timeBound(f.since));
  if (f.until) add('e.time < ?', timeBound(f.until));
  // every rowid of the page comes back (the next page starts below its last), the filtered-out ones without an agent
  const page = db.prepare(
    `SELECT m.rowid AS rowid, e.agent, e.session FROM (SELECT rowid FROM fts WHERE fts MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?) m
     LEFT JOIN events e ON ${on.join(' AND ')} ORDER BY m.rowid DESC`,
  );
  const out: Found[] = [];
  let below = Number.MAX_SAFE_INTEGER;
  for (let scanned = 0; out.length < max && scanned < Math.max(MAX_SCANNED, max);) {
    const rows = page.all(q, below, PAGE, ...args) as (Omit<Found, 'agent'> & { agent: string | null })[];
    for (const r of rows) if (r.agent !== null && out.push(r as Found) >= max) break;
    if (rows.length < PAGE) break;
    scanned += rows.length;
    below = rows[rows.length - 1].rowid;
  }
  return out;
}

/** Sessions with an event whose logged text has every word of `text`, newest first, each with its matching events. */
export function search(db: Db, text: string, o: { limit?: number; perSession?: number; maxEvents?: number } & SearchFilter = {}): SearchHit[] {
  const q = ftsQuery(text);
  if (!q) return [];
  const found = matching(db, q, o, o.maxEvents ?? 2000);
  const bySession = new Map<string, number[]>();
  for (const r of found) {
    const k = `${r.agent}\u0000${r.session ?? ''}`;
    const list = bySession.get(k);
    if (list) list.push(r.rowid);
    else if (bySession.size < (o.limit ?? 50)) bySession.set(k, [r.rowid]);
  }
  const one = db.prepare(`${SESSION_ROW} WHERE s.agent = ? AND s.session = ? GROUP BY s.agent, s.session`);
  const perSession = o.perSession ?? 20;
  // the rows shown, read in one statement (a statement a row costs more than the row)
  const shown = [...bySession.values()].flatMap((r) => r.slice(0, perSession));
  const rows = new Map(
    (
      db
        .prepare('SELECT rowid, id, run, type, time, subject, line FROM events WHERE rowid IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify(shown)) as Row[]
    ).map((r) => [r.rowid, r]),
  );
  const words = queryTokens(text);
  const out: SearchHit[] = [];
  for (const [k, rowids] of bySession) {
    const [agent, session] = k.split('\u0000');
    const s = one.get(agent, session) as Raw | undefined;
    if (!s) continue;
    const events = rowids.slice(0, perSession).flatMap((rowid) => {
      const r = rows.get(rowid);
      return r ? [shownEvent(r, words)] : [];
    });
    out.push({ session: withModels(s), events });
  }
  return out;
}

type Row = { rowid: number; id: string; run: string | null; type: string; time: string; subject: string | null; line: string };

function shownEvent(r: Row, words: ReadonlySet<string>): SearchEvent {
  const event = JSON.parse(r.line) as Record<string, unknown>;
  const shown = excerpt(textOf(event), words);
  return {
    id: r.id,
    type: r.type,
    time: r.time,
    run: r.run,
    subject: r.subject,
    capture: typeof event.capture === 'string' ? event.capture : null,
    ...(shown ? { excerpt: shown } : {}),
    event,
  };
}
