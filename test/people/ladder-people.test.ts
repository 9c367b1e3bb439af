// The ladder's second person and quiet hours per person (issue 43), through a
// whole `hookmap up` with the push service and Telegram stand-ins. alice,
// bob and carol all approve the project; the ladder pushes to alice and
// carol at once and to bob 400 ms later (each on their phone and their
// private chat). carol is in her quiet hours: she hears nothing, and the
// ladder goes on to bob. Unseen, bob is reached at his step; seen by alice
// ("I'm on it"), his step never fires. A step naming no person of people:
// is refused by the config check with where.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { People } from '../../engine/runtime/auth/people.ts';
import { FLOOR_ROWS } from '../../engine/runtime/policy/shell/floor.ts';
import { pushConfigOf } from '../../engine/person/push/escalation.ts';
import { loadUpConfig } from '../../engine/app/up-config.ts';
import { readLogs, until } from '../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../helpers/up-stack.ts';
import { startTelegram, type TelegramStandIn } from '../helpers/telegram-api.ts';
import { startPushService, type TestPushService } from '../helpers/push-service.ts';

const SECOND_MS = 400;
const TG = { alice: 111, bob: 222, carol: 333 };
let s: UpStack;
let tg: TelegramStandIn;
let ps: TestPushService;
const tokens: Record<string, string> = {};
const base = mkdtempSync(join(tmpdir(), 'hookmap-ladder-people-'));
const shop = join(base, 'shopapi');
mkdirSync(shop);

/** Quiet hours around now, in local time ("HH:MM-HH:MM"), and a window that is never now. */
const hhmm = (d: Date) => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
const aroundNow = () => `${hhmm(new Date(Date.now() - 3_600_000))}-${hhmm(new Date(Date.now() + 3_600_000))}`;
const notNow = () => `${hhmm(new Date(Date.now() + 3 * 3_600_000))}-${hhmm(new Date(Date.now() + 4 * 3_600_000))}`;

