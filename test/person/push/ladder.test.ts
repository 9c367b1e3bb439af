// The escalation ladder through a whole `hookmap up` (issue 43), with the
// push service and Telegram stand-ins: inbox at once, push after 400 ms,
// Telegram after 1200 ms. Unseen: each step fires in order at its time.
// Seen at step 2 (the inbox card shown: POST /push/seen, recorded as
// x.hookmap.attention.seen on the stream): step 3 never fires. Answered from the
// chat: the notification is replaced, the stream settles the inbox card,
// the pending step is cancelled. Answered in the agent's own dialog: every
// surface says so. "I'm on it" on the chat card marks it seen. Hostile: no
// token, another Origin, a foreign Host, unknown ids, oversized bodies,
// forged and replayed buttons; a read-only token may say it saw something,
// attributed to it (seeing is not answering).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { addToken } from '../../../engine/runtime/auth/tokens.ts';
import { pushConfigOf } from '../../../engine/person/push/escalation.ts';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startPushService, type TestPushService } from '../../helpers/push-service.ts';
import { startTelegram, type TelegramStandIn } from '../../helpers/telegram-api.ts';
import { runCli } from '../../helpers/cli.ts';

const PUSH_MS = 400;
const CHAT_MS = 1200;
const ALEX = 111;
const STRANGER = 333;
let s: UpStack;
let ps: TestPushService;
let tg: TelegramStandIn;
/** A project folder with a ladder of its own (push after 5 s). */
const slow = join(mkdtempSync(join(tmpdir(), 'hookmap-ladder-proj-')), 'slowproj');
mkdirSync(slow);
const loud = join(slow, '..', 'loudproj');
mkdirSync(loud);

beforeAll(async () => {
  ps = await startPushService();
  tg = await startTelegram();
  s = await upStack({
    prefix: 'hookmap-ladder-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 20_000 }],
    push: pushConfigOf({
      ladder: {
        permission: [{ to: 'inbox' }, { to: 'push', after_ms: PUSH_MS }, { to: 'telegram', after_ms: CHAT_MS }],
        projects: {
          slowproj: { permission: [{ to: ['push', 'telegram'], after_ms: 2500 }] },
          loudproj: { permission: [{ to: 'push' }, { to: 'telegram', after_ms: 800, even_if_seen: true }] },
        },
      },
    }),
    setup: (home) => {
      writeFileSync(join(home, 'telegram-token'), `${tg.token}\n`, { mode: 0o600 });
      return {
        channels: { telegram: { tokenFile: join(home, 'telegram-token'), chatIds: [ALEX], userIds: [ALEX], users: { [ALEX]: 'alex' }, apiRoot: tg.url } },
      };
    },
  });
  await until('long polling', () => tg.calls.some((c) => c.method === 'getUpdates') || undefined);
  const res = await post('/push/devices', { subscription: ps.device('phone').subscription, name: 'phone' });
  expect(res.status, await res.clone().text()).toBe(200);
}, 30_000);

afterAll(async () => {
  await s?.done();
  await ps?.close();
  await tg?.close();
});

