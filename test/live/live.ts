// One agent's live rig: scratch HOME + project + HOOKMAP_HOME, the scripted
// model, `hookmap up` (ephemeral port, token, short attention timeout), the
// recording tap, `hookmap tail --json`, and `hookmap setup <agent>` wired to
// the tap. Scenario runs return what each layer saw, and `checkSession`
// asserts the stream of one session: ids, seq, order, pairing, logs ==
// stream, `hookmap validate`.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { isTerminal, mayFollowEnd } from '../../engine/core/validate/lifecycle-tracker.ts';
import { resolveAgent, DATE } from './agents.ts';
import {
  answer,
  hookmap,
  readLogs,
  run,
  scratch,
  startTap,
  startUp,
  tail,
  until,
  type Run,
  type Scratch,
  type Tap,
  type UpExtra,
  type UpHandle,
} from './harness.ts';
import { startModelServer, type ModelServer, type Scenario, type Step } from './model-server.ts';

export interface ScenarioFile {
  [name: string]: { prompt: string; steps: (Step | { shell: string })[]; aside?: string; agents?: Scenario['agents'] };
}

export const SCENARIOS: ScenarioFile = parse(readFileSync(join(ROOT, 'test/live/scenarios.yaml'), 'utf8'));

export interface Outcome {
  run: Run;
  sessions: string[];
  hooks: Tap['hooks'];
  requests: ModelServer['requests'];
  events: any[];
}

export class Live {
  s!: Scratch;
  model!: ModelServer;
  up!: UpHandle;
  tap!: Tap;
  stream!: ReturnType<typeof tail>;
  bin!: string;
  agentEnv: NodeJS.ProcessEnv = {};
  readonly log: string[] = [];

  constructor(
    readonly id: string,
    readonly shell: (cmd: string) => Step,
  ) {}

  static skipReason(id: string): string | undefined {
    return resolveAgent(id).skip;
  }

  async start(attentionTimeoutMs: number): Promise<void> {
    const r = resolveAgent(this.id);
    if (!r.bin) throw new Error(r.skip);
    this.bin = r.bin;
    this.s = scratch(this.id);
    this.model = await startModelServer({ log: (l) => this.log.push(l) });
    this.up = await startUp(this.s, attentionTimeoutMs);
    this.tap = await startTap(this.up.url, this.id, this.s.recorded);
    this.stream = tail(this.up.url, this.s);
    this.agentEnv = this.baseEnv(this.tap.url);
  }

