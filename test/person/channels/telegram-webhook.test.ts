// Telegram in webhook mode (issue 24): `channels.telegram.webhook` makes
// hookmap set the webhook (with a secret token) instead of long polling;
// the Bot API stand-in then POSTs each update to up's /channels/telegram
// with the secret header, and a button tap answers the held hook as with
// polling. A POST without the secret, or with another, is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startTelegram, type TelegramStandIn } from '../../helpers/telegram-api.ts';

let s: UpStack;
let tg: TelegramStandIn;

const freePort = () =>
  new Promise<number>((r) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => r(p));
    });
  });

beforeAll(async () => {
  tg = await startTelegram();
  const port = await freePort();
  s = await upStack({
    prefix: 'hookmap-tg-hook-',
    port,
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 20_000 }],
    push: { delayMs: 0 },
    setup: (home) => {
      writeFileSync(join(home, 'tg-token'), `${tg.token}\n`, { mode: 0o600 });
      writeFileSync(join(home, 'tg-secret'), 'webhook-secret-token_0123456789\n', { mode: 0o600 });
      return {
        channels: {
          telegram: {
            tokenFile: join(home, 'tg-token'),
            chatIds: [111],
            userIds: [111],
            users: { 111: 'alex' },
            apiRoot: tg.url,
            webhook: { url: `http://127.0.0.1:${port}/channels/telegram`, secretFile: join(home, 'tg-secret') },
          },
        },
      };
    },
  });
  await until('the webhook set', () => tg.calls.find((c) => c.method === 'setWebhook'));
}, 30_000);

afterAll(async () => {
  await s?.done();
  await tg?.close();
});

describe('Telegram webhook mode', () => {
  it('sets the webhook with a secret, polls nothing, and a delivered tap settles the hook', async () => {
    const set = tg.calls.find((c) => c.method === 'setWebhook')!;
    expect(set.body.url).toBe(`${s.url}/channels/telegram`);
    expect(set.body.secret_token).toBe('webhook-secret-token_0123456789');
    expect(tg.calls.some((c) => c.method === 'getUpdates')).toBe(false);
    const held = fetch(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: 'tgw-1',
        cwd: '/tmp',
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        permission_suggestions: [],
      }),
    });
    const card = await until('the card', () => tg.sent.find((m) => m.text.includes('session tgw-1')));
    const allow = card.reply_markup.inline_keyboard.flat().find((b: any) => b.text === 'Allow').callback_data;
    tg.tap({ from: 111, chat: 111, message_id: card.message_id, data: allow });
    expect(await (await held).text()).toMatch(/"behavior":"allow"/);
    expect(tg.deliveries).toEqual([200]);
    const answered = readLogs(join(s.logDir, 'claude-code')).find((e) => e.type === 'attention.answered' && e.session === 'tgw-1');
    expect((answered!.data as any).by).toBe('alex');
  });

  it('refuses a POST without the secret token, or with another', async () => {
    const update = JSON.stringify({
      update_id: 99,
      message: { message_id: 1, date: 0, chat: { id: 111, type: 'private' }, from: { id: 111, is_bot: false, first_name: 'x' }, text: 'hi' },
    });
    const none = await fetch(`${s.url}/channels/telegram`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: update });
    expect(none.status).toBe(401);
    const wrong = await fetch(`${s.url}/channels/telegram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'guessed' },
      body: update,
    });
    expect(wrong.status).toBe(401);
  });
});
