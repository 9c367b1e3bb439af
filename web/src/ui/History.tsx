// The history view (#/history): a search box (each matching event with an
// excerpt of its logged text, the words marked), agent, project and date
// filters over both the sessions and the search,
// sessions paged from the history database (older ones too, not only what
// the relay still holds) with their tokens and cost, and a small usage view:
// tokens per day as bars, tokens and cost per agent, and the budgets beside
// them (Budgets.tsx).
import { useEffect, useRef, useState } from 'preact/hooks';
import { useApp } from './context.ts';
import { ContinueForm } from './NewSession.tsx';
import { Budgets } from './Budgets.tsx';
import { launchCatalog } from '../model/launch.ts';
import {
  historySearch,
  historySessions,
  historyUsage,
  tokens,
  usd,
  type ExcerptPart,
  type HistoryFilter,
  type HistorySession,
  type SearchHit,
  type UsageGroup,
} from '../model/history.ts';

/** Where the words are in an event's logged text: each part rendered as text (an event can hold any markup), the words marked. */
function Excerpt({ parts }: { parts: ExcerptPart[] }) {
  return <q class="hist-excerpt">{parts.map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : p.text))}</q>;
}

function Row({ s, hit, resumable }: { s: HistorySession; hit?: SearchHit; resumable?: boolean }) {
  return (
    <li class="hist-row" data-hist-session={s.session}>
      <div class="hist-head">
        <a href={`#/s/${encodeURIComponent(s.session)}`}>{s.project ?? s.session.slice(0, 12)}</a>
        <span class="hist-agent">{s.agent}</span>
        <span class={`hist-state hist-${s.state}`}>{s.state}</span>
        <time dateTime={s.last}>{s.last.slice(0, 16).replace('T', ' ')}</time>
      </div>
      <div class="hist-nums" data-tokens={s.input_tokens + s.output_tokens}>
        {s.runs} runs · {s.tools} tools · {tokens(s.input_tokens)} in / {tokens(s.output_tokens)} out · <span data-cost>{usd(s.cost_usd)}</span>
        {s.models.length ? ` · ${s.models.join(', ')}` : ''}
      </div>
      {s.line ? (
        <div class="hist-line muted" data-line={s.line.id} data-line-parts={s.line.parts.length} data-line-tokens={s.line.input_tokens + s.line.output_tokens}>
          one story of {s.line.parts.length} parts ({s.line.parts.join(', ')}): {tokens(s.line.input_tokens)} in / {tokens(s.line.output_tokens)} out ·{' '}
          {usd(s.line.cost_usd)}
        </div>
      ) : null}
      {resumable ? <ContinueForm agent={s.agent} session={s.session} project={s.project} /> : null}
      {hit ? (
        <ul class="hist-hits">
          {hit.events.map((e) => (
            <li key={e.id} data-hit-event={e.id}>
              {e.time.slice(11, 19)} {e.type}
              {e.subject ? ` ${e.subject}` : ''}
              {e.excerpt ? <Excerpt parts={e.excerpt} /> : null}
              {e.capture === 'metadata' ? (
                <span class="muted" data-metadata-only>
                  {' '}
                  · captured at metadata: no prompt, command or reply text was logged to show
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function UsageChart({ days, agents }: { days: UsageGroup[]; agents: UsageGroup[] }) {
  const max = Math.max(1, ...days.map((d) => d.input_tokens + d.output_tokens));
  return (
    <section class="usage" aria-label="Usage">
      <h3>Tokens per day</h3>
      <div class="bars" role="img" aria-label={`tokens per day over ${days.length} days`}>
        {days.slice(-30).map((d) => (
          <div
            class="bar"
            key={d.key ?? ''}
            title={`${d.key}: ${tokens(d.input_tokens)} in, ${tokens(d.output_tokens)} out, ${usd(d.cost_usd)}`}
            data-day={d.key}
          >
            <span style={{ height: `${Math.round(((d.input_tokens + d.output_tokens) / max) * 100)}%` }} />
            <small>{(d.key ?? '').slice(5)}</small>
          </div>
        ))}
      </div>
      <table class="usage-agents">
        <thead>
          <tr>
            <th>agent</th>
            <th>sessions</th>
            <th>in</th>
            <th>out</th>
            <th>cost</th>
          </tr>
        </thead>
        <tbody>
          {agents.map((a) => (
            <tr key={a.key ?? ''} data-usage-agent={a.key}>
              <td>{a.key}</td>
              <td>{a.sessions}</td>
              <td>{tokens(a.input_tokens)}</td>
              <td>{tokens(a.output_tokens)}</td>
              <td>{usd(a.cost_usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function HistoryView() {
  const { me } = useApp();
  // the agents hookmap can continue a session of (only for a principal that may start one)
  const [resumable, setResumable] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    if (!me.scopes.includes('control')) return;
    launchCatalog().then(
      (c) => setResumable(new Set(c.agents.filter((a) => a.resume).map((a) => a.agent))),
      () => undefined,
    );
  }, []);
  const [q, setQ] = useState('');
  const [agent, setAgent] = useState('');
  const [project, setProject] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [agents, setAgents] = useState<string[]>([]);
  const filter = (): HistoryFilter => ({ agent: agent || undefined, project: project || undefined, since: since || undefined, until: until || undefined });
  const [rows, setRows] = useState<HistorySession[]>([]);
  const [hits, setHits] = useState<SearchHit[] | undefined>();
  const [more, setMore] = useState(false);
  const [projects, setProjects] = useState<string[]>([]);
  const [usage, setUsage] = useState<{ days: UsageGroup[]; agents: UsageGroup[] }>({ days: [], agents: [] });
  const [error, setError] = useState<string | undefined>();
  // a filter changed twice quickly: only the latest answer is shown (an earlier one may come back last)
  const latest = useRef({ load: 0, find: 0 });
  const load = async (before?: string) => {
    const n = ++latest.current.load;
    try {
      const r = await historySessions({ ...filter(), before });
      if (n !== latest.current.load) return;
      setRows((old) => (before ? [...old, ...r.sessions] : r.sessions));
      setMore(r.more);
      setProjects(r.projects);
      setAgents(r.agents);
      const [d, a] = await Promise.all([historyUsage('day', since || undefined), historyUsage('agent', since || undefined)]);
      setUsage({ days: d.groups, agents: a.groups });
      setError(undefined);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const find = async () => {
    const n = ++latest.current.find;
    if (!q.trim()) return setHits(undefined);
    try {
      const r = await historySearch(q, filter());
      if (n !== latest.current.find) return;
      setHits(r.hits);
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  // the filters narrow the sessions listed and, while one is shown, the search's results
  useEffect(() => {
    void load();
    if (hits) void find();
  }, [agent, project, since, until]);
  const search = (e: Event) => {
    e.preventDefault();
    void find();
  };
  return (
    <section class="history" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <form class="hist-search" role="search" onSubmit={search}>
        <input
          type="search"
          name="q"
          placeholder="Search what the logs hold (tool names, ids; prompts and commands when capture lets them in)"
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
          aria-label="Search the history"
        />
        <button class="btn" type="submit">
          Search
        </button>
      </form>
      <div class="hist-filters">
        <label>
          Agent{' '}
          <select name="agent" value={agent} onChange={(e) => setAgent((e.target as HTMLSelectElement).value)}>
            <option value="">all</option>
            {agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Project{' '}
          <select name="project" value={project} onChange={(e) => setProject((e.target as HTMLSelectElement).value)}>
            <option value="">all</option>
            {projects.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          Since <input type="date" name="since" value={since} onInput={(e) => setSince((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Before <input type="date" name="until" value={until} onInput={(e) => setUntil((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      {error ? <p class="error">{error}</p> : null}
      <UsageChart days={usage.days} agents={usage.agents} />
      <Budgets refresh={usage} />
      {hits ? (
        <>
          <h3>
            {hits.length} session{hits.length === 1 ? '' : 's'} match “{q}”
          </h3>
          <ul class="hist-list" data-results="search">
            {hits.map((h) => (
              <Row key={h.session.agent + h.session.session} s={h.session} hit={h} resumable={resumable.has(h.session.agent)} />
            ))}
          </ul>
        </>
      ) : (
        <ul class="hist-list" data-results="sessions">
          {rows.map((s) => (
            <Row key={s.agent + s.session} s={s} resumable={resumable.has(s.agent)} />
          ))}
        </ul>
      )}
      {!hits && more ? (
        <button class="btn" type="button" data-older onClick={() => void load(rows.at(-1)?.last)}>
          Older sessions
        </button>
      ) : null}
    </section>
  );
}
