// Starting an agent session from the inbox (#/new), and "Continue" on a past
// session (History): the choices are what `up` offers (GET /launch: agents
// with a launch block, the allowed projects each is wired for, the
// descriptor's closed option lists); the server checks everything again and
// audits the start with the principal and the surface. After a start the run
// is followed until its session is on the stream, then the session opens.
import { useEffect, useState } from 'preact/hooks';
import { followRun, launchCatalog, startRun, type LaunchAgent, type LaunchCatalog, type LaunchRun, type StartRequest } from '../model/launch.ts';

/** The header's links; New session only for a principal that may start one. */
export function NavLinks({ route, control }: { route: string; control: boolean }) {
  const link = (name: string, label: string) => (
    <a class={`btn btn-quiet${route === name ? ' current' : ''}`} href={`#/${name}`} data-nav={name}>
      {label}
    </a>
  );
  return (
    <>
      {control ? link('new', 'New session') : null}
      {link('history', 'History')}
      {link('rules', 'Rules')}
      {link('devices', 'Devices')}
    </>
  );
}

/** A run on its way to a session: its state in words, and the session once known. */
/** What a Start or Continue came to: why it was refused, or the run it started. */
function StartOutcome({ s }: { s: ReturnType<typeof useStart> }) {
  return (
    <>
      {s.error ? (
        <p class="error" role="alert" data-launch-error>
          {s.error}
        </p>
      ) : null}
      {s.run ? <RunStatus run={s.run} /> : null}
    </>
  );
}

function RunStatus({ run }: { run: LaunchRun }) {
  const where = run.session ? (
    <a href={`#/s/${encodeURIComponent(run.session)}`} data-run-session={run.session}>
      open the session
    </a>
  ) : null;
  const words =
    run.state === 'starting' || (run.state === 'running' && !run.session)
      ? `${run.agent} is starting: waiting for its first hook`
      : run.state === 'running'
        ? `${run.agent} is running`
        : `${run.agent} ${run.state}${run.exit !== undefined && run.exit !== null ? ` (exit ${run.exit})` : ''}${run.error ? `: ${run.error}` : ''}`;
  return (
    <p class="run-status" role="status" data-run={run.id} data-run-state={run.state}>
      {words}
      {where ? <> · {where}</> : null}
      {run.tmux ? (
        <>
          {' '}
          · at the desk: <code>{run.tmux.attach}</code>
        </>
      ) : null}
    </p>
  );
}

