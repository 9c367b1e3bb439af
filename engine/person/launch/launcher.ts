// The launcher inside `hookmap up`: starts an agent (a headless child of up,
// or its interactive program in a named tmux session) from the descriptor's
// `launch` argv (argv.ts: an argv array, never a shell; the prompt one
// element), in an allowed project (projects.ts), and learns the hookmap
// session the run became from the stream: the id hookmap assigned, the
// continued session's own id, or the agent's first new session after the
// start. A headless run logs to $HOOKMAP_HOME/launch/<id>.log, is stopped at
// its wall time, and at most `maxRuns` run per agent at once. Every start,
// refusal and end is audited with the principal and the surface. An agent
// whose `launch.stdin` says so takes its prompt on stdin (stream-host.ts).
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, createWriteStream, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { DEFAULT_LAUNCH_MAX_RUNS, DEFAULT_LAUNCH_TIMEOUT_MS } from '../../core/config/defaults.ts';
import { LaunchError, launchArgv, type LaunchMode } from './argv.ts';
import { allowedProjects, assertWired, pickProject } from './projects.ts';
import { isSessionTerminal, opens } from '../../core/kernel/lifecycle.ts';
import { lineOf } from '../../core/kernel/fold/story.ts';
import { attachArgv, goneWithin, newSession, type TmuxTarget } from './tmux.ts';
import { hostStreamJson } from './stream-host.ts';

export interface LaunchConfig {
  projects?: string[]; // folders allowed beside the ones `hookmap setup --project` recorded
  timeoutMs?: number;
  maxRuns?: number;
  tmux?: string; // the tmux program (default tmux)
  tmuxSocket?: string; // the tmux server's socket name (tmux -L); default tmux's own server
  /** Continue a session stopped on a rate or usage limit at its reset (resume-at-reset.ts); absent: only tell. */
  afterLimit?: { prompt?: string; waitMs?: number };
}

export interface LaunchRequest {
  agent: string;
  project: string; // a folder path or name from the allow-list
  prompt: string;
  mode?: 'headless' | 'tmux'; // tmux: the interactive program in a tmux session; default headless
  resume?: string; // continue this hookmap session (its agent's own id, a `~N` lineage dropped)
  options?: Record<string, string>;
}

export interface Who {
  principal: string;
  surface: string;
}

export type RunState = 'starting' | 'running' | 'exited' | 'stopped' | 'timed-out' | 'failed';

export interface LaunchRun {
  id: string;
  agent: string;
  mode: LaunchMode;
  dir: string;
  state: RunState;
  started: string;
  by: string;
  via: string;
  pid?: number;
  log?: string;
  /** An attachable run: its tmux session, on the server named `socket` (tmux -L) when not tmux's default. */
  tmux?: { name: string; socket?: string; attach: string };
  session?: string; // the hookmap session, once its first event arrived
  resumed?: string;
  ended?: string;
  exit?: number | null;
  signal?: string | null;
  error?: string;
}

export interface LauncherOptions {
  descriptor: (agent: string) => Descriptor | undefined;
  home: string;
  env: Readonly<Record<string, string | undefined>>; // the environment runs start with (from the CLI edge)
  url?: () => string | undefined; // this up's own address: a run's hooks reach it whatever a project's files say
  config?: LaunchConfig;
  subscribe: (onEvent: (ev: StreamEvent) => void) => { close(): void }; // each event on the stream (agent, session), from the start on
  audit: (type: string, data: Record<string, unknown>) => void;
  say?: (line: string) => void;
  spawn?: (command: string, args: string[], o: SpawnOptions) => ChildProcess;
}

export interface StreamEvent {
  type: string;
  agent?: string;
  session?: string;
}

