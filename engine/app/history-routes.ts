// The history on `hookmap up`'s port, for the inbox (docs/usage.md):
//
//   GET /history/sessions?agent&project&since&until&state&before&limit   sessions, newest first, paged (before = a `last`)
//   GET /history/search?q=TEXT&agent&project&since&until                matching sessions, each with its matching events
//   GET /history/usage?since&by=agent|project|day|model                 tokens and cost grouped
//   GET /history/status                                                 the indexer (a process):      running, restarting, failed
//
// Read scope (a token or the inbox's cookie). Rows carry counts, ids, types,
// tool names, project labels and costs, never an event's data; a search's
// events carry an excerpt of their logged text around the words (as plain
// parts, the words marked), which a reader of the stream reads whole anyway.
// The database is indexed in a process of its own (history.ts), never in a hook's path.
import type { FastifyInstance } from 'fastify';
import type { Relay } from '../runtime/relay/index.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Authorizer } from '../runtime/auth/authorizer.ts';
import { can } from '../runtime/auth/principal.ts';
import { HistoryService, historyFile, historyRoots } from '../person/history/history.ts';
import { sessions, usage, USAGE_BY, type UsageBy } from '../person/history/query.ts';
import { search } from '../person/history/search.ts';
import { lineTotals } from '../person/history/lines.ts';
import { forPerson } from '../person/history/for-person.ts';
import type { People } from '../runtime/auth/people.ts';
import { loadPriceFile, PriceBook, PRICE_TABLE } from '../runtime/usage/prices.ts';

export const PRICES_FILE = 'prices.yaml';

