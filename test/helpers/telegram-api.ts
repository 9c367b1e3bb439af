// A Telegram Bot API server on loopback, for the channel tests (a real one
// cannot run here): what hookmap's bot library (grammY) calls, as the Bot API
// documents it (https://core.telegram.org/bots/api): POST /bot<token>/<method>
// with a JSON body, answers { ok, result } or { ok: false, error_code,
// description, parameters? }; getUpdates long-polls (offset, timeout);
// sendMessage / editMessageText / answerCallbackQuery are recorded. A test
// injects updates (a button tap, a reply) as a user would cause them, makes
// the next call of a method answer 429 with retry_after, or hangs it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Call {
  method: string;
  body: Record<string, any>;
  at: number;
}

export interface TelegramStandIn {
  url: string;
  token: string;
  calls: Call[];
  /** Every message the bot sent (sendMessage), with the id it was given. */
  sent: { message_id: number; chat_id: number; text: string; reply_markup?: any; reply_parameters?: any }[];
  tap(o: { from: number; chat: number; message_id: number; data: string }): void;
  reply(o: { from: number; chat: number; to: number; text: string }): void;
  /** A plain message from a user (a command such as /new), not a reply; resolves with its message id. */
  send(o: { from: number; chat: number; text: string }): number;
  /** Webhook mode (setWebhook): each delivery's HTTP status, as Telegram would see it. */
  deliveries: number[];
  /** The next `n` calls of `method` answer 429 with retry_after `s`. */
  rateLimit(method: string, s: number, n?: number): void;
  hang(method: string): void;
  close(): Promise<void>;
}

export async function startTelegram(token = '123456:TEST-token-for-the-stand-in_abcdefghij'): Promise<TelegramStandIn> {
  const calls: Call[] = [];
  const sent: TelegramStandIn['sent'] = [];
  const updates: any[] = [];
  const waiting: (() => void)[] = [];
  const limited = new Map<string, { s: number; n: number }>();
  const hung = new Set<string>();
  const open = new Set<ServerResponse>();
  let updateId = 1;
  let webhook: { url: string; secret?: string } | undefined;
  const deliveries: number[] = [];
  let messageId = 100;
  const wake = () => {
    // webhook mode: Telegram POSTs each update to the webhook, with its secret header
    if (webhook) {
      const hook = webhook;
      for (const u of updates.splice(0)) {
        void fetch(hook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(hook.secret ? { 'x-telegram-bot-api-secret-token': hook.secret } : {}) },
          body: JSON.stringify(u),
        }).then(
          (r) => deliveries.push(r.status),
          () => deliveries.push(0),
        );
      }
      return;
    }
    for (const w of waiting.splice(0)) w();
  };
  const answer = (res: ServerResponse, status: number, doc: unknown) => {
    open.delete(res);
    if (!res.writableEnded) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    open.add(res);
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!m) return answer(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      if (m[1] !== token) return answer(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const method = m[2];
      let body: Record<string, any>;
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        return answer(res, 400, { ok: false, error_code: 400, description: 'Bad Request: body is not JSON' });
      }
      calls.push({ method, body, at: Date.now() });
      if (hung.has(method)) return;
      const l = limited.get(method);
      if (l && l.n > 0) {
        l.n--;
        return answer(res, 429, { ok: false, error_code: 429, description: `Too Many Requests: retry after ${l.s}`, parameters: { retry_after: l.s } });
      }
      const ok = (result: unknown) => answer(res, 200, { ok: true, result });
      switch (method) {
        case 'getMe':
          return ok({
            id: 4242,
            is_bot: true,
            first_name: 'hookmap test',
            username: 'hookmap_test_bot',
            can_join_groups: true,
            can_read_all_group_messages: false,
            supports_inline_queries: false,
          });
        case 'deleteWebhook':
          webhook = undefined;
          return ok(true);
        case 'setWebhook':
          webhook = { url: String(body.url), secret: body.secret_token };
          return ok(true);
        case 'getUpdates': {
          const offset = Number(body.offset ?? 0);
          while (updates.length && updates[0].update_id < offset) updates.shift();
          if (updates.length) return ok(updates.slice(0, body.limit ?? 100));
          const t = setTimeout(() => ok([]), Math.min(Number(body.timeout ?? 0), 2) * 1000);
          waiting.push(() => {
            clearTimeout(t);
            ok(updates.filter((u) => u.update_id >= offset));
          });
          return;
        }
        case 'sendMessage': {
          const msg = {
            message_id: ++messageId,
            chat_id: Number(body.chat_id),
            text: String(body.text),
            reply_markup: body.reply_markup,
            reply_parameters: body.reply_parameters,
          };
          sent.push(msg);
          return ok({
            message_id: msg.message_id,
            date: Math.floor(Date.now() / 1000),
            chat: { id: msg.chat_id, type: msg.chat_id < 0 ? 'group' : 'private' },
            text: msg.text,
          });
        }
        case 'editMessageText':
          return ok({ message_id: body.message_id, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: 'private' }, text: body.text });
        case 'answerCallbackQuery':
          return ok(true);
        default:
          return answer(res, 404, { ok: false, error_code: 404, description: `Not Found: method ${method}` });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const user = (id: number) => ({ id, is_bot: false, first_name: `user${id}` });
  const chat = (id: number) => ({ id, type: id < 0 ? 'group' : 'private' });
  return {
    url,
    token,
    calls,
    sent,
    deliveries,
    tap(o) {
      const msg = sent.find((s) => s.message_id === o.message_id);
      updates.push({
        update_id: updateId++,
        callback_query: {
          id: `cb${updateId}`,
          from: user(o.from),
          chat_instance: 'ci',
          data: o.data,
          message: { message_id: o.message_id, date: 0, chat: chat(o.chat), text: msg?.text ?? '' },
        },
      });
      wake();
    },
    send(o) {
      const id = ++messageId;
      updates.push({ update_id: updateId++, message: { message_id: id, date: 0, from: user(o.from), chat: chat(o.chat), text: o.text } });
      wake();
      return id;
    },
    reply(o) {
      const to = sent.find((s) => s.message_id === o.to);
      updates.push({
        update_id: updateId++,
        message: {
          message_id: ++messageId,
          date: 0,
          from: user(o.from),
          chat: chat(o.chat),
          text: o.text,
          reply_to_message: { message_id: o.to, date: 0, chat: chat(o.chat), text: to?.text ?? '' },
        },
      });
      wake();
    },
    rateLimit(method, s, n = 1) {
      limited.set(method, { s, n });
    },
    hang(method) {
      hung.add(method);
    },
    close: () => {
      wake();
      for (const r of open) r.destroy();
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
