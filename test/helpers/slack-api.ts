// Slack's Web API and Socket Mode on loopback, for the channel tests (Slack
// itself cannot run here), reached through the framework's API URL option
// (@slack/bolt `clientOptions.slackApiUrl`): POST /api/<method> with the
// token as a bearer (form or JSON body), answering { ok, ... } as
// https://api.slack.com/methods documents; apps.connections.open gives a
// WebSocket URL on which the stand-in speaks Socket Mode
// (https://api.slack.com/apis/socket-mode): a `hello`, then envelopes
// (interactive block_actions for a button, events_api for a thread reply,
// slash_commands for a slash command) that the app must acknowledge with
// their envelope_id, a slash command's ack carrying its response payload.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface SlackCall {
  method: string;
  token: string;
  body: Record<string, any>;
}

export interface SlackStandIn {
  url: string;
  botToken: string;
  appToken: string;
  calls: SlackCall[];
  posted: { ts: string; channel: string; text: string; blocks: any[]; thread_ts?: string }[];
  /** Envelope ids the app acknowledged. */
  acked: string[];
  /** The response payload an acknowledgement carried, by envelope id (a slash command's answer). */
  responses: Map<string, any>;
  connected(): boolean;
  /** The next `n` calls of `method` answer HTTP 429 with Retry-After `s` (Slack's rate limit). */
  rateLimit(method: string, s: number, n?: number): void;
  press(o: { user: string; channel: string; ts: string; action_id: string; value: string }): string;
  threadReply(o: { user: string; channel: string; thread: string; text: string }): string;
  /** A slash command typed by `user` in `channel`; resolves with its envelope id. */
  slash(o: { user: string; channel: string; command: string; text: string }): string;
  close(): Promise<void>;
}

export async function startSlack(): Promise<SlackStandIn> {
  const botToken = 'xoxb-stand-in-bot-token-0123456789';
  const appToken = 'xapp-1-stand-in-app-token-0123456789';
  const calls: SlackCall[] = [];
  const posted: SlackStandIn['posted'] = [];
  const acked: string[] = [];
  const responses = new Map<string, any>();
  let ts = 1_700_000_000;
  let env = 0;
  let socket: WebSocket | undefined;
  const limited = new Map<string, { s: number; n: number }>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0];
      const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      let body: Record<string, any> = {};
      if (String(req.headers['content-type']).includes('json')) body = raw ? JSON.parse(raw) : {};
      else for (const [k, v] of new URLSearchParams(raw)) body[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
      calls.push({ method, token, body });
      const l = limited.get(method);
      if (l && l.n > 0) {
        l.n--;
        return void res
          .writeHead(429, { 'retry-after': String(l.s), 'content-type': 'application/json' })
          .end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      }
      const send = (doc: object) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
      const want = method === 'apps.connections.open' ? appToken : botToken;
      if (token !== want) return send({ ok: false, error: 'invalid_auth' });
      if (method === 'apps.connections.open') return send({ ok: true, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/link` });
      if (method === 'auth.test')
        return send({ ok: true, url: 'https://standin.slack.com/', team: 'stand-in', user: 'hookmap', team_id: 'T1', user_id: 'UBOT', bot_id: 'B1' });
      if (method === 'chat.postMessage') {
        const t = `${++ts}.000100`;
        posted.push({ ts: t, channel: body.channel, text: body.text, blocks: body.blocks ?? [], thread_ts: body.thread_ts });
        return send({ ok: true, channel: body.channel, ts: t, message: { text: body.text, ts: t } });
      }
      if (method === 'chat.update') return send({ ok: true, channel: body.channel, ts: body.ts, text: body.text });
      return send({ ok: false, error: 'unknown_method' });
    });
  });
  const wss = new WebSocketServer({ server, path: '/link' });
  wss.on('connection', (ws) => {
    socket = ws;
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'applink-standin', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: 'A1' },
      }),
    );
    ws.on('message', (d) => {
      try {
        const m = JSON.parse(String(d));
        if (m.envelope_id) acked.push(m.envelope_id);
        if (m.envelope_id && m.payload !== undefined) responses.set(m.envelope_id, m.payload);
      } catch {
        // not an ack
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const deliver = (doc: object) => {
    const id = `env-${++env}`;
    socket?.send(JSON.stringify({ envelope_id: id, ...doc }));
    return id;
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    botToken,
    appToken,
    calls,
    posted,
    acked,
    responses,
    connected: () => socket?.readyState === 1,
    rateLimit: (method, s, n = 1) => void limited.set(method, { s, n }),
    press: (o) =>
      deliver({
        type: 'interactive',
        accepts_response_payload: false,
        payload: {
          type: 'block_actions',
          user: { id: o.user, username: o.user, team_id: 'T1' },
          api_app_id: 'A1',
          token: 'legacy',
          container: { type: 'message', message_ts: o.ts, channel_id: o.channel, is_ephemeral: false },
          trigger_id: 'tr',
          team: { id: 'T1', domain: 'standin' },
          channel: { id: o.channel, name: 'ops' },
          message: { type: 'message', ts: o.ts, text: '' },
          response_url: 'http://127.0.0.1:1/unused',
          actions: [{ action_id: o.action_id, block_id: 'b', value: o.value, type: 'button', action_ts: String(Date.now() / 1000) }],
        },
      }),
    threadReply: (o) =>
      deliver({
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: 0,
        retry_reason: '',
        payload: {
          token: 'legacy',
          team_id: 'T1',
          api_app_id: 'A1',
          type: 'event_callback',
          event_id: `Ev${env}`,
          event_time: 1,
          authorizations: [{ enterprise_id: null, team_id: 'T1', user_id: 'UBOT', is_bot: true }],
          event: {
            type: 'message',
            user: o.user,
            text: o.text,
            ts: `${++ts}.000200`,
            thread_ts: o.thread,
            channel: o.channel,
            channel_type: 'channel',
            event_ts: `${ts}.000200`,
          },
        },
      }),
    // https://api.slack.com/apis/socket-mode#command: the command's form fields as the payload
    slash: (o) =>
      deliver({
        type: 'slash_commands',
        accepts_response_payload: true,
        payload: {
          token: 'legacy',
          team_id: 'T1',
          team_domain: 'standin',
          channel_id: o.channel,
          channel_name: 'ops',
          user_id: o.user,
          user_name: o.user,
          command: o.command,
          text: o.text,
          api_app_id: 'A1',
          is_enterprise_install: 'false',
          response_url: 'http://127.0.0.1:1/unused',
          trigger_id: `tr-${env}`,
        },
      }),
    close: async () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
