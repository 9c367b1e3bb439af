// Telegram (grammY): a card per held request in each allowed chat, with Allow / Deny (/ Allow always) buttons; a
// quote-reply to a card is guidance text for its request, or, once the request has settled, a steering instruction for
// its session. Only the allow-listed user ids may answer (anyone else in a group is refused and logged once); each button
// answers its request once, only from the message it was sent on; the card is edited when the request settles anywhere,
// never left with live buttons. "I'm on it" says the person has seen it (x.hookmap.attention.seen): the ladder's later
// steps are skipped (engine/person/push/ladder.ts). `/new <agent> <project> <prompt>` from an allowed person starts an agent
// session through up's launcher (chat-launch.ts). Long polling (no public URL needed), against `api_root` (Telegram's,
// or a self-hosted Bot API server). A 429's retry_after is honoured.
import type { Bot as BotType, Context } from 'grammy';
import { readTokenFile } from '../../runtime/auth/tokens.ts';
import { answerAs, steerAs, type Answerer, type PushAction } from '../push/answer-as.ts';
import { Buttons, cardKeyboard, cardText, choiceButtons, plainCard, tapHint, type Keyboard } from './card.ts';
import { ChannelHealth, type Channel, type ChannelDeps } from './channel.ts';
import type { TelegramConfig } from './config.ts';
import { offersAlways, type Alert, type Moment, type Settlement } from '../push/moments.ts';
import { withRetry } from './retry.ts';
import { chatsFor, notRouted } from './people-chats.ts';
import type { Audience } from '../../runtime/auth/people.ts';
import { classify, redactToken } from './telegram-errors.ts';
import { chatCommand } from './chat-launch.ts';
import { ContinueOffers } from './chat-continue.ts';
import { continuePressed, continueWith } from './telegram-continue.ts';

const VERBS: Record<string, PushAction> = { a: 'allow', d: 'deny', w: 'always' };

interface Card {
  request: string;
  session: string;
  agent: string;
  chat: number;
  message: number;
  /** What it says (its words, then the hint under them) and its buttons, kept when it is edited before it settles. */
  text: string;
  hint?: string;
  keyboard?: Keyboard;
}

export class TelegramChannel implements Channel {
  readonly name = 'telegram';
  private bot?: BotType;
  private polling?: Promise<void>;
  private readonly buttons = new Buttons();
  private readonly cards = new Map<string, Card[]>();
  private readonly byMessage = new Map<string, Card>();
  /** The form field each request's choice buttons answer. */
  private readonly fields = new Map<string, string>();
  readonly health: ChannelHealth;
  private readonly continues = new ContinueOffers(() => this.d.launch);

  constructor(
    private readonly c: TelegramConfig,
    private readonly d: ChannelDeps,
    private readonly o: { pollTimeoutS?: number } = {},
  ) {
    this.health = new ChannelHealth(d.say, 'telegram');
  }

  /** The bot, without polling (`hookmap channels test` sends while a running up polls). */
  private async ensureBot(): Promise<BotType> {
    if (this.bot) return this.bot;
    const { Bot } = await import('grammy');
    const token = readTokenFile(this.c.tokenFile, 'Telegram bot token file');
    const bot = new Bot(token, { client: { apiRoot: this.c.apiRoot, timeoutSeconds: 15 } });
    bot.on('callback_query:data', (ctx) => this.tapped(ctx));
    bot.on('message:text', (ctx) => this.replied(ctx));
    bot.catch((e) => this.health.problem(`err:${(e.error as Error)?.message}`, `an update failed: ${(e.error as Error)?.message ?? e.message}`));
    this.bot = bot;
    return bot;
  }

  /** Webhook mode: the secret Telegram presents with each update (the route checks it). */
  webhookSecret?: string;

