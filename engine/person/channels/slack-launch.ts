// Starting and continuing sessions from Slack (issue 42), the way Telegram
// does (chat-launch.ts, chat-continue.ts): the slash command `/new <agent>
// <project> <prompt>` (a Socket Mode `slash_commands` envelope) from a user
// mapped in `users`, in the configured channel, starts a run through up's
// launcher; its answer is the command's acknowledgement (only the person who
// typed it sees it), and the message naming the session, once its first hook
// arrived, is posted in the channel (a thread reply steers it). An alert about
// a session that can be continued carries a Continue button; a press asks,
// in a message of its own, for the prompt, and the first thread reply to that
// message continues the session.
import type { Answerer } from '../push/answer-as.ts';
import type { Alert } from '../push/moments.ts';
import type { LaunchRun } from '../launch/launcher.ts';
import { chatCommand, type ChatLaunch } from './chat-launch.ts';
import { ContinueOffers } from './chat-continue.ts';
import { continueButton, unescapeSlack, type SlackButton } from './slack-blocks.ts';

export interface SlackLaunchDeps {
  launch: () => ChatLaunch | undefined;
  channel: string;
  who: (user: string | undefined, channel: string | undefined) => Answerer | undefined;
  /** Posts in the channel (in `thread`, when given); the message's ts. */
  post: (text: string, thread?: string) => Promise<string | undefined>;
  /** A message whose thread replies steer `session`. */
  steerable: (ts: string, session: string, agent: string) => void;
  note: (key: string, line: string) => void;
}

export class SlackLaunch {
  private readonly continues: ContinueOffers;

  constructor(private readonly d: SlackLaunchDeps) {
    this.continues = new ContinueOffers(d.launch);
  }

  /** `/new` with the command's text: the acknowledgement's text; the session's message is posted later. */
  slashNew(user: string | undefined, channel: string | undefined, text: string): string {
    const now: string[] = [];
    let acked = false;
    chatCommand(
      this.d.launch(),
      `/new ${unescapeSlack(text)}`.trim(),
      () => this.d.who(user, channel),
      'slack',
      (line, run) => (acked ? void this.posted(line, run) : now.push(line)),
    );
    acked = true;
    return now.join('\n');
  }

  /** The message naming a started or continued session: one whose thread steers it. */
  private async posted(line: string, run?: LaunchRun, thread?: string): Promise<void> {
    const ts = await this.d.post(line.replace('reply to this message', 'reply in the thread'), thread);
    if (ts && run?.session) this.d.steerable(ts, run.session, run.agent);
  }

  /** An alert's Continue button (bind it to the message's ts once posted), where one is offered. */
  continueButton(a: Alert): SlackButton | undefined {
    const value = this.continues.offer(a);
    return value ? continueButton(value) : undefined;
  }

  bind(value: string, ts: string): void {
    this.continues.bind(value, `${this.d.channel}:${ts}`);
  }

  /** Continue pressed on the message `ts`: the question for the prompt, posted in the channel (its thread takes the prompt). */
  async pressed(user: string | undefined, channel: string | undefined, ts: string | undefined, value: string): Promise<void> {
    if (!this.d.who(user, channel)) return;
    const t = this.continues.take(value, `${channel}:${ts}`);
    if ('refused' in t) return this.d.note(`continue:${t.refused}:${value}`, `a Continue button was refused: ${t.refused}`);
    const asking = await this.d.post(this.continues.question(t, "reply in this message's thread"));
    if (asking) this.continues.asked(`${this.d.channel}:${asking}`, t);
  }

  /** Whether thread replies under `thread` answer a Continue's question. */
  asks(thread: string): boolean {
    return this.continues.asks(`${this.d.channel}:${thread}`);
  }

  /** A thread reply to a Continue's question: the prompt, from a mapped user; the answer goes in the same thread. */
  async replied(user: string | undefined, channel: string | undefined, thread: string, text: string): Promise<void> {
    const who = this.d.who(user, channel);
    if (!who) return void (await this.d.post('Not continued: you are not on the allow-list of this hookmap.', thread));
    const said = this.continues.reply(`${this.d.channel}:${thread}`, unescapeSlack(text), { principal: who.name, surface: 'slack' }, (line, run) =>
      this.posted(line, run),
    );
    await this.d.post(said, thread);
  }
}
