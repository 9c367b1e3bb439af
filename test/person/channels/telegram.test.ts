// Telegram cards through a whole `hookmap up` (issue 24), against a Bot API
// stand-in on loopback reached through `api_root`: one card per allowed chat
// for a held Claude Code PermissionRequest; an allowed user's Allow settles
// the hook with the allow bytes (attention.answered by that person) and the
// card is edited; another user's tap, a second tap, a tap after the request
// settled elsewhere, a forged callback and a button of another message are
// refused; a quote-reply lands as guidance text; a 429's retry_after is
// honoured; a hanging API never delays the hook reply. At the default
// capture no card carries the command; the bot token is in no message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startTelegram, type TelegramStandIn } from '../../helpers/telegram-api.ts';
import { runCli } from '../../helpers/cli.ts';

let s: UpStack;
let tg: TelegramStandIn;
const ALEX = 111;
const GROUP = -222;
const STRANGER = 333;

beforeAll(async () => {
  tg = await startTelegram();
  s = await upStack({
    prefix: 'hookmap-tg-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 20_000, config: { instruct: true } }],
    push: { delayMs: 0 },
    setup: (home) => {
      writeFileSync(join(home, 'telegram-token'), `${tg.token}\n`, { mode: 0o600 });
      return {
        channels: {
          telegram: { tokenFile: join(home, 'telegram-token'), chatIds: [ALEX, GROUP], userIds: [ALEX], users: { [ALEX]: 'alex' }, apiRoot: tg.url },
        },
      };
    },
  });
  await until('long polling', () => tg.calls.some((c) => c.method === 'getUpdates') || undefined);
}, 30_000);

afterAll(async () => {
  await s?.done();
  await tg?.close();
});