  /** An update Telegram POSTed to /channels/telegram (webhook mode), already authenticated by its secret header. */
  async receive(update: unknown): Promise<void> {
    const bot = this.bot;
    if (!bot || !this.webhookSecret) return;
    await bot.handleUpdate(update as Parameters<BotType['handleUpdate']>[0]);
  }

  async start(): Promise<void> {
    const bot = await this.ensureBot();
    const hook = this.c.webhook;
    if (hook) {
      // webhook mode: Telegram POSTs updates to this up (a public https address), no polling
      this.webhookSecret = readTokenFile(hook.secretFile, 'Telegram webhook secret token file');
      try {
        await bot.init();
        await this.call(
          () => bot.api.setWebhook(hook.url, { secret_token: this.webhookSecret, allowed_updates: ['message', 'callback_query'] }),
          Date.now() + 30_000,
        );
      } catch (e) {
        this.health.problem(`webhook:${(e as Error).message}`, `could not set the webhook ${hook.url}: ${redactToken((e as Error).message)}`);
      }
      return;
    }
    // long polling runs until close(); a failed start (a wrong token, the server down) is said once, never thrown at up
    this.polling = bot
      .start({ timeout: this.o.pollTimeoutS ?? 25, allowed_updates: ['message', 'callback_query'] })
      .catch((e) => this.health.problem(`start:${(e as Error).message}`, `long polling stopped: ${redactToken((e as Error).message)}`));
  }

  async close(): Promise<void> {
    const bot = this.bot;
    this.bot = undefined;
    if (bot?.isRunning()) await Promise.race([bot.stop().catch(() => undefined), new Promise((r) => setTimeout(r, 3000))]);
    await Promise.race([this.polling, new Promise((r) => setTimeout(r, 3000))]);
  }

  async test(): Promise<{ ok: boolean; detail: string }> {
    try {
      const bot = await this.ensureBot();
      for (const chat of this.c.chatIds)
        await this.call(() => bot.api.sendMessage(chat, 'hookmap: cards for held requests come to this chat.'), Date.now() + 15_000);
      return { ok: true, detail: `sent to ${this.c.chatIds.length} chat(s)` };
    } catch (e) {
      return { ok: false, detail: redactToken((e as Error).message) };
    }
  }

  async request(m: Moment, audience?: Audience): Promise<void> {
    const bot = this.bot;
    if (!bot) return;
    const text = plainCard(cardText(m, this.c.capture ?? 'metadata'));
    const list: Card[] = this.cards.get(m.id) ?? [];
    this.cards.set(m.id, list);
    // a later step (a second person) adds the chats it reaches; a chat has one card per request
    const chats = chatsFor(this.c.chatIds, this.c.users, this.d.answer, m.id, 'telegram', audience).filter((c) => !list.some((x) => x.chat === c));
    if (m.kind === 'watch') return this.notice(bot, m, text, list, chats);
    await Promise.all(
      chats.map(async (chat) => {
        const choices = m.kind === 'form' ? choiceButtons(m, this.c.capture ?? 'metadata') : [];
        if (choices.length) this.fields.set(m.id, m.form!.field);
        const { keyboard, nonces } = cardKeyboard(m, choices, offersAlways(m, this.c.capture ?? 'metadata'), this.buttons, chat);
        const hint = tapHint(m, choices.length > 0);
        try {
          const sent = await this.call(() => bot.api.sendMessage(chat, `${text}\n${hint}`, { reply_markup: { inline_keyboard: keyboard } }), m.expires);
          const card: Card = { request: m.id, session: m.session, agent: m.agent, chat, message: sent.message_id, text, hint, keyboard };
          for (const n of nonces) this.buttons.bind(n, `${chat}:${sent.message_id}`);
          list.push(card);
          this.byMessage.set(`${chat}:${sent.message_id}`, card);
        } catch (e) {
          this.sendFailed(m, chat, e);
        }
      }),
    );
  }

  private sendFailed(m: Moment, chat: number, e: unknown): void {
    this.health.problem(`send:${chat}:${(e as Error).message}`, `could not send the card for ${m.id} to chat ${chat}: ${redactToken((e as Error).message)}`);
  }

