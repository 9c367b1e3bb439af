// Continue a session the agent stopped on a rate or usage limit, at the reset
// (docs/usage.md, "Rate limits"; opt-in: `launch.after_limit` in the up
// config). The daemon says the agent stopped (x.hookmap.limit.reached, the
// descriptor's `limits` signs, with resets_at when the agent said when); this
// reads it off the stream, waits until the reset (or `wait_ms` after the stop
// when the agent gave no time), and then starts the agent's own `resume` run
// of that session in its project with the configured prompt, as `hookmap run
// --resume` would (engine/person/launch/launcher.ts: allow-listed projects,
// the per-agent cap, audited as x.hookmap.launch.* by principal `hookmap`).
// A new run in the session before then (a person continued it) drops the
// wait; the outcome is x.hookmap.limit.resumed on hookmap's own session, with
// the launch's id or why not. An agent that retries by itself is not
// continued (its pause says agent_retries). At most MAX_WAITS waits; a reset further out
// than MAX_WAIT_MS is not waited for; a session that stops on its limit again
// is continued at most MAX_RESUMES times in a row (a run that finishes starts
// the count again), so an agent that is always refused is not relaunched forever.
import { opens, runEnd } from '../../core/kernel/lifecycle.ts';
import { LIMIT_RESUMED, pauseOf } from '../../core/kernel/limits.ts';
import { lineOf } from '../../core/kernel/fold/story.ts';
import { DEFAULT_AFTER_LIMIT_PROMPT, DEFAULT_AFTER_LIMIT_WAIT_MS } from '../../core/config/defaults.ts';
import type { LaunchRequest, LaunchRun, Who } from './launcher.ts';

export const MAX_WAITS = 1000;
export const MAX_WAIT_MS = 24 * 3600_000;
export const MAX_RESUMES = 3;
const WHO: Who = { principal: 'hookmap', surface: 'after-limit' };

export interface ResumeAtResetOptions {
  prompt?: string;
  waitMs?: number;
  start: (r: LaunchRequest, who: Who) => LaunchRun;
  /** The project a session ran in (its session.started's label), if known. */
  projectOf: (session: string) => string | undefined;
  /** x.hookmap.limit.resumed on hookmap's own session. */
  audit: (type: typeof LIMIT_RESUMED, data: Record<string, unknown>) => void;
  say: (line: string) => void;
  now?: () => number;
}

interface Limited {
  type: string;
  time?: string;
  agent?: string;
  session?: string;
  data?: Record<string, unknown>;
}

export class ResumeAtReset {
  private readonly waits = new Map<string, { timer: ReturnType<typeof setTimeout>; session: string }>();
  /** Per session line: how many times it was continued since a run of it last finished. */
  private readonly tries = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly o: ResumeAtResetOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Each event on the stream. */
  seen(ev: Limited): void {
    if (typeof ev.session !== 'string' || typeof ev.agent !== 'string') return;
    const line = `${ev.agent}\u0000${lineOf(ev.session)}`;
    const pause = typeof ev.time === 'string' ? pauseOf({ type: ev.type, time: ev.time, data: ev.data }) : undefined;
    if (!pause) {
      if (opens(ev.type) === 'run') this.drop(line); // the session went on: nobody waits for the reset
      if (runEnd(ev.type) === 'finished') this.tries.delete(line);
      return;
    }
    if (pause.agentRetries) return; // it tries again by itself: nothing to continue
    const at = pause.until ? Date.parse(pause.until) : Date.parse(pause.since) + (this.o.waitMs ?? DEFAULT_AFTER_LIMIT_WAIT_MS);
    const wait = Math.max(0, at - this.now());
    if (wait > MAX_WAIT_MS) {
      this.o.say(`${ev.agent} session ${ev.session}: its limit resets in ${Math.round(wait / 3600_000)} h; not waited for`);
      return;
    }
    this.drop(line);
    if (this.waits.size >= MAX_WAITS) {
      this.o.say(`${MAX_WAITS} sessions wait for a reset already; ${ev.session} is not continued`);
      return;
    }
    const agent = ev.agent;
    const session = ev.session;
    const timer = setTimeout(() => {
      if (this.waits.get(line)?.timer !== timer) return;
      this.waits.delete(line);
      this.resume(agent, session, line);
    }, wait);
    timer.unref?.();
    this.waits.set(line, { timer, session });
    this.o.say(`${agent} session ${session} stopped on a ${pause.kind.replace('_', ' ')}; continuing it at ${new Date(this.now() + wait).toISOString()}`);
  }

  /** How many sessions wait for a reset. */
  get waiting(): number {
    return this.waits.size;
  }

  close(): void {
    for (const w of this.waits.values()) clearTimeout(w.timer);
    this.waits.clear();
  }

  private drop(line: string): void {
    const w = this.waits.get(line);
    if (!w) return;
    clearTimeout(w.timer);
    this.waits.delete(line);
  }

  private resume(agent: string, session: string, line: string): void {
    const project = this.o.projectOf(session);
    const base = { session, agent, at: new Date(this.now()).toISOString() };
    const tries = this.tries.get(line) ?? 0;
    if (tries >= MAX_RESUMES) {
      this.o.audit(LIMIT_RESUMED, { ...base, ok: false, why: `stopped on its limit ${tries} times in a row after being continued: not continued again` });
      return;
    }
    if (!project) {
      this.o.audit(LIMIT_RESUMED, { ...base, ok: false, why: 'its project is not known (no session.started seen since up started)' });
      return;
    }
    try {
      const run = this.o.start({ agent, project, prompt: this.o.prompt ?? DEFAULT_AFTER_LIMIT_PROMPT, resume: session }, WHO);
      this.tries.delete(line);
      this.tries.set(line, tries + 1);
      if (this.tries.size > MAX_WAITS) this.tries.delete(this.tries.keys().next().value!);
      this.o.audit(LIMIT_RESUMED, { ...base, ok: true, launch: run.id });
      this.o.say(`${agent} session ${session} continued after its limit: launch ${run.id}`);
    } catch (e) {
      this.o.audit(LIMIT_RESUMED, { ...base, ok: false, why: (e as Error).message.slice(0, 300) });
      this.o.say(`${agent} session ${session} not continued after its limit: ${(e as Error).message}`);
    }
  }
}
