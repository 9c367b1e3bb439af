// The launch API of `hookmap up` (engine/app/launch-routes.ts) as the inbox
// uses it: what can be started (agents, modes, options, allowed projects by
// name), starting or continuing a run, and following it until its session is
// on the stream. Only a principal with the control scope gets any of it.

export interface LaunchOption {
  name: string;
  values?: string[];
  pattern?: string;
  doc?: string;
}

export interface LaunchAgent {
  agent: string;
  name: string;
  headless: boolean;
  tmux: boolean;
  resume: boolean;
  options: LaunchOption[];
  projects: string[];
}

export interface LaunchRun {
  id: string;
  agent: string;
  mode: 'headless' | 'tmux' | 'resume';
  state: 'starting' | 'running' | 'exited' | 'stopped' | 'timed-out' | 'failed';
  started: string;
  by: string;
  via: string;
  session?: string;
  resumed?: string;
  tmux?: { name: string; attach: string };
  exit?: number | null;
  error?: string;
}

export interface LaunchCatalog {
  agents: LaunchAgent[];
  projects: string[];
  runs: LaunchRun[];
}

export interface StartRequest {
  agent: string;
  project: string;
  prompt: string;
  mode?: 'headless' | 'tmux';
  resume?: string;
  options?: Record<string, string>;
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin', cache: 'no-store', ...init });
  const j = (await res.json().catch(() => ({}))) as { detail?: string; error?: string };
  if (!res.ok) throw new Error(j.detail ? `${j.detail}${j.error ? ` [${j.error}]` : ''}` : `${res.status} ${res.statusText}`);
  return j as T;
}

export const launchCatalog = () => call<LaunchCatalog>('/launch');

export const startRun = (r: StartRequest) =>
  call<{ run: LaunchRun }>('/launch', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(r) }).then((x) => x.run);

export const runOf = (id: string) => call<{ run: LaunchRun }>(`/launch/${encodeURIComponent(id)}`).then((x) => x.run);

export const stopRun = (id: string) =>
  call<{ run: LaunchRun }>('/launch/stop', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id }) }).then(
    (x) => x.run,
  );

/** A run that ended: it will learn no session any more. */
export const runOver = (r: LaunchRun): boolean => !['starting', 'running'].includes(r.state);

/**
 * Follows a run until its session is known (the agent's first hook reached hookmap) or it ended without one;
 * `each` sees every state on the way. Bounded: gives up after `maxMs`.
 */
export async function followRun(id: string, each: (r: LaunchRun) => void, o: { everyMs?: number; maxMs?: number } = {}): Promise<LaunchRun> {
  const deadline = Date.now() + (o.maxMs ?? 120_000);
  for (;;) {
    const r = await runOf(id);
    each(r);
    if (r.session || runOver(r) || Date.now() > deadline) return r;
    await new Promise((ok) => setTimeout(ok, o.everyMs ?? 400));
  }
}