  /**
   * HOME, HOOKMAP_HOME and the hook URL all scratch; no proxy, loopback only; no start on demand (the suite starts
   * its own up, and "hookmap down" must stay down).
   */
  baseEnv(hookUrl: string): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const k of ['PATH', 'LANG', 'TERM', 'TMPDIR', 'USER', 'LOGNAME', 'SHELL']) if (process.env[k]) env[k] = process.env[k];
    return {
      ...env,
      HOME: this.s.home,
      XDG_CONFIG_HOME: join(this.s.home, '.config'),
      XDG_DATA_HOME: join(this.s.home, '.local/share'),
      XDG_CACHE_HOME: join(this.s.home, '.cache'),
      XDG_STATE_HOME: join(this.s.home, '.local/state'),
      HOOKMAP_HOME: this.s.hookmapHome,
      HOOKMAP_URL: hookUrl,
      HOOKMAP_AUTOSTART: '0',
      NO_PROXY: '127.0.0.1,localhost',
      CI: '1',
    };
  }

  /** `hookmap setup <agent> ...` with the scratch env; throws unless it exits 0. */
  async setup(args: string[] = [], env: NodeJS.ProcessEnv = this.agentEnv): Promise<string> {
    const r = await hookmap(['setup', this.id, ...args], { ...process.env, ...env });
    if (r.code !== 0) throw new Error(`hookmap setup ${this.id} exited ${r.code}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  /** Point the hooks at a fresh `hookmap up` (another attention timeout); tail follows it. */
  async restartUp(attentionTimeoutMs: number, extra: UpExtra = {}): Promise<void> {
    this.stream.close();
    await this.up.close();
    this.up = await startUp(this.s, attentionTimeoutMs, extra);
    this.tap.retarget(this.up.url);
    this.stream = tail(this.up.url, this.s);
  }

  scenario(name: string): Scenario & { prompt: string } {
    const sc = SCENARIOS[name];
    if (!sc) throw new Error(`no scenario ${name} in test/live/scenarios.yaml`);
    return { name, prompt: sc.prompt, aside: sc.aside, agents: sc.agents, steps: sc.steps.map((st) => ('shell' in st ? this.shell(st.shell) : st)) };
  }

  /**
   * Play a scenario: the model follows its steps, `drive` runs alongside
   * (answers attention), the agent process runs to its end (bounded).
   */
  async play(name: string, start: (prompt: string) => Promise<Run>, drive?: (o: { sessionEvents: () => any[] }) => Promise<void>): Promise<Outcome> {
    const sc = this.scenario(name);
    this.model.play(sc);
    const h0 = this.tap.hooks.length;
    const r0 = this.model.requests.length;
    const sessions = () => [
      ...new Set(
        this.tap.hooks
          .slice(h0)
          .map((h) => this.sessionOf(h.body))
          .filter(Boolean) as string[],
      ),
    ];
    const sessionEvents = () => {
      const ss = sessions();
      return this.stream.events.filter((e) => ss.includes(e.session));
    };
    const agent = start(sc.prompt);
    let driveErr: unknown;
    let driven = false;
    const driving = drive?.({ sessionEvents }).then(
      () => (driven = true),
      (e) => ((driveErr = e), (driven = true)),
    );
    const run = await agent;
    // the agent is gone: a driver still waiting for something gets 5 s more, then fails
    if (driving) await Promise.race([driving, new Promise((r) => setTimeout(r, 5_000))]);
    if (driving && !driven) driveErr = new Error('the agent exited while the scenario driver was still waiting');
    if (driveErr)
      throw Object.assign(
        new Error(
          `${(driveErr as Error).message}\nagent exit ${run.code} after ${run.ms} ms\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-1500)}`,
        ),
        { run },
      );
    // the stream catches up with the logs
    const ss = sessions();
    await until(
      'every logged event on the stream',
      () => {
        const logged = readLogs(this.s, this.id)
          .flatMap((f) => f.events)
          .filter((e) => ss.includes(e.session));
        return logged.every((e) => this.stream.events.some((x) => x.id === e.id)) && logged.length > 0;
      },
      15_000,
    ).catch(() => undefined);
    return { run, sessions: ss, hooks: this.tap.hooks.slice(h0), requests: this.model.requests.slice(r0), events: sessionEvents() };
  }

  sessionOf(body: any): string | undefined {
    return body?.session_id ?? body?.sessionId ?? body?.session?.id ?? undefined;
  }

  /** Wait for the next attention.requested of the scenario's session(s) that no one answered yet. */
  async nextAttention(sessionEvents: () => any[], taken: Set<string>, timeoutMs = 60_000): Promise<any> {
    const ev = await until('an attention.requested', () => sessionEvents().find((e) => e.type === 'attention.requested' && !taken.has(e.id)), timeoutMs);
    taken.add(ev.id);
    return ev;
  }

  async answer(id: string, flags: string[]): Promise<{ code: number | null; lines: any[] }> {
    const r = await answer(this.up.url, id, flags, this.s);
    const lines = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return l;
        }
      });
    if (r.code !== 0) throw new Error(`hookmap answer ${id} ${flags.join(' ')} exited ${r.code}: ${r.stdout}${r.stderr}`);
    return { code: r.code, lines };
  }

  /** Every check one session's stream must pass; returns the logged events. */
  async checkSession(session: string): Promise<any[]> {
    // A consistent snapshot: an agent that lives on (OpenCode's server) may still log events for
    // the session; compare once the log stopped changing and the stream holds all of it (bounded).
    const snapshot = () => {
      const files = readLogs(this.s, this.id).filter((f) => f.events.some((e) => e.session === session));
      // this agent's own channel: another emitter of the same session id (its OTel channel, aep://h/agent/<id>/otel/...) is not this log's
      const streamed = this.stream.events.filter((e) => e.session === session && String(e.source).includes(`/agent/${encodeURIComponent(this.id)}/session/`));
      const again = readLogs(this.s, this.id).filter((f) => f.events.some((e) => e.session === session));
      const ids = (fs: typeof files) => fs.flatMap((f) => f.events.map((e) => e.id)).join(' ');
      const own = new Set(streamed.filter((e) => e.seq !== undefined).map((e) => e.id));
      const logged = files.flatMap((f) => f.events);
      const settled = ids(files) === ids(again) && own.size === logged.length && logged.every((e) => own.has(e.id));
      return { files, streamed, settled };
    };
    let snap = snapshot();
    const end = Date.now() + 15_000;
    while (!snap.settled && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      snap = snapshot();
    }
    const waited = 15_000 - (end - Date.now());
    if (waited > 1_000)
      console.log(`[live] ${this.id}: session ${session}: log and stream agreed after ${waited} ms${snap.settled ? '' : ' (never: compared as is)'}`);
    const { files, streamed } = snap;
    if (files.length !== 1) throw new Error(`expected one log file for session ${session}, found ${files.length}`);
    const logged = files[0].events;
    const problems: string[] = [];
    // logs == stream (same events, same bytes)
    for (const e of logged) {
      const s = streamed.find((x) => x.id === e.id);
      if (!s) problems.push(`logged ${e.type} ${e.id} never reached the stream`);
      else if (JSON.stringify(s) !== JSON.stringify(e)) problems.push(`${e.type} ${e.id} differs between log and stream`);
    }
    const own = streamed.filter((e) => e.seq !== undefined);
    if (own.length !== logged.length) problems.push(`stream has ${own.length} sequenced events for the session, log ${logged.length}`);
    // ids unique, seq 1..n in file order within one epoch
    const ids = new Set(logged.map((e) => e.id));
    if (ids.size !== logged.length) problems.push('duplicate event ids in the log');
    let prev: any;
    for (const e of logged) {
      if (prev && e.epoch === prev.epoch && e.seq !== prev.seq + 1) problems.push(`seq jumps ${prev.seq} -> ${e.seq} at ${e.type}`);
      prev = e;
    }
    // causes point backwards to events of the session (or to a command on the stream)
    const before = new Set<string>();
    const commands = new Set(this.stream.events.filter((e) => /^(control\.|x\.[^.]+\.control\.)/.test(e.type ?? '') && e.seq === undefined).map((e) => e.id));
    for (const e of logged) {
      if (e.cause && !before.has(e.cause) && !commands.has(e.cause)) problems.push(`${e.type} ${e.id}: cause ${e.cause} is not an earlier event`);
      before.add(e.id);
    }
    // pairing: every attention.requested ends exactly once; answered/resolved name it
    for (const req of logged.filter((e) => e.type === 'attention.requested')) {
      const ends = logged.filter((e) => (e.type === 'attention.resolved' || e.type === 'attention.timeout') && e.subject === req.id);
      if (ends.length !== 1) problems.push(`attention ${req.id} has ${ends.length} terminal events`);
    }
    // tool.completed / tool.failed pair with a tool.requested of the same call id
    for (const done of logged.filter((e) => e.type === 'tool.completed' || e.type === 'tool.failed')) {
      const id = done.data?.tool?.call_id;
      if (id && !logged.some((e) => e.type === 'tool.requested' && e.data?.tool?.call_id === id)) problems.push(`${done.type} ${id} has no tool.requested`);
    }
    // runs: each run.started closes once
    for (const st of logged.filter((e) => e.type === 'run.started')) {
      const ends = logged.filter((e) => ['run.finished', 'run.failed', 'run.cancelled'].includes(e.type) && e.run === st.run);
      if (ends.length > 1) problems.push(`run ${st.run} closed ${ends.length} times`);
    }
    const v = await hookmap(['validate', files[0].file], process.env);
    if (v.code !== 0) problems.push(`hookmap validate: exit ${v.code}: ${v.stdout}${v.stderr}`);
    if (problems.length) throw new Error(`session ${session}:\n  ${problems.join('\n  ')}\nevents: ${logged.map((e) => e.type).join(', ')}`);
    return logged;
  }

  /** Copy the recorded payloads into fixtures/<agent>/recorded/ (HOOKMAP_LIVE_SAVE=1), one per hook name. */
  saveRecorded(version: string): string[] {
    if (!process.env.HOOKMAP_LIVE_SAVE || !existsSync(this.s.recorded)) return [];
    const out = join(ROOT, 'fixtures', this.id, 'recorded');
    mkdirSync(out, { recursive: true });
    const seen = new Set<string>();
    const saved: string[] = [];
    for (const f of readdirSync(this.s.recorded).sort()) {
      const hook = f.replace(/^.*?-\d{4}-/, '').replace(/\.yaml$/, '');
      if (seen.has(hook)) continue;
      seen.add(hook);
      // scratch paths are stable placeholders in the stored file
      let text = readFileSync(join(this.s.recorded, f), 'utf8')
        .split(this.s.root)
        .join('/tmp/hookmap-live-scratch')
        .replace(/hookmap-live-[a-z-]+-[A-Za-z0-9]{6}/g, 'hookmap-live-scratch');
      if (!/agent_version:/.test(text)) text = text.replace(/^kind: recorded\n/m, `kind: recorded\nagent_version: "${version}"\n`);
      // a quoted provenance (the recorder quotes one holding `: `) takes the note inside its quotes
      text = text.replace(/^(provenance: .*?)\n/m, (_m, p: string) =>
        p.endsWith('"') ? `${p.slice(0, -1)}; live suite (test/live), ${DATE}"\n` : `${p}; live suite (test/live), ${DATE}\n`,
      );
      const name = `live-${hook}.yaml`;
      writeFileSync(join(out, name), text);
      saved.push(join('fixtures', this.id, 'recorded', name));
    }
    return saved;
  }

  /** End of a file: keep the recorded payloads (when asked to) and stop everything. */
  async finish(version: string): Promise<void> {
    const saved = this.saveRecorded(version);
    if (saved.length) console.log(`[live] ${this.id}: saved ${saved.length} recorded payloads: ${saved.join(', ')}`);
    await this.close();
  }

  async close(): Promise<void> {
    this.stream?.close();
    await this.tap?.close();
    await this.up?.close();
    await this.model?.close();
    this.s?.done();
  }
}

