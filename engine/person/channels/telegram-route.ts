// Telegram's webhook mode: POST /channels/telegram, where the Bot API
// delivers updates when `channels.telegram.webhook` is configured (a public
// https address: --public-url). Telegram authenticates itself with the
// secret token set with setWebhook, in X-Telegram-Bot-Api-Secret-Token; any
// request without it is refused before its body is looked at. JSON only,
// bounded. The update then takes the same path a polled one takes (who may
// answer, which button, once).
import { throttledSay } from '../../core/io/throttle.ts';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { jsonOnly } from '../inbox/json-scope.ts';
import type { TelegramChannel } from './telegram.ts';

const MAX_BODY = 256 * 1024;

export function registerTelegramWebhook(app: FastifyInstance, channel: () => TelegramChannel | undefined, say?: (line: string) => void): void {
  app.register(async (scope) => {
    // a malformed body anyone can send: said once a minute at most (engine/core/io/throttle.ts)
    const sayMalformed = throttledSay(say);
    jsonOnly(scope, MAX_BODY, (e) => sayMalformed(`telegram webhook: ${e.message}`));
    scope.post('/channels/telegram', async (req, reply) => {
      const ch = channel();
      const secret = ch?.webhookSecret;
      if (!ch || !secret) return reply.code(503).send({ error: 'not-ready', detail: 'the Telegram channel has not started' });
      const got = Buffer.from(String(req.headers['x-telegram-bot-api-secret-token'] ?? ''));
      const want = Buffer.from(secret);
      if (got.length !== want.length || !timingSafeEqual(got, want))
        return reply.code(401).send({ error: 'unauthorized', detail: 'not from Telegram (no or a wrong X-Telegram-Bot-Api-Secret-Token)' });
      // answered at once: Telegram retries a slow webhook, and an answer runs its own course
      void ch.receive(req.body).catch((e) => say?.(`telegram webhook: an update failed: ${(e as Error).message}`));
      return reply.send({ ok: true });
    });
  });
}
