// Slack, with Slack's own framework (@slack/bolt) in Socket Mode (no public
// URL): a Block Kit card per held request in the configured channel with
// Allow / Deny (/ Allow always) buttons; a thread reply under a card is
// guidance text for its request, or, once it has settled, steering for its
// session. Only the Slack user ids mapped to a hookmap principal (`users`)
// may answer; a button answers its request once, only from its message; the
// card is updated when the request settles anywhere. `api_url` points the
// framework at another Web API (the tests' stand-in speaks it and Socket Mode).
// `/new` and the Continue button on alerts: slack-launch.ts.
import { readTokenFile } from '../../runtime/auth/tokens.ts';
import { answerAs, steerAs, type Answerer, type PushAction } from '../push/answer-as.ts';
import { Buttons, cardText, choiceButtons, type CardText } from './card.ts';
import { ChannelHealth, type Channel, type ChannelDeps } from './channel.ts';
import type { SlackConfig } from './config.ts';
import { offersAlways, type Alert, type Moment, type Settlement } from '../push/moments.ts';
import { withRetry } from './retry.ts';
import { cardBlocks, cardHint, classify, context, requestButtons, section, type Shown } from './slack-blocks.ts';
import { mentionsFor, notRouted } from './people-chats.ts';
import type { Audience } from '../../runtime/auth/people.ts';
import { SlackLaunch } from './slack-launch.ts';

type BoltApp = import('@slack/bolt').App;

interface Card {
  request: string;
  session: string;
  agent: string;
  ts: string;
  text: CardText;
  /** What else it shows (mentions, the hint, its buttons), kept when it is edited before it settles. */
  shown?: Shown;
}

export class SlackChannel implements Channel {
  readonly name = 'slack';
  private app?: BoltApp;
  private readonly buttons = new Buttons();
  private readonly cards = new Map<string, Card>();
  private readonly byTs = new Map<string, Card>();
  /** The form field each request's choice buttons answer. */
  private readonly fields = new Map<string, string>();
  readonly health: ChannelHealth;
  /** `/new` and Continue (slack-launch.ts). */
  private readonly launching: SlackLaunch;

  constructor(
    private readonly c: SlackConfig,
    private readonly d: ChannelDeps,
  ) {
    this.health = new ChannelHealth(d.say, 'slack');
    this.launching = new SlackLaunch({
      launch: () => d.launch,
      channel: c.channel,
      who: (user, channel) => this.who(user, channel),
      post: (text, thread) => this.post(text, thread),
      steerable: (ts, session, agent) => this.byTs.set(ts, { request: '', session, agent, ts, text: { title: '', body: '', meta: '' } }),
      note: (key, line) => this.health.note(key, line),
    });
  }

  async start(): Promise<void> {
    const { App, LogLevel } = await import('@slack/bolt');
    const quiet = {
      debug() {},
      info() {},
      warn() {},
      error: (...m: unknown[]) => this.health.problem(`log:${String(m[0])}`, m.map(String).join(' ')),
      setLevel() {},
      getLevel: () => LogLevel.ERROR,
      setName() {},
    };
    const app = new App({
      token: readTokenFile(this.c.botTokenFile, 'Slack bot token file'),
      appToken: readTokenFile(this.c.appTokenFile, 'Slack app token file'),
      socketMode: true,
      logger: quiet,
      logLevel: LogLevel.ERROR,
      // retries and rate limits are ours (retry.ts, bounded by the request's window), not the client's half hour
      clientOptions: { ...(this.c.apiUrl ? { slackApiUrl: this.c.apiUrl } : {}), retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: 10_000 },
    });
    app.action(/^hookmap_(allow|deny|always|seen|choice_\d+)$/, async ({ ack, body, action }) => {
      await ack();
      const b = body as { user?: { id?: string }; channel?: { id?: string }; message?: { ts?: string } };
      const id = (action as { action_id: string }).action_id.replace('hookmap_', '');
      await this.tapped(
        b.user?.id,
        b.channel?.id,
        b.message?.ts,
        id.startsWith('choice_') ? 'choice' : (id as PushAction | 'seen'),
        String((action as { value?: string }).value ?? ''),
      );
    });
    app.action('hookmap_continue', async ({ ack, body, action }) => {
      await ack();
      const b = body as { user?: { id?: string }; channel?: { id?: string }; message?: { ts?: string } };
      await this.launching.pressed(b.user?.id, b.channel?.id, b.message?.ts, String((action as { value?: string }).value ?? ''));
    });
    app.command('/new', async ({ command, ack }) => {
      await ack({ response_type: 'ephemeral', text: this.launching.slashNew(command.user_id, command.channel_id, command.text ?? '') });
    });
    app.message(async ({ message }) => {
      const m = message as { user?: string; text?: string; channel?: string; thread_ts?: string; ts?: string };
      if (!m.thread_ts || m.thread_ts === m.ts) return;
      if (this.launching.asks(m.thread_ts)) await this.launching.replied(m.user, m.channel, m.thread_ts, m.text ?? '');
      else await this.replied(m.user, m.channel, m.thread_ts, m.text ?? '');
    });
    app.error(async (e) => this.health.problem(`err:${e.message}`, `an event failed: ${e.message}`));
    this.app = app;
    try {
      await app.start();
    } catch (e) {
      this.health.problem(`start:${(e as Error).message}`, `could not connect (Socket Mode): ${(e as Error).message}`);
    }
  }