/** Start, then follow; opens the session once the agent's first hook named it. */
function useStart(): { run?: LaunchRun; error?: string; busy: boolean; start: (r: StartRequest) => Promise<void> } {
  const [run, setRun] = useState<LaunchRun | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const start = async (r: StartRequest) => {
    setBusy(true);
    setError(undefined);
    try {
      const started = await startRun(r);
      setRun(started);
      const last = await followRun(started.id, setRun);
      if (last.session) location.hash = `#/s/${encodeURIComponent(last.session)}`;
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { run, error, busy, start };
}

function Options({ agent, chosen, set }: { agent: LaunchAgent; chosen: Record<string, string>; set: (c: Record<string, string>) => void }) {
  return (
    <>
      {agent.options.map((o) => (
        <label key={o.name} class="launch-field">
          {o.name.replace(/_/g, ' ')}
          {o.values ? (
            <select
              name={`option-${o.name}`}
              value={chosen[o.name] ?? ''}
              onChange={(e) => set({ ...chosen, [o.name]: (e.target as HTMLSelectElement).value })}
            >
              <option value="">its default</option>
              {o.values.map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
            </select>
          ) : (
            <input
              type="text"
              name={`option-${o.name}`}
              value={chosen[o.name] ?? ''}
              pattern={o.pattern}
              placeholder="its default"
              onInput={(e) => set({ ...chosen, [o.name]: (e.target as HTMLInputElement).value })}
            />
          )}
          {o.doc ? <small>{o.doc}</small> : null}
        </label>
      ))}
    </>
  );
}

export function NewSessionView() {
  const [cat, setCat] = useState<LaunchCatalog | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [agentId, setAgentId] = useState('');
  const [project, setProject] = useState('');
  const [prompt, setPrompt] = useState('');
  const [mode, setMode] = useState<'headless' | 'tmux'>('headless');
  const [options, setOptions] = useState<Record<string, string>>({});
  const s = useStart();
  useEffect(() => {
    launchCatalog().then(
      (c) => {
        setCat(c);
        const first = c.agents.find((a) => a.projects.length) ?? c.agents[0];
        if (first) {
          setAgentId(first.agent);
          setProject(first.projects[0] ?? '');
        }
      },
      (e: Error) => setLoadError(e.message),
    );
  }, []);
  const agent = cat?.agents.find((a) => a.agent === agentId);
  const pick = (id: string) => {
    const a = cat?.agents.find((x) => x.agent === id);
    setAgentId(id);
    setOptions({});
    setMode('headless');
    setProject(a?.projects.includes(project) ? project : (a?.projects[0] ?? ''));
  };
  const submit = (e: Event) => {
    e.preventDefault();
    if (!agent || !project || !prompt.trim()) return;
    const chosen = Object.fromEntries(Object.entries(options).filter(([, v]) => v));
    void s.start({ agent: agent.agent, project, prompt, mode, ...(Object.keys(chosen).length ? { options: chosen } : {}) });
  };
  return (
    <section class="launch" aria-labelledby="launch-title">
      <h2 id="launch-title">New session</h2>
      {loadError ? <p class="error">{loadError}</p> : null}
      {cat && !cat.agents.length ? <p class="empty">No agent this hookmap runs can be started from here (none has a launch block).</p> : null}
      {cat && cat.agents.length && !cat.projects.length ? (
        <p class="empty">
          No project is allowed yet: <code>hookmap setup &lt;agent&gt; --project --dir D</code> records one, or list it under <code>launch.projects</code> in
          the up config.
        </p>
      ) : null}
      {agent ? (
        <form class="launch-form" onSubmit={submit} data-launch-form>
          <label class="launch-field">
            Agent
            <select name="agent" value={agentId} onChange={(e) => pick((e.target as HTMLSelectElement).value)}>
              {cat!.agents.map((a) => (
                <option key={a.agent} value={a.agent}>
                  {a.name}
                </option>
              ))}
            </select>
          </label>
          <label class="launch-field">
            Project
            <select name="project" value={project} onChange={(e) => setProject((e.target as HTMLSelectElement).value)}>
              {agent.projects.length ? null : <option value="">not wired for any allowed project</option>}
              {agent.projects.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
          <label class="launch-field">
            Prompt
            <textarea name="prompt" rows={4} maxLength={16000} required value={prompt} onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)} />
          </label>
          {agent.tmux ? (
            <fieldset class="launch-field">
              <legend>How it runs</legend>
              <label>
                <input type="radio" name="mode" value="headless" checked={mode === 'headless'} onChange={() => setMode('headless')} /> in the background
              </label>
              <label>
                <input type="radio" name="mode" value="tmux" checked={mode === 'tmux'} onChange={() => setMode('tmux')} /> in a terminal to attach to
              </label>
            </fieldset>
          ) : null}
          <Options agent={agent} chosen={options} set={setOptions} />
          <button class="btn btn-allow" type="submit" disabled={s.busy || !project || !prompt.trim()} data-launch-start>
            Start
          </button>
        </form>
      ) : null}
      <StartOutcome s={s} />
    </section>
  );
}

/** History's Continue: a prompt for a past session, continued by the agent's own id in its project. */
export function ContinueForm({ agent, session, project }: { agent: string; session: string; project: string | null }) {
  const [open, setOpen] = useState(false);
  const [prompt, setPrompt] = useState('');
  const s = useStart();
  if (!open)
    return (
      <button
        class="btn btn-quiet"
        type="button"
        data-continue={session}
        disabled={!project}
        title={project ? undefined : 'no project is known for it'}
        onClick={() => setOpen(true)}
      >
        Continue
      </button>
    );
  return (
    <form
      class="continue-form"
      data-continue-form={session}
      onSubmit={(e) => {
        e.preventDefault();
        if (prompt.trim() && project) void s.start({ agent, project, prompt, resume: session });
      }}
    >
      <textarea
        name="prompt"
        rows={2}
        maxLength={16000}
        required
        placeholder="What next?"
        value={prompt}
        onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)}
      />
      <button class="btn btn-allow" type="submit" disabled={s.busy || !prompt.trim()}>
        Continue
      </button>
      <StartOutcome s={s} />
    </form>
  );
}
