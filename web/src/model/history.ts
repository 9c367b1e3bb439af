// The history routes of `hookmap up` (engine/app/history-routes.ts) as the
// inbox reads them: sessions from the database (every logged one, paged,
// not only what the relay's buffer holds), search, usage grouped.

export interface HistorySession {
  agent: string;
  session: string;
  project: string | null;
  started: string | null;
  last: string;
  ended: string | null;
  state: string;
  runs: number;
  tools: number;
  attention: number;
  models: string[];
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cost_usd: number | null;
  /** A resumed session's line (more than one part): every part summed, the parts named (engine/person/history/lines.ts). */
  line?: { id: string; parts: string[]; input_tokens: number; output_tokens: number; cost_usd: number | null };
}

export interface UsageGroup {
  key: string | null;
  sessions: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

/** A piece of an excerpt: plain text, `mark` when it is a searched word (rendered as text, never as markup). */
export interface ExcerptPart {
  text: string;
  mark?: true;
}

export interface SearchHit {
  session: HistorySession;
  events: { id: string; type: string; time: string; subject: string | null; capture: string | null; excerpt?: ExcerptPart[] }[];
}

export interface HistoryFilter {
  agent?: string;
  project?: string;
  since?: string;
  until?: string;
}

async function get<T>(path: string): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
  const j = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(String((j as { detail?: string }).detail ?? res.statusText));
  return j as T;
}

const qs = (o: Record<string, string | undefined>) =>
  Object.entries(o)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`)
    .join('&');

export const historySessions = (f: HistoryFilter & { before?: string }) =>
  get<{ sessions: HistorySession[]; more: boolean; projects: string[]; agents: string[] }>(`/history/sessions?${qs({ ...f, limit: '25' })}`);
export const historySearch = (q: string, f: HistoryFilter = {}) => get<{ hits: SearchHit[] }>(`/history/search?${qs({ q, ...f })}`);
export const historyUsage = (by: 'day' | 'agent', since?: string) => get<{ groups: UsageGroup[] }>(`/history/usage?${qs({ by, since })}`);

export const tokens = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(n));
export const usd = (v: number | null): string => (v === null ? 'no price' : `$${v.toFixed(v < 1 ? 4 : 2)}`);