type Host = { prompt: string; done?: string[] };
const KILL_GRACE_MS = 5000;
/** How long a gated run has for its first hook (the gated agents fire one as they start, before any model call). */
export const GATE_HOOK_MS = 20_000;
/** How long after its session's end an attachable run's tmux session has to go. */
const TMUX_GONE_MS = 30_000;
/** The agent's own id of a hookmap session (a `~N` lineage dropped): the kernel's line. */
export const agentSessionId = lineOf;

export class Launcher {
  private readonly runs = new Map<string, LaunchRun>();
  private readonly children = new Map<string, { child: ChildProcess; timer?: NodeJS.Timeout }>();
  private readonly expected = new Map<string, { run: LaunchRun; match: (ev: StreamEvent) => boolean }>();
  private readonly seen = new Set<string>();
  private readonly closing = new Set<string>(); // attachable runs whose tmux session is being asked about (their session ended)
  private readonly sub: { close(): void };

  constructor(private readonly o: LauncherOptions) {
    this.sub = o.subscribe((ev) => this.onEvent(ev));
  }

  start(r: LaunchRequest, who: Who): LaunchRun /* one run, or a LaunchError (audited as refused) */ {
    try {
      return this.begin(r, who);
    } catch (e) {
      if (e instanceof LaunchError) this.o.audit('refused', { agent: r.agent, code: e.code, detail: e.message, by: who.principal, via: who.surface });
      throw e;
    }
  }

  private begin(r: LaunchRequest, who: Who): LaunchRun {
    const d = typeof r.agent === 'string' ? this.o.descriptor(r.agent) : undefined;
    if (!d) throw new LaunchError('no-such-agent', `${String(r.agent)} is not an agent this hookmap up runs`, 404);
    const spec = d.launch;
    if (!spec) throw new LaunchError('not-supported', `${d.name} has no launch block: hookmap cannot start it`);
    if (r.resume !== undefined && typeof r.resume !== 'string') throw new LaunchError('bad-request', 'resume names a session', 400);
    if (r.options !== undefined && (typeof r.options !== 'object' || r.options === null || Array.isArray(r.options)))
      throw new LaunchError('bad-request', 'options is an object of names and values', 400);
    const dir = pickProject(r.project, allowedProjects(this.o.home, this.o.config?.projects));
    assertWired(this.o.home, d.vendor, dir);
    const mode: LaunchMode = r.resume !== undefined ? 'resume' : r.mode === 'tmux' ? 'tmux' : 'headless';
    if (r.resume !== undefined && r.mode === 'tmux') throw new LaunchError('not-supported', 'a continued session runs headless');
    const id = r.resume !== undefined ? agentSessionId(r.resume) : spec.session === 'assigned' ? randomUUID() : undefined;
    const { command, args, gated } = launchArgv(spec, { mode, prompt: r.prompt, dir, id, options: r.options });
    const max = this.o.config?.maxRuns ?? DEFAULT_LAUNCH_MAX_RUNS;
    const live = [...this.runs.values()].filter((x) => x.agent === d.vendor && x.mode !== 'tmux' && (x.state === 'starting' || x.state === 'running'));
    if (mode !== 'tmux' && live.length >= max)
      throw new LaunchError('run-cap', `${live.length} ${d.vendor} runs are under way (at most ${max} at once: launch.max_runs)`, 429);
    const run: LaunchRun = {
      id: `l${randomBytes(6).toString('hex')}`,
      agent: d.vendor,
      mode,
      dir,
      state: 'starting',
      started: new Date().toISOString(),
      by: who.principal,
      via: who.surface,
      ...(r.resume !== undefined ? { resumed: r.resume } : {}),
    };
    this.runs.set(run.id, run);
    // hookmap's own variables set, never left for a project's env file to fill (an agent that loads one keeps what is set)
    const url = this.o.url?.(); // this up's address and home, unless up's own environment names others (a proxy in front of it)
    const env = { HOOKMAP_HOME: this.o.home, ...(url ? { HOOKMAP_URL: url } : {}), ...this.o.env, ...spec.env, HOOKMAP_GATE: gated ? '1' : undefined };
    // the session: its start with the id given to the agent, else the agent's first new session after this start; a continue:
    // the continued session's first event from the agent, never its end or hookmap's own records (a late usage read)
    const fromAgent = (ev: StreamEvent) => !isSessionTerminal(ev.type) && !ev.type.startsWith('x.hookmap.');
    const match = (ev: StreamEvent) =>
      mode === 'resume'
        ? agentSessionId(ev.session!) === id && fromAgent(ev)
        : opens(ev.type) === 'session' && (id !== undefined ? agentSessionId(ev.session!) === id : !this.seen.has(ev.session!));
    this.expected.set(run.id, { run, match });
    // a tmux server started elsewhere keeps its own environment: the run's own variables are passed on (never the rest: argv is public)
    const carried = Object.entries(spec.env ?? {});
    if (mode === 'tmux') this.tmux(run, command, args, env, carried);
    else this.headless(run, command, args, env, spec.stdin && { ...spec.stdin, prompt: r.prompt });
    // under a launch's gate the hooks are the only check: a run none of whose hooks arrives in time (its hooks off) is stopped
    if (gated && mode !== 'tmux') setTimeout(() => !run.session && this.kill(run, 'failed', 'no hook arrived under the gate'), GATE_HOOK_MS).unref();
    this.o.audit('started', {
      launch: run.id,
      agent: run.agent,
      mode,
      project: dir,
      by: who.principal,
      via: who.surface,
      options: r.options ?? {},
      ...(gated ? { gate: true } : {}),
      ...(run.resumed ? { resumed: run.resumed } : {}),
    });
    this.o.say?.(`launch ${run.id}: ${run.agent} ${mode} in ${dir} for ${who.principal} (${who.surface})`);
    return run;
  }