/** The operator's prices ($HOOKMAP_HOME/prices.yaml) over the table; a broken file is said and the table alone used. */
export function pricesOf(home: string, say: (l: string) => void): PriceBook {
  const file = join(home, PRICES_FILE);
  if (!existsSync(file)) return new PriceBook();
  try {
    const own = loadPriceFile(file);
    say(`prices: ${own.size} model rate(s) from ${file} over ${PRICE_TABLE.name} ${PRICE_TABLE.version}`);
    return new PriceBook(own);
  } catch (e) {
    say(`prices: ${(e as Error).message}: IGNORED, the table alone prices usage`);
    return new PriceBook();
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

export interface HistoryHandle {
  open: () => void;
  close: () => Promise<void>;
  /** The history's service, once open (tests reach its indexer through it). */
  service: () => HistoryService | undefined;
}

/**
 * The history routes; the database (better-sqlite3, then indexing in the background) opens at open(), which `up` calls once
 * every daemon's link is up, or at the first history request before that: no part of a start.
 */
export function startHistory(
  app: FastifyInstance,
  o: { home: string; logRoot: string; auth: Authorizer; say: (l: string) => void; relay?: Pick<Relay, 'subscribe'>; people?: Pick<People, 'personOf'> },
): HistoryHandle {
  let h: HistoryService | undefined;
  let closed = false;
  let fleet: { close(): void } | undefined;
  const service = (): HistoryService => {
    if (closed) throw new Error('hookmap is stopping');
    if (!h) {
      h = new HistoryService(historyFile(o.home), historyRoots(o.home, o.logRoot), { say: o.say }).start();
      if (o.relay) fleet = followStream(o.relay, h, o.say);
    }
    return h;
  };
  const persons = new WeakMap<object, string | undefined>(); // each request's person (people:), for what search shows
  app.register(async (scope) => {
    scope.addHook('onRequest', async (req, reply) => {
      const r = o.auth.authenticate(req.raw);
      if (!r.ok) return reply.code(401).send({ error: 'unauthorized', detail: 'present the hookmap token (Authorization: Bearer) or sign in to the inbox' });
      if (!can(r.principal, 'read')) return reply.code(403).send({ error: 'forbidden', detail: `${r.principal.name} cannot read the history` });
      persons.set(req, o.people?.personOf(r.principal.name));
    });
    const bad = (reply: { code: (n: number) => { send: (b: unknown) => unknown } }, e: unknown) =>
      reply.code(400).send({ error: 'bad-request', detail: (e as Error).message });
    scope.get('/history/sessions', async (req, reply) => {
      const q = req.query as Record<string, unknown>;
      const limit = Math.min(200, Math.max(1, Number(q.limit) || 50));
      try {
        const rows = sessions(service().db, {
          agent: str(q.agent),
          project: str(q.project),
          since: str(q.since),
          until: str(q.until),
          state: str(q.state),
          before: str(q.before),
          limit,
        });
        const distinct = (col: 'project' | 'agent') =>
          (service().db.prepare(`SELECT DISTINCT ${col} AS v FROM sessions WHERE ${col} IS NOT NULL ORDER BY ${col}`).all() as { v: string }[]).map((r) => r.v);
        return { sessions: rows, more: rows.length === limit, projects: distinct('project'), agents: distinct('agent') };
      } catch (e) {
        return bad(reply, e);
      }
    });
    scope.get('/history/search', async (req, reply) => {
      const p = req.query as Record<string, unknown>;
      const q = str(p.q) ?? '';
      try {
        const f = { agent: str(p.agent), project: str(p.project), since: str(p.since), until: str(p.until) };
        const found = forPerson(service().db, search(service().db, q, { limit: 50, ...f }), persons.get(req));
        const lines = lineTotals(
          service().db,
          found.map((x) => x.session),
        );
        const hits = found.map((x) => {
          const line = lines.get(`${x.session.agent} ${x.session.session}`);
          return { session: line ? { ...x.session, line } : x.session, events: x.events.map(({ event: _, ...e }) => e) };
        });
        return { q, hits };
      } catch (e) {
        return bad(reply, e);
      }
    });
    scope.get('/history/status', async () => ({ indexer: service().status() }));
    scope.get('/history/usage', async (req, reply) => {
      const q = req.query as Record<string, unknown>;
      const by = (USAGE_BY as string[]).includes(String(q.by)) ? (q.by as UsageBy) : 'day';
      try {
        return { by, groups: usage(service().db, { since: str(q.since), by }), prices: PRICE_TABLE };
      } catch (e) {
        return bad(reply, e);
      }
    });
  });
  return {
    open: () => {
      try {
        service();
      } catch (e) {
        if (!closed) o.say(`history: cannot open ${historyFile(o.home)}: ${(e as Error).message} (tried again at the next history request)`);
      }
    },
    close: async () => {
      closed = true;
      fleet?.close();
      await h?.close();
    },
    service: () => h,
  };
}

const STREAM_BATCH_MS = 250;
const STREAM_MAX_QUEUED = 20_000;

/**
 * The history of every machine the stream reaches (a fleet on a backplane: `hookmap sessions` on one lists the
 * others'), indexed from the relay in batches off any hook's path. The sessions' own logs stay where they are.
 */
function followStream(relay: Pick<Relay, 'subscribe'>, h: HistoryService, say: (l: string) => void): { close(): void } {
  let queue: { line: string; agent: string }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let dropped = 0;
  const flush = () => {
    timer = undefined;
    const batch = queue;
    queue = [];
    dropped = 0;
    try {
      h.indexLines(batch);
    } catch (e) {
      say(`history: indexing the stream failed: ${(e as Error).message}`);
    }
  };
  const sub = relay.subscribe({ from: 'all', live: true }, (ev, raw) => {
    if (ev.seq === undefined || typeof ev.agent !== 'string') return; // a control query's answer: never indexed (rows.ts)
    if (queue.length >= STREAM_MAX_QUEUED) {
      if (dropped++ === 0) say(`history: more than ${STREAM_MAX_QUEUED} events wait to be indexed: the stream's are skipped until it catches up`);
      return;
    }
    queue.push({ line: raw, agent: ev.agent });
    timer ??= setTimeout(flush, STREAM_BATCH_MS);
    timer.unref?.();
  });
  return {
    close: () => {
      sub.close();
      if (timer) clearTimeout(timer);
    },
  };
}
