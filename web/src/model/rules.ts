// The rules API of `hookmap up` (engine/app/rules-routes.ts) as the inbox
// uses it: what an "Allow always" of a pending request could be, saving
// one (the server builds it from the request itself; the page chooses only
// how much it covers), the rules in force, revoking one. The cookie signs
// every call; each state change is a JSON POST from this origin.

export interface Proposal {
  agent: string;
  tool?: string;
  command?: string;
  /** The command is one plain command (exact and prefix rules can match it). */
  plain?: boolean;
  /** The text an exact rule will hold: the parsed words, quoted so they read back the same (`kubectl 'delete ns prod'`). */
  exact?: string;
  refused?: string;
  prefixes: string[];
  paths: string[];
  project?: string;
  session: string;
  /** How the agent can persist the allow itself, when it can. */
  native?: string;
  /** The floor row this very request hits (the rule will answer the others). */
  floor?: string;
}

export interface RuleView {
  id: string;
  verb: string;
  origin: 'learned' | 'policy';
  file: string;
  scope: 'session' | 'project' | 'user';
  matches: string;
  agents?: string[];
  added?: { by: string; via: string; at: string; request?: string; native?: string };
  uses: number;
  last_used?: string;
  revocable: boolean;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: string; detail: string };

async function call<T>(path: string, body?: unknown): Promise<Result<T>> {
  try {
    const res = await fetch(path, {
      method: body === undefined ? 'GET' : 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const j = await res.json().catch(() => ({}));
    if (res.ok) return { ok: true, value: j as T };
    return { ok: false, error: String(j.error ?? res.status), detail: String(j.detail ?? res.statusText) };
  } catch {
    return { ok: false, error: 'offline', detail: 'the hookmap server does not answer' };
  }
}

export const propose = (request: string) => call<Proposal>(`/rules/propose?request=${encodeURIComponent(request)}`);

export interface AlwaysChoice {
  match: 'exact' | 'prefix' | 'tool';
  prefix?: string;
  scope: 'session' | 'project' | 'user';
  native?: boolean;
}

export const learn = (request: string, c: AlwaysChoice) =>
  call<{ rule: RuleView; existed: boolean; note?: string; native: string | null }>('/rules', { request, ...c });
export const listRules = () => call<{ rules: RuleView[]; learned_file: string | null; errors: { code: string; line: number; message: string }[] }>('/rules');
export const revokeRule = (id: string) => call<{ revoked: string }>('/rules/revoke', { id });

/** What a choice will save, in words (shown before it is saved). */
export function describeChoice(p: Proposal, c: AlwaysChoice): string {
  const what =
    c.match === 'tool'
      ? `every ${p.tool ?? 'tool'} request`
      : c.match === 'prefix'
        ? `${p.tool ?? ''} commands starting with \`${(c.prefix ?? '').trim()}\``.trim()
        : p.command !== undefined
          ? `exactly \`${p.exact ?? p.command}\``
          : `${p.tool ?? ''} on ${p.paths.join(', ')}`;
  const where = c.scope === 'session' ? 'in this session' : c.scope === 'project' ? `in ${p.project ?? 'this project'}` : 'everywhere';
  return `Allow ${what} from ${p.agent} ${where}, without asking${c.native ? `; ${p.agent} also remembers it itself` : ''}.`;
}

/** The id of the rule that answered, from attention.answered's `by` (`rule:<id>`). */
export function ruleOf(by: unknown): string | undefined {
  return typeof by === 'string' && by.startsWith('rule:') ? by.slice(5) : undefined;
}
