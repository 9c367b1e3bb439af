// Hooks that failed open while hookmap was down (the engine's
// GET /inbox/api/failed-open: how many firings of which agent got no
// answer, when, and why): the words of the home view's banner, and whether
// it shows (a person who dismissed it sees it again only when a newer
// firing was missed). Pure: the page passes its clock format and storage.

export interface MissedAgent {
  agent: string;
  count: number;
  last: string;
  why: { down?: number; timeout?: number; error?: number };
}

export interface Missed {
  count: number;
  first: string | null;
  last: string | null;
  agents: MissedAgent[];
}

export const DISMISSED_KEY = 'hookmap-inbox-missed-dismissed';

const nonNeg = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.floor(x) : 0);
const iso = (x: unknown): string | null => (typeof x === 'string' && Number.isFinite(Date.parse(x)) ? x : null);

/** The route's JSON, checked: anything unexpected reads as nothing missed. */
export function parseMissed(body: unknown): Missed | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const agents: MissedAgent[] = (Array.isArray(b.agents) ? b.agents : [])
    .filter((a): a is Record<string, any> => !!a && typeof a === 'object' && typeof a.agent === 'string' && nonNeg(a.count) > 0)
    .map((a) => ({
      agent: a.agent,
      count: nonNeg(a.count),
      last: iso(a.last) ?? '',
      why: { down: nonNeg(a.why?.down), timeout: nonNeg(a.why?.timeout), error: nonNeg(a.why?.error) },
    }));
  return { count: nonNeg(b.count), first: iso(b.first), last: iso(b.last), agents };
}

/** Shown when something was missed and the person has not dismissed this `last` (or a later one). */
export function showMissed(m: Missed | undefined, dismissed: string | null): m is Missed {
  if (!m || m.count <= 0) return false;
  if (!dismissed || !m.last) return true;
  return Date.parse(m.last) > Date.parse(dismissed);
}

/** "6 hooks of claude-code got no answer from hookmap between 09:02 and 09:40 (hookmap was not running): their events were not recorded" */
export function missedText(m: Missed, clock: (iso: string) => string): string {
  const agents = [...m.agents].sort((a, b) => b.count - a.count || (a.agent < b.agent ? -1 : 1));
  const whose = agents.length
    ? agents.map((a, i) => `${i === 0 ? `${a.count} ${a.count === 1 ? 'hook' : 'hooks'}` : a.count} of ${a.agent}`)
    : [`${m.count} ${m.count === 1 ? 'hook' : 'hooks'}`];
  const who = whose.length > 1 ? `${whose.slice(0, -1).join(', ')} and ${whose[whose.length - 1]}` : whose[0];
  const first = m.first ? clock(m.first) : undefined;
  const last = m.last ? clock(m.last) : undefined;
  const when = first && last && first !== last ? ` between ${first} and ${last}` : last ? ` at ${last}` : '';
  const why = whyText(agents);
  return `${who} got no answer from hookmap${when}${why ? ` (${why})` : ''}: ${m.count === 1 ? 'its events were' : 'their events were'} not recorded`;
}

const WHY: Record<keyof MissedAgent['why'], string> = {
  down: 'hookmap was not running',
  timeout: 'hookmap did not answer in time',
  error: 'hookmap answered with an error',
};

function whyText(agents: MissedAgent[]): string {
  const sum = { down: 0, timeout: 0, error: 0 };
  for (const a of agents) for (const k of ['down', 'timeout', 'error'] as const) sum[k] += a.why[k] ?? 0;
  const kinds = (['down', 'timeout', 'error'] as const).filter((k) => sum[k] > 0);
  if (kinds.length === 1) return WHY[kinds[0]];
  return kinds.map((k) => `${sum[k]}: ${WHY[k]}`).join('; ');
}