/**
 * A session's event types against the expected list, where the expected list
 * names what the scenario makes happen and, after a terminal (a run's or the
 * session's), the types AEP lets arrive late are set aside unless expected:
 * e.g. x.hookmap.usage.reported, which the daemon emits once it read the
 * transcript after the reply that closed the run, before or after the
 * session's end. Which types those are is the validator's one rule
 * (engine/core/validate/lifecycle-tracker.ts), not a list kept here.
 */
export function expectTypes(events: any[], expected: string[]): void {
  const kept: string[] = [];
  const late: string[] = [];
  let i = 0;
  let terminal = false;
  for (const e of events) {
    // the away surfaces' own question to the holding daemon (x.hookmap.control.ask, engine/runtime/daemon/door.ts): its answer
    // rides a control.accepted carrying data.result, there once a push device or a chat reaches someone (an earlier test's)
    if (e.type === 'control.accepted' && e.data?.result !== undefined) {
      late.push('control.accepted (a door query)');
      continue;
    }
    if (e.type === expected[i]) {
      kept.push(e.type);
      i++;
    } else if (terminal && mayFollowEnd(e.type)) late.push(e.type);
    else kept.push(e.type);
    if (isTerminal(e.type)) terminal = true;
  }
  if (late.length) console.log(`[live] set aside (late after a terminal, or a door query): ${late.join(', ')}`);
  expect(kept, `event types (set aside: ${late.join(', ') || 'none'})`).toEqual(expected);
}

/** Every tool message a Chat Completions model was sent, newest last. */
export const chatToolMessages = (reqs: { body: any; step?: number }[]): string[] =>
  reqs
    .filter((r) => r.step !== undefined)
    .flatMap((r) => r.body?.messages ?? [])
    .filter((m: any) => m?.role === 'tool')
    .map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

/** Run the agent with nothing listening at its hook URL: the "hookmap down" case. */
export async function unusedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const p = (srv.address() as any).port;
      srv.close(() => resolve(p));
    });
  });
}

export { run, copyFileSync };