beforeAll(async () => {
  tg = await startTelegram();
  ps = await startPushService();
  const users = { [TG.alice]: 'alice-chat', [TG.bob]: 'bob-chat', [TG.carol]: 'carol-chat' };
  s = await upStack({
    prefix: 'hookmap-ladder-people-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 30_000 }],
    people: new People(
      [
        { name: 'alice', tokens: ['alice-phone'], telegram: [TG.alice], approve: [{ project: 'shopapi' }], quiet_hours: notNow() },
        { name: 'bob', tokens: ['bob-phone'], telegram: [TG.bob], approve: [{ project: 'shopapi' }] },
        { name: 'carol', tokens: ['carol-phone'], telegram: [TG.carol], approve: [{ project: 'shopapi' }], quiet_hours: aroundNow() },
      ],
      {},
      { telegram: users },
      FLOOR_ROWS,
    ),
    push: pushConfigOf({
      ladder: {
        permission: [
          { to: 'inbox' },
          { to: ['push', 'telegram'], people: ['alice', 'carol'] },
          { to: ['push', 'telegram'], people: ['bob'], after_ms: SECOND_MS },
        ],
      },
    }),
    setup: (home) => {
      for (const n of ['alice-phone', 'bob-phone', 'carol-phone']) tokens[n] = addToken(home, n, 'control').token;
      writeFileSync(join(home, 'telegram-token'), `${tg.token}\n`, { mode: 0o600 });
      const ids = Object.values(TG);
      return { channels: { telegram: { tokenFile: join(home, 'telegram-token'), chatIds: ids, userIds: ids, users, apiRoot: tg.url } } };
    },
  });
  await until('long polling', () => tg.calls.some((c) => c.method === 'getUpdates') || undefined);
  for (const who of ['alice', 'bob', 'carol']) {
    const token = tokens[`${who}-phone`]; // each phone registered with its person's token: the device is theirs
    const res = await fetch(`${s.url}/push/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subscription: ps.device(`${who}-phone`).subscription, name: `${who}-phone` }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  }
}, 30_000);

afterAll(async () => {
  await s?.done();
  await tg?.close();
  await ps?.close();
});

const events = () => readLogs(join(s.logDir, 'claude-code'));
const hook = (body: Record<string, unknown>) =>
  fetch(`${s.url}/hooks/claude-code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const permission = (session: string, command: string) =>
  hook({
    hook_event_name: 'PermissionRequest',
    permission_mode: 'default',
    permission_suggestions: [],
    session_id: session,
    cwd: shop,
    tool_name: 'Bash',
    tool_input: { command },
  });
const requestOf = (session: string) => until(`request of ${session}`, () => events().find((e) => e.type === 'attention.requested' && e.session === session));
const pushedTo = (id: string, type = 'request') => ps.received.filter((r) => r.message.request === id && r.message.type === type).map((r) => r.device);
const cardsIn = (chat: number, session: string) => tg.sent.filter((m) => m.chat_id === chat && m.text.includes(`session ${session.slice(0, 12)}`));
const button = (card: { reply_markup?: any }, label: string) =>
  card.reply_markup.inline_keyboard.flat().find((b: any) => b.text === label).callback_data as string;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the ladder: a second person, quiet hours per person', () => {
  it('unseen: alice at once, carol (quiet) never, bob at his step; the answer settles everywhere it went', async () => {
    const held = permission('lp-1', 'make deploy');
    const req = await requestOf('lp-1');
    expect((req as any).hookmappeople).toBe('alice,bob,carol');
    await until("alice's card", () => cardsIn(TG.alice, 'lp-1')[0]);
    await until("alice's push", () => pushedTo(req.id).includes('alice-phone') || undefined);
    const bobCard = await until("bob's card", () => cardsIn(TG.bob, 'lp-1')[0]);
    // his step fires at its time after the request (the stand-in records when each card was sent)
    const sentAt = tg.calls.find((c) => c.method === 'sendMessage' && Number(c.body.chat_id) === TG.bob)!.at;
    expect(sentAt - Date.parse(req.time)).toBeGreaterThanOrEqual(SECOND_MS - 20);
    const aliceAt = tg.calls.find((c) => c.method === 'sendMessage' && Number(c.body.chat_id) === TG.alice)!.at;
    expect(aliceAt).toBeLessThan(sentAt); // alice first, bob at his step
    await until("bob's push", () => pushedTo(req.id).includes('bob-phone') || undefined);
    // carol is in her quiet hours: neither her phone nor her chat
    expect(pushedTo(req.id)).not.toContain('carol-phone');
    expect(cardsIn(TG.carol, 'lp-1')).toHaveLength(0);
    // one card per chat, one push per phone
    expect(cardsIn(TG.alice, 'lp-1')).toHaveLength(1);
    expect(pushedTo(req.id).filter((d) => d === 'alice-phone')).toHaveLength(1);
    // bob answers from his chat: alice's card and both phones hear who answered
    tg.tap({ from: TG.bob, chat: TG.bob, message_id: bobCard.message_id, data: button(bobCard, 'Allow') });
    expect(await (await held).text()).toMatch(/"behavior":"allow"/);
    await until('settled pushes', () => (pushedTo(req.id, 'settled').length === 2 ? true : undefined));
    expect(pushedTo(req.id, 'settled').sort()).toEqual(['alice-phone', 'bob-phone']);
    await until(
      "alice's card edited",
      () =>
        tg.calls.some((c) => c.method === 'editMessageText' && Number(c.body.chat_id) === TG.alice && /Answered by bob-chat/.test(String(c.body.text))) ||
        undefined,
    );
  });

  it("seen by alice (I'm on it): bob's step never fires", async () => {
    const held = permission('lp-2', 'make migrate');
    const req = await requestOf('lp-2');
    const card = await until("alice's card", () => cardsIn(TG.alice, 'lp-2')[0]);
    tg.tap({ from: TG.alice, chat: TG.alice, message_id: card.message_id, data: button(card, "I'm on it") });
    await until('the seen', () => readLogs(join(s.logDir, '_operator')).find((e) => e.type === 'x.hookmap.attention.seen' && e.subject === req.id));
    await sleep(SECOND_MS + 400);
    expect(cardsIn(TG.bob, 'lp-2')).toHaveLength(0);
    expect(pushedTo(req.id)).toEqual(['alice-phone']);
    tg.tap({ from: TG.alice, chat: TG.alice, message_id: card.message_id, data: button(card, 'Deny') });
    expect(await (await held).text()).toMatch(/"behavior":"deny"/);
  });
});

describe('the ladder: its people are people', () => {
  it('a step naming no person of people: is refused with where; a step with people reaches only personal surfaces', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookmap-ladder-people-cfg-'));
    const file = join(dir, 'up.yaml');
    writeFileSync(
      file,
      [
        'people:',
        '  - name: alice',
        '    approve: [{ project: shopapi }]',
        'push:',
        '  ladder:',
        '    permission:',
        '      - { to: push, people: [alice] }',
        '      - { to: push, people: [bbo], after_ms: 300000 }',
        '',
      ].join('\n'),
    );
    expect(() => loadUpConfig(file, {})).toThrow(
      /up\.yaml:8:\d+ invalid-value: push\.ladder\.permission\[1\]\.people: 'bbo' is no person of people: \(alice\)/,
    );
    expect(() => pushConfigOf({ ladder: { permission: [{ to: ['push', 'ntfy'], people: ['alice'] }] } })).toThrow(/ntfy reach no one person/);
    expect(() => new People([{ name: 'a', quiet_hours: '25:00-07:00' } as any])).toThrow();
  });
});