  async close(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    await Promise.race([app?.stop().catch(() => undefined), new Promise((r) => setTimeout(r, 3000))]);
  }

  async test(): Promise<{ ok: boolean; detail: string }> {
    try {
      // the Web API alone (no second Socket Mode connection beside a running up's)
      const { webApi } = await import('@slack/bolt');
      const client =
        this.app?.client ??
        new webApi.WebClient(readTokenFile(this.c.botTokenFile, 'Slack bot token file'), {
          ...(this.c.apiUrl ? { slackApiUrl: this.c.apiUrl } : {}),
          retryConfig: { retries: 0 },
          rejectRateLimitedCalls: true,
          timeout: 10_000,
        });
      await this.call(
        () => client.chat.postMessage({ channel: this.c.channel, text: 'hookmap: cards for held requests come to this channel.' }),
        Date.now() + 15_000,
      );
      return { ok: true, detail: `posted to ${this.c.channel}` };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  }

  async request(m: Moment, audience?: Audience): Promise<void> {
    const app = this.app;
    if (!app) return;
    // a step with people mentions theirs (a second person: in the card's thread once it is posted)
    const ids = mentionsFor(this.d.answer, m.id, audience);
    if (audience && !ids.length) return;
    const had = this.cards.get(m.id);
    if (had) return void (ids.length && (await this.post(`${ids.map((id) => `<@${id}>`).join(' ')}: this waits for you too`, had.ts)));
    const text = cardText(m, this.c.capture ?? 'metadata');
    const choices = m.kind === 'form' ? choiceButtons(m, this.c.capture ?? 'metadata') : [];
    if (choices.length) this.fields.set(m.id, m.form!.field);
    const issue = (choice?: string) => this.buttons.issue(m.id, m.expires, choice, choice === undefined ? undefined : m.id);
    const buttons = requestButtons(m, choices, issue, offersAlways(m, this.c.capture ?? 'metadata'));
    const shown: Shown = { ids, hint: cardHint(m, choices.length > 0), buttons };
    const said = `${ids.map((id) => `<@${id}> `).join('')}${text.title}: ${text.body}`;
    try {
      const r = await this.call(
        () => app.client.chat.postMessage({ channel: this.c.channel, text: said, blocks: cardBlocks(text, shown) as never }),
        m.expires,
      );
      const ts = String(r.ts);
      for (const b of buttons) this.buttons.bind(b.value, `${this.c.channel}:${ts}`);
      const card: Card = { request: m.id, session: m.session, agent: m.agent, ts, text, shown };
      this.cards.set(m.id, card);
      this.byTs.set(ts, card);
    } catch (e) {
      this.health.problem(`send:${(e as Error).message}`, `could not post the card for ${m.id}: ${(e as Error).message}`);
    }
  }

  /** The card's words changed while it waits (1 of 2 allowed): edited in place, its buttons kept. */
  async updated(m: Moment): Promise<void> {
    const card = this.cards.get(m.id);
    const app = this.app;
    if (!card?.shown || !app) return;
    const text = (card.text = cardText(m, this.c.capture ?? 'metadata'));
    const blocks = cardBlocks(text, card.shown) as never;
    await this.call(() => app.client.chat.update({ channel: this.c.channel, ts: card.ts, text: `${text.title}: ${text.body}`, blocks }), m.expires).catch(
      (e) => void this.health.problem(`update:${(e as Error).message}`, `could not update the card of ${m.id}: ${(e as Error).message}`),
    );
  }

  async settled(m: Moment, s: Settlement): Promise<void> {
    this.buttons.settle(m.id);
    this.fields.delete(m.id);
    const card = this.cards.get(m.id);
    this.cards.delete(m.id);
    if (!card || !this.app) return;
    const app = this.app;
    try {
      await this.call(
        () =>
          app.client.chat.update({
            channel: this.c.channel,
            ts: card.ts,
            text: `${card.text.title}: ${s.text}`,
            blocks: [section(`*${card.text.title}*\n${card.text.body}`), context(s.text)],
          }),
        Date.now() + 60_000,
      );
    } catch (e) {
      this.health.problem(`update:${(e as Error).message}`, `could not update the card of ${m.id}: ${(e as Error).message}`);
    }
  }

  async alert(a: Alert): Promise<void> {
    const app = this.app;
    if (!app) return;
    const cont = this.launching.continueButton(a); // a session that can be continued: Continue asks for the prompt
    try {
      const r = await this.call(
        () =>
          app.client.chat.postMessage({
            channel: this.c.channel,
            text: a.title,
            blocks: [
              section(`*${a.title}*`),
              context(a.session ? `session ${a.session.slice(0, 12)} · reply in the thread to steer it` : 'open the inbox for the details'),
              ...(cont ? [{ type: 'actions', elements: [cont] }] : []),
            ] as never,
          }),
        Date.now() + 60_000,
      );
      if (cont) this.launching.bind(cont.value, String(r.ts));
      if (a.session)
        this.byTs.set(String(r.ts), { request: '', session: a.session, agent: a.agent, ts: String(r.ts), text: { title: a.title, body: '', meta: '' } });
    } catch (e) {
      this.health.problem(`alert:${(e as Error).message}`, `could not post an alert: ${(e as Error).message}`);
    }
  }

  private who(user: string | undefined, channel: string | undefined): Answerer | undefined {
    const name = user ? this.c.users[user] : undefined;
    if (!name || channel !== this.c.channel) {
      this.health.note(`who:${user}:${channel}`, `ignored ${user ?? 'a user'} in ${channel ?? '?'}: not mapped in users (or another channel)`);
      return undefined;
    }
    return { name, scopes: ['read', 'control'], via: 'slack', key: user!, capture: this.c.capture ?? 'metadata' };
  }

  private async tapped(
    user: string | undefined,
    channel: string | undefined,
    ts: string | undefined,
    action: PushAction | 'choice' | 'seen',
    value: string,
  ): Promise<void> {
    const who = this.who(user, channel);
    if (!who) return;
    const off = notRouted(this.d.answer, who.name, this.buttons.peek(value)); // a person it is not routed to spends no button
    if (off) return void this.health.note(`tap:not-routed:${value}`, off);
    const t = this.buttons.take(value, `${channel}:${ts}`);
    if ('refused' in t) return void this.health.note(`tap:${t.refused}:${value}`, `a button was refused: ${t.refused}`);
    if (action === 'seen') return void (this.d.seen?.(t.request, who.name, 'slack') || this.health.note(`seen:${t.request}`, `${t.request}: not pending`));
    const field = this.fields.get(t.request);
    if (action === 'choice' && (t.choice === undefined || !field)) return;
    const r =
      action === 'choice'
        ? await answerAs(this.d.answer, who, t.request, { values: { [field!]: t.choice } })
        : await answerAs(this.d.answer, who, t.request, { action });
    if (!r.ok) this.health.note(`answer:${r.error}:${t.request}`, `${who.name}'s ${action} of ${t.request} was not sent: ${r.detail}`);
  }

  private async replied(user: string | undefined, channel: string | undefined, thread: string, text: string): Promise<void> {
    const card = this.byTs.get(thread);
    if (!card) return;
    const who = this.who(user, channel);
    if (!who || !this.app) return;
    const open = card.request && this.d.moments.isOpen(card.request);
    const r = open ? await answerAs(this.d.answer, who, card.request, { text }) : steerAs(this.d.answer, who, card.agent, card.session, text);
    const said = r.ok
      ? open
        ? 'Sent to the agent as guidance (the request is denied with it).'
        : 'Sent to the session as steering.'
      : `Not sent: ${r.detail}`;
    const app = this.app;
    await this.call(() => app.client.chat.postMessage({ channel: this.c.channel, thread_ts: thread, text: said }), Date.now() + 30_000).catch(() => undefined);
  }

  /** A message in the channel (in `thread` when given): its ts, or undefined (said once). */
  private async post(text: string, thread?: string): Promise<string | undefined> {
    const app = this.app;
    if (!app) return undefined;
    const r = await this.call(
      () => app.client.chat.postMessage({ channel: this.c.channel, text, ...(thread ? { thread_ts: thread } : {}) }),
      Date.now() + 30_000,
    ).catch((e) => void this.health.problem(`post:${(e as Error).message}`, `could not post: ${(e as Error).message}`));
    return r?.ts ? String(r.ts) : undefined;
  }

  private call<T>(fn: () => Promise<T>, deadline: number): Promise<T> {
    return withRetry(fn, classify, deadline);
  }
}