  /** The watch's card: what to do, no buttons, no reply (it is answered at the agent); edited once the agent moves on. */
  private async notice(bot: BotType, m: Moment, text: string, list: Card[], chats: number[]): Promise<void> {
    for (const chat of chats) {
      try {
        const sent = await this.call(() => bot.api.sendMessage(chat, text), m.expires);
        list.push({ request: m.id, session: m.session, agent: m.agent, chat, message: sent.message_id, text });
      } catch (e) {
        this.sendFailed(m, chat, e);
      }
    }
  }

  async settled(m: Moment, s: Settlement): Promise<void> {
    this.buttons.settle(m.id);
    this.fields.delete(m.id);
    for (const card of this.cards.get(m.id) ?? []) await this.edit(card, `${card.text}\n\n${s.text}`, [], Date.now() + 60_000);
    this.cards.delete(m.id);
  }

  /** The card's words changed while it waits (1 of 2 allowed): each message edited, its buttons kept. */
  async updated(m: Moment): Promise<void> {
    const text = plainCard(cardText(m, this.c.capture ?? 'metadata'));
    for (const card of this.cards.get(m.id) ?? []) {
      card.text = text;
      await this.edit(card, card.hint ? `${text}\n${card.hint}` : text, card.keyboard ?? [], m.expires);
    }
  }

  private async edit(card: Card, text: string, keyboard: Keyboard, deadline: number): Promise<void> {
    const bot = this.bot;
    if (!bot) return;
    const edit = () => bot.api.editMessageText(card.chat, card.message, text, { reply_markup: { inline_keyboard: keyboard } });
    await this.call(edit, deadline).catch((e) =>
      this.health.problem(`edit:${(e as Error).message}`, `could not edit the card of ${card.request}: ${redactToken((e as Error).message)}`),
    );
  }

  async alert(a: Alert): Promise<void> {
    const bot = this.bot;
    if (!bot) return;
    for (const chat of this.c.chatIds) {
      const cont = this.continues.offer(a); // a session that can be continued: Continue asks for the prompt (chat-continue.ts)
      try {
        const sent = await this.call(
          () =>
            bot.api.sendMessage(chat, `${a.title}${a.session ? `\nsession ${a.session.slice(0, 12)}: reply to this message to steer it` : ''}`, {
              ...(cont ? { reply_markup: { inline_keyboard: [[{ text: 'Continue', callback_data: `r:${cont}` }]] } } : {}),
            }),
          Date.now() + 60_000,
        );
        if (cont) this.continues.bind(cont, `${chat}:${sent.message_id}`);
        if (a.session) this.steerable(chat, sent.message_id, a.session, a.agent, a.title);
      } catch (e) {
        this.health.problem(`alert:${(e as Error).message}`, `could not send an alert: ${redactToken((e as Error).message)}`);
      }
    }
  }

  /** Who a Telegram user answers as, if the allow-list lets them (else said once, and refused). */
  private who(userId: number | undefined, chat: number | undefined): Answerer | undefined {
    if (userId === undefined || chat === undefined || !this.c.userIds.includes(userId) || !this.c.chatIds.includes(chat)) {
      this.health.note(`who:${userId}:${chat}`, `ignored user ${userId ?? '?'} in chat ${chat ?? '?'}: not in user_ids / chat_ids`);
      return undefined;
    }
    return {
      name: this.c.users[String(userId)] ?? `telegram:${userId}`,
      scopes: ['read', 'control'],
      via: 'telegram',
      key: String(userId),
      capture: this.c.capture ?? 'metadata',
    };
  }