const events = () => readLogs(join(s.logDir, 'claude-code'));
const permission = (session: string, command: string) =>
  fetch(`${s.url}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      hook_event_name: 'PermissionRequest',
      session_id: session,
      cwd: '/tmp',
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command },
      permission_suggestions: [],
    }),
  });
const requestOf = (session: string) => until(`request of ${session}`, () => events().find((e) => e.type === 'attention.requested' && e.session === session));
const cardsFor = (session: string) => tg.sent.filter((m) => m.text.includes(`session ${session.slice(0, 12)}`));
const button = (card: { reply_markup?: any }, label: string) =>
  card.reply_markup.inline_keyboard.flat().find((b: any) => b.text === label).callback_data as string;
const answered = (id: string) => until(`${id} answered`, () => events().find((e) => e.type === 'attention.answered' && e.subject === id));
const answerCli = (id: string, how: string[]) => runCli(['answer', id, ...how], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });

describe('Telegram', () => {
  it('sends one card per allowed chat, without the command at the default capture; an allowed Allow settles the hook; the card is edited', async () => {
    const held = permission('tg-1', 'curl -H "Authorization: Bearer sk-live-123456" https://api.example.com');
    const req = await requestOf('tg-1');
    const cards = await until('two cards', () => (cardsFor('tg-1').length === 2 ? cardsFor('tg-1') : undefined));
    expect(cards.map((c) => c.chat_id).sort()).toEqual([GROUP, ALEX].sort());
    for (const c of cards) {
      expect(c.text).toMatch(/^claude-code wants to run Bash in tmp\nPermission request\nsession tg-1 · on .+ · \d+ s to answer/);
      expect(c.text).not.toMatch(/curl|sk-live|api\.example/);
      expect(c.text).not.toContain(tg.token);
      // no Allow always: a card that does not show the command cannot save a rule for it (issue 40)
      expect(c.reply_markup.inline_keyboard.flat().map((b: any) => b.text)).toEqual(['Allow', 'Deny', "I'm on it"]);
    }
    const mine = cards.find((c) => c.chat_id === ALEX)!;
    tg.tap({ from: ALEX, chat: ALEX, message_id: mine.message_id, data: button(mine, 'Allow') });
    expect(await (await held).text()).toBe('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}');
    expect(((await answered(req.id)).data as any).by).toBe('alex');
    const edits = await until('both cards edited', () => {
      const e = tg.calls.filter((c) => c.method === 'editMessageText' && cards.some((x) => x.message_id === c.body.message_id));
      return e.length === 2 ? e : undefined;
    });
    for (const e of edits) {
      expect(e.body.text).toMatch(/Answered by alex via telegram$/);
      expect(e.body.reply_markup.inline_keyboard).toEqual([]);
    }
    // a second tap of the same button (or of the other chat's, after it settled) answers nothing
    const before = events().filter((e) => e.type === 'attention.answered').length;
    tg.tap({ from: ALEX, chat: ALEX, message_id: mine.message_id, data: button(mine, 'Deny') });
    const group = cards.find((c) => c.chat_id === GROUP)!;
    tg.tap({ from: ALEX, chat: GROUP, message_id: group.message_id, data: button(group, 'Deny') });
    await until('both taps answered', () => (tg.calls.filter((c) => c.method === 'answerCallbackQuery').length >= 3 ? true : undefined));
    expect(events().filter((e) => e.type === 'attention.answered').length).toBe(before);
  });

  it("refuses a stranger's tap in the group, a forged callback and a button of another message", async () => {
    const held = permission('tg-2', 'ls');
    const req = await requestOf('tg-2');
    const cards = await until('two cards', () => (cardsFor('tg-2').length === 2 ? cardsFor('tg-2') : undefined));
    const group = cards.find((c) => c.chat_id === GROUP)!;
    const mine = cards.find((c) => c.chat_id === ALEX)!;
    tg.tap({ from: STRANGER, chat: GROUP, message_id: group.message_id, data: button(group, 'Allow') });
    tg.tap({ from: ALEX, chat: ALEX, message_id: mine.message_id, data: 'a:forgedforgedforged0' });
    // the group card's button pressed on alex's own card: bound to its message, refused
    tg.tap({ from: ALEX, chat: ALEX, message_id: mine.message_id, data: button(group, 'Allow') });
    await until('three refusals', () =>
      tg.calls.filter((c) => c.method === 'answerCallbackQuery' && /may not|unknown button|another message/.test(c.body.text)).length >= 3 ? true : undefined,
    );
    expect(events().some((e) => e.type === 'attention.answered' && e.subject === req.id)).toBe(false);
    expect(s.lines.filter((l) => /ignored user 333 in chat -222/.test(l))).toHaveLength(1);
    // answered in the terminal: the card is edited, and alex's button then answers nothing
    expect((await answerCli(req.id, ['--deny'])).code).toBe(0);
    await held;
    await until('edited', () => tg.calls.find((c) => c.method === 'editMessageText' && c.body.message_id === mine.message_id));
    tg.tap({ from: ALEX, chat: ALEX, message_id: mine.message_id, data: button(mine, 'Allow') });
    await until(
      'refused',
      () =>
        tg.calls
          .filter((c) => c.method === 'answerCallbackQuery')
          .at(-1)
          ?.body.text.match(/unknown button/) ?? undefined,
    );
  });

  it('a quote-reply to a card is guidance text for its request', async () => {
    const held = permission('tg-3', 'rm -rf build');
    const req = await requestOf('tg-3');
    const mine = await until('the card', () => cardsFor('tg-3').find((c) => c.chat_id === ALEX));
    tg.reply({ from: ALEX, chat: ALEX, to: mine.message_id, text: 'clean with make clean instead' });
    const reply = JSON.parse(await (await held).text());
    expect(reply.hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: 'clean with make clean instead' });
    expect(((await answered(req.id)).data as any).by).toBe('alex');
    await until('the confirmation', () => tg.sent.find((m) => m.reply_parameters && /as guidance/.test(m.text)));
  });

  it('a quote-reply to a settled card steers its session: the next eligible hook reply carries the text', async () => {
    const held = permission('tg-6', 'ls');
    await requestOf('tg-6');
    const mine = await until('the card', () => cardsFor('tg-6').find((c) => c.chat_id === ALEX));
    tg.tap({ from: ALEX, chat: ALEX, message_id: mine.message_id, data: button(mine, 'Allow') });
    await held;
    await until('edited', () => tg.calls.find((c) => c.method === 'editMessageText' && c.body.message_id === mine.message_id));
    tg.reply({ from: ALEX, chat: ALEX, to: mine.message_id, text: 'also run the linter before you finish' });
    await until('the confirmation', () => tg.sent.find((m) => m.reply_parameters && /as steering/.test(m.text)));
    const next = await fetch(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        hook_event_name: 'PostToolUse',
        session_id: 'tg-6',
        cwd: '/tmp',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_use_id: 't6',
        tool_response: { stdout: '', stderr: '', interrupted: false },
      }),
    });
    expect(await next.text()).toContain('also run the linter before you finish');
    const delivered = await until('delivered', () => events().find((e) => e.type === 'x.claude-code.instruction.delivered' && e.session === 'tg-6'));
    expect(delivered).toBeDefined();
  });

  it("honours a 429's retry_after, and a hanging API never delays the hook reply", async () => {
    tg.rateLimit('sendMessage', 1, 2);
    const held = permission('tg-4', 'pwd');
    const req = await requestOf('tg-4');
    const t0 = Date.now();
    await until('the cards after the wait', () => (cardsFor('tg-4').length === 2 ? true : undefined), 15_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    await answerCli(req.id, ['--allow']);
    await held;
    tg.hang('sendMessage');
    const held2 = permission('tg-5', 'pwd');
    const req2 = await requestOf('tg-5');
    expect((await answerCli(req2.id, ['--allow'])).code).toBe(0);
    expect(await (await held2).text()).toMatch(/"behavior":"allow"/);
  });
});