  /** `host`: the prompt goes on stdin and hookmap hosts the turn (stream-host.ts), else stdin is closed. */
  private headless(run: LaunchRun, command: string, args: string[], env: Record<string, string | undefined>, host?: Host): void {
    const dir = join(this.o.home, 'launch');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    run.log = join(dir, `${run.id}.log`);
    const fd = openSync(run.log, 'a', 0o600);
    let child: ChildProcess;
    try {
      const stdio: SpawnOptions['stdio'] = host ? ['pipe', 'pipe', fd] : ['ignore', fd, fd];
      child = (this.o.spawn ?? spawn)(command, args, { cwd: run.dir, env, stdio, detached: true, shell: false });
    } finally {
      closeSync(fd);
    }
    if (host && child.stdin && child.stdout) hostStreamJson(child, { ...host, log: createWriteStream(run.log, { flags: 'a', mode: 0o600 }) });
    run.pid = child.pid;
    run.state = 'running';
    const timeoutMs = this.o.config?.timeoutMs ?? DEFAULT_LAUNCH_TIMEOUT_MS;
    const timer = timeoutMs > 0 ? setTimeout(() => this.kill(run, 'timed-out'), timeoutMs) : undefined;
    timer?.unref();
    this.children.set(run.id, { child, timer });
    child.on('error', (e) => this.ended(run, 'failed', null, null, e.message));
    child.on('exit', (code, signal) => this.ended(run, run.state === 'running' ? 'exited' : run.state, code, signal));
  }

  private tmux(run: LaunchRun, command: string, args: string[], env: Record<string, string | undefined>, carried: [string, string][]): void {
    const name = `hookmap-${run.agent}-${run.id.slice(1, 7)}`;
    const t = this.tmuxTarget();
    const child = newSession(t, { name, dir: run.dir, command, args, env, carried }, this.o.spawn);
    run.tmux = { name, ...(t.socket ? { socket: t.socket } : {}), attach: [t.program, ...attachArgv(t, name)].join(' ') };
    run.state = 'running';
    child.on('error', (e) => this.ended(run, 'failed', null, null, e.message));
    child.on('exit', (code) => (code === 0 ? undefined : this.ended(run, 'failed', code, null, `tmux new-session exited ${code}`)));
  }

