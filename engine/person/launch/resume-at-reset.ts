// Continue a session the agent stopped on a rate or usage limit, at the reset
// (docs/usage.md, "Rate limits"; opt-in: `launch.after_limit` in the up
// config). The daemon says the agent stopped (x.hookmap.limit.reached, the
// descriptor's `limits` signs, with resets_at when the agent said when); this
// reads it off the stream, waits until the reset (or `wait_ms` after the stop
// when the agent gave no time), and then continues it with the configured
// prompt. A session that ended gets the agent's own `resume` run in its
// project, as `hookmap run --resume` would (engine/person/launch/launcher.ts:
// allow-listed projects, the per-agent cap, audited as x.hookmap.launch.* by
// principal `hookmap`); a session still open (its agent waits at its prompt)
// gets the prompt as a steering instruction through the relay, which its
// next-turn carrier delivers (dropped as it ends: then resumed).
// A new run in the session before then (a person continued it) drops the
// wait; the outcome is x.hookmap.limit.resumed on hookmap's own session, with
// the launch's id or why not. An agent that retries by itself is not
// continued (its pause says agent_retries). At most MAX_WAITS waits; a reset further out
// than MAX_WAIT_MS is not waited for; a session that stops on its limit again
// is continued at most MAX_RESUMES times in a row (a run that finishes starts
// the count again), so an agent that is always refused is not relaunched forever.
import { instructionOutcome } from '../../core/kernel/command.ts';
import { isSessionTerminal, opens, runEnd } from '../../core/kernel/lifecycle.ts';
import { LIMIT_RESUMED, pauseOf } from '../../core/kernel/limits.ts';
import { lineOf } from '../../core/kernel/fold/story.ts';
import { DEFAULT_AFTER_LIMIT_PROMPT, DEFAULT_AFTER_LIMIT_WAIT_MS } from '../../core/config/defaults.ts';
import type { LaunchRequest, LaunchRun, Who } from './launcher.ts';

export const MAX_WAITS = 1000;
export const MAX_WAIT_MS = 24 * 3600_000;
export const MAX_RESUMES = 3;
/** An instruction to an open session that is neither delivered nor dropped by then is reported as not delivered. */
export const INSTRUCT_OUTCOME_MS = 60_000;
const WHO: Who = { principal: 'hookmap', surface: 'after-limit' };

export interface ResumeAtResetOptions {
  prompt?: string;
  waitMs?: number;
  start: (r: LaunchRequest, who: Who) => LaunchRun;
  /** The project a session ran in (its session.started's label), if known. */
  projectOf: (session: string) => string | undefined;
  /**
   * A steering instruction to a session still open (its agent's control.instruct through the relay, as principal
   * hookmap): the command's id, or why it was refused. Without it an open session is resumed like an ended one.
   */
  instruct?: (agent: string, session: string, text: string) => { ok: true; id: string } | { ok: false; why: string };
  /** x.hookmap.limit.resumed on hookmap's own session. */
  audit: (type: typeof LIMIT_RESUMED, data: Record<string, unknown>) => void;
  say: (line: string) => void;
  now?: () => number;
}

interface Limited {
  type: string;
  cause?: string;
  time?: string;
  agent?: string;
  session?: string;
  data?: Record<string, unknown>;
}

export class ResumeAtReset {
  private readonly waits = new Map<string, { timer: ReturnType<typeof setTimeout>; session: string }>();
  /** Per session line: how many times it was continued since a run of it last finished. */
  private readonly tries = new Map<string, number>();
  /** Session lines whose session ended (since up started): continued by a resume, not an instruction. */
  private readonly ended = new Set<string>();
  /** Instructions sent to open sessions, by command id, until their outcome. */
  private readonly told = new Map<string, { agent: string; session: string; line: string; timer: ReturnType<typeof setTimeout> }>();
  private readonly now: () => number;

  constructor(private readonly o: ResumeAtResetOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Each event on the stream. */
  seen(ev: Limited): void {
    if (typeof ev.session !== 'string' || typeof ev.agent !== 'string') return;
    const line = `${ev.agent}\u0000${lineOf(ev.session)}`;
    const pause = typeof ev.time === 'string' ? pauseOf({ type: ev.type, time: ev.time, data: ev.data }) : undefined;
    if (opens(ev.type) === 'session') this.ended.delete(line);
    if (isSessionTerminal(ev.type)) {
      this.ended.add(line);
      if (this.ended.size > MAX_WAITS * 10) this.ended.delete(this.ended.values().next().value!);
    }
    const told = instructionOutcome(ev.type) && typeof ev.cause === 'string' ? this.told.get(ev.cause) : undefined;
    if (told) this.outcome(ev.cause!, told, instructionOutcome(ev.type)!);
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
      if (this.o.instruct && !this.ended.has(line)) this.instructIt(agent, session, line);
      else this.resume(agent, session, line);
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
    for (const w of [...this.waits.values(), ...this.told.values()]) clearTimeout(w.timer);
    this.waits.clear();
    this.told.clear();
  }

  /** The session is still open (its agent waits at its prompt): the continue prompt goes to it as a steering instruction. */
  private instructIt(agent: string, session: string, line: string): void {
    const base = { session, agent, at: new Date(this.now()).toISOString() };
    const tries = this.tries.get(line) ?? 0;
    if (tries >= MAX_RESUMES) {
      this.o.audit(LIMIT_RESUMED, { ...base, ok: false, why: `stopped on its limit ${tries} times in a row after being continued: not continued again` });
      return;
    }
    const sent = this.o.instruct!(agent, session, this.o.prompt ?? DEFAULT_AFTER_LIMIT_PROMPT);
    if (!sent.ok) {
      this.o.audit(LIMIT_RESUMED, { ...base, ok: false, via: 'instruct', why: `no end of its session was seen, and it took no instruction (${sent.why})` });
      return;
    }
    this.tries.set(line, tries + 1);
    const timer = setTimeout(() => {
      if (!this.told.delete(sent.id)) return;
      this.o.audit(LIMIT_RESUMED, {
        ...base,
        ok: false,
        via: 'instruct',
        command: sent.id,
        why: 'the instruction was not delivered in time (is the next-turn carrier on?)',
      });
    }, INSTRUCT_OUTCOME_MS);
    timer.unref?.();
    this.told.set(sent.id, { agent, session, line, timer });
    this.o.say(`${agent} session ${session} is still open: the continue prompt sent to it as instruction ${sent.id}`);
  }

  /** An instruction's outcome: delivered (continued), or dropped as its session ended (then resumed). */
  private outcome(id: string, t: { agent: string; session: string; line: string; timer: ReturnType<typeof setTimeout> }, how: 'delivered' | 'dropped'): void {
    clearTimeout(t.timer);
    this.told.delete(id);
    if (how === 'dropped') {
      this.tries.set(t.line, Math.max(0, (this.tries.get(t.line) ?? 1) - 1)); // not continued after all: the resume counts instead
      return this.resume(t.agent, t.session, t.line);
    }
    this.o.audit(LIMIT_RESUMED, { session: t.session, agent: t.agent, at: new Date(this.now()).toISOString(), ok: true, via: 'instruct', command: id });
    this.o.say(`${t.agent} session ${t.session} continued after its limit: instruction ${id} delivered`);
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
