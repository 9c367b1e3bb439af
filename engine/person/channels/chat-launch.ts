// `/new <agent> <project> <prompt>` from a chat (issue 42): a person on a
// channel's allow-list starts an agent session the way the inbox's New
// session form does, through up's launcher (engine/person/launch: the project from
// the allow-list by folder name, the agent wired there, the prompt one argv
// element, at most launch.max_runs at once, every start audited with the
// person and the channel). The reply says what happened; once the agent's
// first hook named the session, a second message says which, and its cards
// come to the same chat like any other.
import { LaunchError } from '../launch/argv.ts';
import type { Catalog } from '../launch/catalog.ts';
import type { LaunchRequest, LaunchRun, Who } from '../launch/launcher.ts';

/** What a channel may do with up's launcher (engine/app/up-launch.ts). */
export interface ChatLaunch {
  start(r: LaunchRequest, who: Who): LaunchRun;
  get(id: string): LaunchRun | undefined;
  catalog(): Catalog;
  /** The project label (its folder's name) of a session seen since up started, if it had one. */
  projectOf(session: string): string | undefined;
}

export interface FollowOptions {
  waitMs?: number;
  everyMs?: number;
}

/** The words of `/new` (with a bot's @name in a group), else undefined: not a /new message. */
export function parseNew(text: string): { agent?: string; project?: string; prompt?: string } | undefined {
  const m = /^\/new(?:@[A-Za-z0-9_]{1,64})?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const rest = (m[1] ?? '').trim();
  const [agent, project] = rest.split(/\s+/, 2);
  const prompt = rest
    .slice(agent?.length ?? 0)
    .trimStart()
    .slice(project?.length ?? 0)
    .trim();
  return { agent: agent || undefined, project: project || undefined, prompt: prompt || undefined };
}

/** How to use /new, with what this up offers (agents and their projects, by name). */
export function newUsage(c: Catalog): string {
  const agents = c.agents.filter((a) => a.projects.length);
  if (!agents.length)
    return 'Nothing can be started from here yet: no agent with a launch block is wired for an allowed project (hookmap setup <agent> --project --dir D).';
  return ['Usage: /new <agent> <project> <prompt>', ...agents.map((a) => `  ${a.agent}: ${a.projects.join(', ')}`)].join('\n');
}

/**
 * Starts the run `text` asks for, as `who` on `via`; `later` is called once with the second message (the session,
 * or why none came) when the run learned its session or ended, bounded by `waitMs`.
 */
export function chatNew(launch: ChatLaunch, text: string, who: Who, later: (line: string, run?: LaunchRun) => void, o: FollowOptions = {}): string | undefined {
  const asked = parseNew(text);
  if (!asked) return undefined;
  if (!asked.agent || !asked.project || !asked.prompt) return newUsage(launch.catalog());
  let run: LaunchRun;
  try {
    run = launch.start({ agent: asked.agent, project: asked.project, prompt: asked.prompt }, who);
  } catch (e) {
    return notStarted(e);
  }
  follow(launch, run, asked.project, later, o);
  return `Starting ${run.agent} in ${asked.project} (run ${run.id}).`;
}

/** Calls `later` once: the run's session once its first hook named it, or why none came (it ended, or `waitMs` passed). */
export function follow(launch: ChatLaunch, run: LaunchRun, project: string, later: (line: string, run?: LaunchRun) => void, o: FollowOptions = {}): void {
  const deadline = Date.now() + (o.waitMs ?? 120_000);
  const tick = () => {
    const r = launch.get(run.id) ?? run;
    if (r.session) return later(`${r.agent} session ${r.session.slice(0, 12)} is on the stream: its requests come here; reply to this message to steer it.`, r);
    if (!['starting', 'running'].includes(r.state))
      return later(`${r.agent} ${r.state}${r.exit !== undefined && r.exit !== null ? ` (exit ${r.exit})` : ''} before its first hook reached hookmap.`);
    if (Date.now() > deadline) return later(`${r.agent} runs, but no hook of it reached hookmap yet: is it wired for ${project}?`);
    setTimeout(tick, o.everyMs ?? 500).unref();
  };
  setTimeout(tick, o.everyMs ?? 500).unref();
}

/** A refused start, in the words of the chat reply. */
export const notStarted = (e: unknown): string => (e instanceof LaunchError ? `Not started: ${e.message} [${e.code}]` : `Not started: ${(e as Error).message}`);

/**
 * A chat message, if it is `/new`: refused for someone off the channel's allow-list (`who` undefined) or where up has
 * no launcher, else started; every line goes to `say` (the run, once its session is known). False: not a /new message.
 */
export function chatCommand(
  launch: ChatLaunch | undefined,
  text: string,
  who: () => { name: string } | undefined,
  surface: string,
  say: (line: string, run?: LaunchRun) => unknown,
): boolean {
  if (!parseNew(text)) return false;
  const person = who();
  if (!person) say(`Not started: you are not on the allow-list of this hookmap (the ${surface} channel's allowed users and chats).`);
  else if (!launch) say('Not started: this hookmap up cannot start agents.');
  else {
    const reply = chatNew(launch, text, { principal: person.name, surface }, (line, run) => void say(line, run));
    if (reply) say(reply);
  }
  return true;
}