const auth = (token = s.token): Record<string, string> => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
const post = (path: string, body: unknown, headers: Record<string, string> = auth()) =>
  fetch(`${s.url}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
const events = () => readLogs(join(s.logDir, 'claude-code'));
const operatorEvents = () => readLogs(join(s.logDir, '_operator'));
const call = (session: string, command: string, cwd = '/tmp') => ({ session_id: session, cwd, tool_name: 'Bash', tool_input: { command } });
const hook = (body: Record<string, unknown>) =>
  fetch(`${s.url}/hooks/claude-code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const permission = (session: string, command: string, cwd?: string) =>
  hook({ hook_event_name: 'PermissionRequest', permission_mode: 'default', permission_suggestions: [], ...call(session, command, cwd) });
const requestOf = (session: string) => until(`request of ${session}`, () => events().find((e) => e.type === 'attention.requested' && e.session === session));
const pushes = (id: string, type = 'request') => ps.received.filter((r) => r.message.request === id && r.message.type === type);
const cardsFor = (session: string) => tg.sent.filter((m) => m.text.includes(`session ${session.slice(0, 12)}`));
const button = (card: { reply_markup?: any }, label: string) =>
  card.reply_markup.inline_keyboard.flat().find((b: any) => b.text === label).callback_data as string;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const lastCallbackText = () => tg.calls.filter((c) => c.method === 'answerCallbackQuery').at(-1)?.body.text as string | undefined;

describe('the escalation ladder', () => {
  it('unseen: each step fires in order at its time; answered from the chat, the notification is replaced and every surface says who', async () => {
    const held = permission('lad-1', 'make deploy');
    const req = await requestOf('lad-1');
    const t0 = Date.parse(req.time);
    const pushed = await until('the push step', () => pushes(req.id)[0], 10_000);
    expect(pushed.at - t0).toBeGreaterThanOrEqual(PUSH_MS - 50);
    const card = await until('the telegram step', () => cardsFor('lad-1')[0], 10_000);
    const cardAt = Date.now();
    expect(cardAt - t0).toBeGreaterThanOrEqual(CHAT_MS - 50);
    expect(pushed.at).toBeLessThan(cardAt);
    expect(card.text).not.toMatch(/seen by/);
    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id, data: button(card, 'Allow') });
    expect(await (await held).text()).toMatch(/"behavior":"allow"/);
    // the inbox card settles from the stream; the notification is replaced, with who answered and where
    expect((events().find((e) => e.type === 'attention.answered' && e.subject === req.id)!.data as any).by).toBe('alex');
    const replaced = await until('the replacement', () => pushes(req.id, 'settled')[0]);
    expect(replaced.message.tag).toBe(pushed.message.tag);
    expect(replaced.message.body).toBe('Answered by alex via telegram');
    const edit = await until('the card edited', () => tg.calls.find((c) => c.method === 'editMessageText' && c.body.message_id === card.message_id));
    expect(edit.body.text).toMatch(/Answered by alex via telegram$/);
  });

  it('seen at step 2 (the inbox card shown): step 3 never fires; the seen is on the stream, attributed', async () => {
    const held = permission('lad-2', 'make test');
    const req = await requestOf('lad-2');
    await until('the push step', () => pushes(req.id)[0], 10_000);
    const r = await post('/push/seen', { request: req.id, via: 'inbox' });
    expect(r.status).toBe(204);
    const seen = await until('x.hookmap.attention.seen', () => operatorEvents().find((e) => e.type === 'x.hookmap.attention.seen' && e.subject === req.id));
    expect(seen.agent).toBe('hookmap');
    expect(seen.data).toEqual({ by: 'owner', via: 'inbox' });
    await sleep(CHAT_MS + 500);
    expect(cardsFor('lad-2')).toHaveLength(0);
    expect((await runCli(['answer', req.id, '--deny'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url })).code).toBe(0);
    await held;
    const replaced = await until('the replacement', () => pushes(req.id, 'settled')[0]);
    expect(replaced.message.body).toBe('Answered by owner via cli');
  });

  it("a project's own ladder; answered (the CLI) before its step: the pending step never fires", async () => {
    const held = permission('lad-3', 'ls', slow);
    const req = await requestOf('lad-3');
    expect((await runCli(['answer', req.id, '--allow'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url })).code).toBe(0);
    await held;
    expect(pushes(req.id)).toHaveLength(0); // the default ladder's push step would have fired by now: the project's own is in force
    await sleep(Math.max(0, Date.parse(req.time) + 3000 - Date.now()));
    expect(pushes(req.id)).toHaveLength(0);
    expect(cardsFor('lad-3')).toHaveLength(0);
  });

  it('a step marked even_if_seen fires once seen, and its card says who has seen it', async () => {
    const held = permission('lad-7', 'make lint', loud);
    const req = await requestOf('lad-7');
    await until('the push step', () => pushes(req.id)[0], 10_000);
    expect((await post('/push/seen', { request: req.id })).status).toBe(204);
    const card = await until('the telegram step', () => cardsFor('lad-7')[0], 10_000);
    expect(card.text).toMatch(/seen by owner via inbox/);
    await runCli(['answer', req.id, '--deny'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });
    await held;
  });

  it("answered in the agent's own dialog (the tool ran): every surface says so", async () => {
    const held = permission('lad-4', 'npm run build');
    const req = await requestOf('lad-4');
    const card = await until('the telegram step', () => cardsFor('lad-4')[0], 10_000);
    await hook({
      hook_event_name: 'PostToolUse',
      tool_use_id: 'tu-4',
      tool_response: { stdout: '', stderr: '', interrupted: false },
      ...call('lad-4', 'npm run build'),
    });
    await held;
    const replaced = await until('the replacement', () => pushes(req.id, 'settled')[0]);
    expect(replaced.message.body).toBe('Answered in the terminal');
    const edit = await until('the card edited', () => tg.calls.find((c) => c.method === 'editMessageText' && c.body.message_id === card.message_id));
    expect(edit.body.text).toMatch(/Answered in the terminal$/);
    expect(edit.body.reply_markup.inline_keyboard).toEqual([]);
  });

  it('"I\'m on it" on the chat card: seen by that person (once; forged, replayed and a stranger\'s refused)', async () => {
    const held = permission('lad-5', 'git push');
    const req = await requestOf('lad-5');
    const card = await until('the telegram step', () => cardsFor('lad-5')[0], 10_000);
    const onIt = button(card, "I'm on it");
    tg.tap({ from: STRANGER, chat: ALEX, message_id: card.message_id, data: onIt });
    await until('refused', () => (lastCallbackText() === 'You may not answer this.' ? true : undefined));
    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id, data: 's:forgedforgedforged0' });
    await until('forged refused', () => (/unknown button/.test(lastCallbackText() ?? '') ? true : undefined));
    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id, data: onIt });
    await until('seen', () => (/^Seen/.test(lastCallbackText() ?? '') ? true : undefined));
    const seen = await until('x.hookmap.attention.seen', () => operatorEvents().find((e) => e.type === 'x.hookmap.attention.seen' && e.subject === req.id));
    expect(seen.data).toEqual({ by: 'alex', via: 'telegram' });
    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id, data: onIt });
    await until('replay refused', () => (/used already/.test(lastCallbackText() ?? '') ? true : undefined));
    expect(operatorEvents().filter((e) => e.type === 'x.hookmap.attention.seen' && e.subject === req.id)).toHaveLength(1);
    await runCli(['answer', req.id, '--deny'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });
    await held;
  });

  it('the seen endpoint refuses no token, another origin, a foreign Host, unknown ids and oversized bodies; a read token is attributed', async () => {
    const held = permission('lad-6', 'pwd');
    const req = await requestOf('lad-6');
    expect((await post('/push/seen', { request: req.id }, { 'content-type': 'application/json' })).status).toBe(401);
    expect((await post('/push/seen', { request: req.id }, { ...auth(), origin: 'https://evil.example' })).status).toBe(403);
    const host = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${s.url}/push/seen`);
      const r = httpRequest(
        { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...auth(), host: 'evil.example' } },
        (res) => (res.resume(), resolve(res.statusCode ?? 0)),
      );
      r.on('error', reject);
      r.end(JSON.stringify({ request: req.id }));
    });
    expect([403, 421]).toContain(host);
    expect((await post('/push/seen', { request: 'no-such-request' })).status).toBe(404);
    expect((await post('/push/seen', { request: req.id, via: 'telegram' })).status).toBe(400);
    expect((await post('/push/seen', { request: '../../etc' })).status).toBe(400);
    expect((await post('/push/seen', JSON.stringify({ request: req.id, pad: 'x'.repeat(20_000) }))).status).toBe(413);
    expect((await post('/push/seen', 'not json')).status).toBe(400);
    expect(operatorEvents().some((e) => e.type === 'x.hookmap.attention.seen' && e.subject === req.id)).toBe(false);
    const reader = addToken(s.home, 'rita', 'read').token;
    await until('the read token', async () => ((await fetch(`${s.url}/push/key`, { headers: auth(reader) })).status === 200 ? true : undefined));
    expect((await post('/push/seen', { request: req.id }, auth(reader))).status).toBe(204);
    const seen = await until('x.hookmap.attention.seen', () => operatorEvents().find((e) => e.type === 'x.hookmap.attention.seen' && e.subject === req.id));
    expect(seen.data).toEqual({ by: 'rita', via: 'inbox' });
    // a read principal cannot answer it: seeing is not answering
    expect((await runCli(['answer', req.id, '--allow'], { ...process.env, HOOKMAP_URL: s.url, HOOKMAP_TOKEN: reader })).code).not.toBe(0);
    await runCli(['answer', req.id, '--deny'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });
    await held;
    // settled: no longer pending
    expect((await post('/push/seen', { request: req.id })).status).toBe(404);
  });
});