  private tmuxTarget(): TmuxTarget {
    return { program: this.o.config?.tmux ?? 'tmux', ...(this.o.config?.tmuxSocket ? { socket: this.o.config.tmuxSocket } : {}) };
  }

  /** An attachable run whose session ended: over once its tmux session is gone (the agent left; a /clear goes on in it). */
  private tmuxEnded(s: string): void {
    const run = [...this.runs.values()].find((r) => r.tmux && !r.ended && r.session === s);
    if (!run?.tmux || this.closing.has(run.id)) return;
    this.closing.add(run.id);
    void goneWithin(this.tmuxTarget(), run.tmux.name, TMUX_GONE_MS, 500, this.o.spawn).then((gone) => {
      this.closing.delete(run.id);
      if (gone) this.ended(run, 'exited', null, null);
    });
  }

  private onEvent(ev: StreamEvent): void {
    const s = ev.session;
    if (!s) return;
    if (isSessionTerminal(ev.type)) this.tmuxEnded(s);
    // the oldest waiting run of that agent whose match holds takes the session
    for (const [id, x] of this.expected)
      if (x.run.agent === ev.agent && x.match(ev)) {
        x.run.session = s;
        this.expected.delete(id);
        this.o.audit('session', { launch: id, agent: x.run.agent, session: s });
        break;
      }
    this.seen.add(s);
  }

  private kill(run: LaunchRun, as: RunState, error?: string): void {
    const c = this.children.get(run.id);
    if (!c || c.child.exitCode !== null || c.child.signalCode !== null) return;
    Object.assign(run, { state: as }, error ? { error } : {});
    const group = (sig: NodeJS.Signals) => {
      try {
        process.kill(-c.child.pid!, sig); // the run and whatever it started (detached: its own process group)
      } catch {
        c.child.kill(sig);
      }
    };
    group('SIGTERM');
    setTimeout(() => c.child.exitCode === null && c.child.signalCode === null && group('SIGKILL'), KILL_GRACE_MS).unref();
  }

  private ended(run: LaunchRun, state: RunState, exit: number | null, signal: string | null, error?: string): void {
    if (run.ended) return; // 'error' and 'exit' may both come
    const c = this.children.get(run.id);
    if (c?.timer) clearTimeout(c.timer);
    this.children.delete(run.id);
    this.expected.delete(run.id);
    Object.assign(run, { state, exit, signal, ended: new Date().toISOString(), ...(error ? { error } : {}) });
    this.o.audit('ended', {
      launch: run.id,
      agent: run.agent,
      state,
      exit,
      signal,
      ...(run.session ? { session: run.session } : {}),
      ...(error ? { error } : {}),
    });
    this.o.say?.(`launch ${run.id}: ${state}${exit !== null ? ` (exit ${exit})` : signal ? ` (${signal})` : ''}${error ? `: ${error}` : ''}`);
  }

  get(id: string): LaunchRun | undefined {
    return this.runs.get(id);
  }

  list(): LaunchRun[] {
    return [...this.runs.values()];
  }

  /** Stops the headless run with this launch id or hookmap session; undefined: none under way. */
  stop(idOrSession: string, who: Who): LaunchRun | undefined {
    const run = this.runs.get(idOrSession) ?? [...this.runs.values()].find((r) => r.session === idOrSession && this.children.has(r.id));
    if (!run || !this.children.has(run.id)) return undefined;
    this.o.audit('stop', { launch: run.id, agent: run.agent, by: who.principal, via: who.surface, ...(run.session ? { session: run.session } : {}) });
    this.kill(run, 'stopped');
    return run;
  }

  close(): void {
    this.sub.close();
    for (const run of this.runs.values()) this.kill(run, 'stopped');
  }
}
