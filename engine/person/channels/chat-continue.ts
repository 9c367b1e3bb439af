// Continue on a chat card (issue 42), Telegram's and Slack's alike: an alert
// about a session that finished a turn, failed a run or ended on an error
// carries a Continue button, where up can launch, the agent's descriptor can
// continue a session (its launch `resume` argv) and the session's project is
// one the agent is wired for on the allow-list. A continue needs a prompt,
// so a press (from an allowed person; the button's one-time value spent, only
// from its own message: a forged or replayed press is refused) makes the
// channel ask for it in a message of its own (Telegram: a ForceReply; Slack:
// a message whose thread takes it); the first reply to that message from an
// allowed person is the prompt, and the agent's own continue runs through
// up's launcher like History's Continue (the same checks, audited with the
// person and the channel).
import type { Alert } from '../push/moments.ts';
import { Buttons } from './card.ts';
import { follow, notStarted, type ChatLaunch, type FollowOptions } from './chat-launch.ts';
import type { LaunchRun, Who } from '../launch/launcher.ts';

/** The alerts a Continue is offered on: the session's turn is over (it may have ended). */
const CONTINUE_KINDS = new Set<Alert['kind']>(['turn_finished', 'run_failed', 'session_error']);
/** How long a Continue button and its question stay good. */
const CONTINUE_MS = 24 * 3_600_000;
const MAX_ASKING = 500;

export interface ContinueTarget {
  agent: string;
  session: string;
  /** The project by folder name (the allow-list's). */
  project: string;
}

export class ContinueOffers {
  private readonly buttons = new Buttons();
  private readonly targets = new Map<string, ContinueTarget>();
  /** The messages asking for a prompt (channel-scoped ids), each answered once. */
  private readonly asking = new Map<string, ContinueTarget & { expires: number }>();

  constructor(private readonly launch: () => ChatLaunch | undefined) {}

  /** What a Continue on this alert would continue, if one is offered here. */
  target(a: Alert): ContinueTarget | undefined {
    const launch = this.launch();
    if (!launch || !a.session || !CONTINUE_KINDS.has(a.kind)) return undefined;
    const project = launch.projectOf(a.session);
    const can = launch.catalog().agents.find((x) => x.agent === a.agent);
    return project && can?.resume && can.projects.includes(project) ? { agent: a.agent, session: a.session, project } : undefined;
  }

  /** A Continue button's one-time value for this alert (bind it to the message it is sent on), else undefined: none offered. */
  offer(a: Alert): string | undefined {
    const t = this.target(a);
    if (!t) return undefined;
    const key = `continue:${t.session}:${Date.now()}:${Math.random()}`;
    const value = this.buttons.issue(key, Date.now() + CONTINUE_MS);
    this.targets.set(key, t);
    return value;
  }

  bind(value: string, message: string): void {
    this.buttons.bind(value, message);
  }

  /** A press of a Continue button on `message`: its target, or why not (forged, replayed, another message's). */
  take(value: string, message: string): ContinueTarget | { refused: string } {
    const t = this.buttons.take(value, message);
    if ('refused' in t) return t;
    const target = this.targets.get(t.request);
    this.targets.delete(t.request);
    return target ?? { refused: 'unknown button' };
  }

  /** The question for `t`'s prompt. */
  question(t: ContinueTarget, how: string): string {
    return `Continue ${t.agent} session ${t.session.slice(0, 12)} in ${t.project}: ${how} with what it should do next.`;
  }

  /** The message `message` asked for `t`'s prompt: its first reply continues the session. */
  asked(message: string, t: ContinueTarget): void {
    const now = Date.now();
    for (const [k, v] of this.asking) if (v.expires < now || this.asking.size > MAX_ASKING) this.asking.delete(k);
    this.asking.set(message, { ...t, expires: now + CONTINUE_MS });
  }

  /** Whether `message` asks for a prompt. */
  asks(message: string): boolean {
    return this.asking.has(message);
  }

  /**
   * A reply to `message` (it asks for a prompt) from an allowed person: the continue is started (once) and the reply
   * says so or why not; `later` gets the session's line once its first hook arrived.
   */
  reply(message: string, prompt: string, who: Who, later: (line: string, run?: LaunchRun) => void, o: FollowOptions = {}): string {
    const t = this.asking.get(message);
    const launch = this.launch();
    if (!t || t.expires < Date.now()) return 'Not continued: this question has expired; press Continue on a newer card.';
    if (!launch) return 'Not continued: this hookmap up cannot start agents.';
    let run: LaunchRun;
    try {
      run = launch.start({ agent: t.agent, project: t.project, prompt, resume: t.session }, who);
    } catch (e) {
      return notStarted(e).replace(/^Not started/, 'Not continued'); // the question stands: a better prompt may follow
    }
    this.asking.delete(message);
    follow(launch, run, t.project, later, o);
    return `Continuing ${t.agent} session ${t.session.slice(0, 12)} in ${t.project} (run ${run.id}).`;
  }
}
