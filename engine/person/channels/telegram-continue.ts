// Continue on a Telegram alert card (chat-continue.ts): the press, from an
// allowed person and spent once, is answered with a ForceReply message
// asking for the prompt; a reply to that message continues the session, and
// the reply naming the continued session is one a reply steers.
import type { Context } from 'grammy';
import type { Answerer } from '../push/answer-as.ts';
import type { ContinueOffers } from './chat-continue.ts';

/** Continue pressed on `message` (chat:message_id): its question, a ForceReply, once the button is good. */
export async function continuePressed(offers: ContinueOffers, ctx: Context, nonce: string, message: string): Promise<void> {
  const t = offers.take(nonce, message);
  if ('refused' in t) return void (await ctx.answerCallbackQuery({ text: t.refused }).catch(() => undefined));
  await ctx.answerCallbackQuery({ text: 'Reply with the prompt' }).catch(() => undefined);
  const markup = { force_reply: true as const, selective: true, input_field_placeholder: 'what it should do next' };
  const sent = await ctx.reply(offers.question(t, 'reply to this message'), { reply_markup: markup }).catch(() => undefined);
  if (sent) offers.asked(`${sent.chat.id}:${sent.message_id}`, t);
}

/** A reply to Continue's question (`asking`): the prompt the session is continued with, by `who` (undefined: not allowed). */
export async function continueWith(
  offers: ContinueOffers,
  ctx: Context,
  asking: string,
  who: Answerer | undefined,
  steerable: (message: number, run: { session: string; agent: string }) => void,
): Promise<void> {
  const msg = ctx.message!;
  const say = (line: string, run?: { session?: string; agent: string }) =>
    ctx.reply(line, { reply_parameters: { message_id: msg.message_id } }).then(
      (sent) => void (run?.session && steerable(sent.message_id, { session: run.session, agent: run.agent })),
      () => undefined,
    );
  if (!who) return void (await say('Not continued: you are not on the allow-list of this hookmap.'));
  await say(offers.reply(asking, msg.text ?? '', { principal: who.name, surface: 'telegram' }, (line, run) => void say(line, run)));
}