  private async tapped(ctx: Context): Promise<void> {
    const q = ctx.callbackQuery!;
    const chat = q.message?.chat.id;
    const who = this.who(q.from.id, chat);
    if (!who) return void (await ctx.answerCallbackQuery({ text: 'You may not answer this.' }).catch(() => undefined));
    const [verb, nonce] = String(q.data).split(':');
    if (verb === 'r' && nonce && chat !== undefined) return continuePressed(this.continues, ctx, nonce, `${chat}:${q.message?.message_id}`);
    const action = VERBS[verb];
    const off = nonce && notRouted(this.d.answer, who.name, this.buttons.peek(nonce)); // a person it is not routed to spends no button
    if (off) return void (await ctx.answerCallbackQuery({ text: off }).catch(() => undefined));
    const t =
      (action || verb === 'c' || verb === 's') && nonce ? this.buttons.take(nonce, `${chat}:${q.message?.message_id}`) : { refused: 'not a hookmap button' };
    if ('refused' in t) return void (await ctx.answerCallbackQuery({ text: t.refused }).catch(() => undefined));
    if (verb === 's') {
      const ok = this.d.seen?.(t.request, who.name, 'telegram') ?? false;
      return void (await ctx.answerCallbackQuery({ text: ok ? 'Seen: the next steps wait for you' : 'Not pending any more' }).catch(() => undefined));
    }
    const field = this.fields.get(t.request);
    const r =
      verb === 'c' && t.choice !== undefined && field
        ? await answerAs(this.d.answer, who, t.request, { values: { [field]: t.choice } })
        : await answerAs(this.d.answer, who, t.request, { action });
    const done = `${verb === 'c' ? 'Answered' : action === 'deny' ? 'Denied' : 'Allowed'}${r.ok && r.partial ? `: ${r.partial}` : ''}`;
    await ctx.answerCallbackQuery({ text: r.ok ? `${done}${r.rule ? `, rule ${r.rule}` : ''}` : r.detail.slice(0, 190) }).catch(() => undefined);
  }

  private async replied(ctx: Context): Promise<void> {
    const msg = ctx.message!;
    const to = msg.reply_to_message;
    if (!to) return this.newSession(ctx);
    const asking = `${msg.chat.id}:${to.message_id}`;
    if (this.continues.asks(asking))
      return continueWith(this.continues, ctx, asking, this.who(msg.from?.id, msg.chat.id), (m, r) => this.steerable(msg.chat.id, m, r.session, r.agent, ''));
    const card = this.byMessage.get(`${msg.chat.id}:${to.message_id}`);
    if (!card) return;
    const who = this.who(msg.from?.id, msg.chat.id);
    if (!who) return;
    const text = msg.text ?? '';
    const open = card.request && this.d.moments.isOpen(card.request);
    const r = open ? await answerAs(this.d.answer, who, card.request, { text }) : steerAs(this.d.answer, who, card.agent, card.session, text);
    const said = r.ok
      ? open
        ? 'Sent to the agent as guidance (the request is denied with it).'
        : 'Sent to the session as steering.'
      : `Not sent: ${r.detail}`;
    await ctx.reply(said, { reply_parameters: { message_id: msg.message_id } }).catch(() => undefined);
  }

  /** `/new <agent> <project> <prompt>` (chat-launch.ts); the message naming a started session is one a reply steers. */
  private async newSession(ctx: Context): Promise<void> {
    const msg = ctx.message!;
    const who = () => this.who(msg.from?.id, msg.chat.id);
    chatCommand(this.d.launch, msg.text ?? '', who, 'telegram', (line, run) =>
      ctx.reply(line, { reply_parameters: { message_id: msg.message_id } }).then(
        (sent) => void (run?.session && this.steerable(msg.chat.id, sent.message_id, run.session, run.agent, line)),
        () => undefined,
      ),
    );
  }

  private steerable(chat: number, message: number, session: string, agent: string, text: string): void {
    this.byMessage.set(`${chat}:${message}`, { request: '', session, agent, chat, message, text });
  }

  private call<T>(fn: () => Promise<T>, deadline: number): Promise<T> {
    return withRetry(fn, classify, deadline);
  }
}
