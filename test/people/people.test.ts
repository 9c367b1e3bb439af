// People (issue 43) through a whole `hookmap up` with the Telegram stand-in:
// alice approves the shopapi project and any floor row, bob the other project
// and force pushes; `git push --force` needs two different people. A request
// routed to alice is invisible to bob's token (the stream he reads) and to
// bob's chat, and his answer is refused (token, chat button, "Allow always"
// query alike), attributed and audited; two tokens of alice count once; alice
// then bob settles allow; either's deny settles deny; a token of no person
// and a replayed command are refused; forged buttons answer nothing. With no
// `people:` configured nothing changes (every other test of up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { People, PeopleError } from '../../engine/runtime/auth/people.ts';
import { FLOOR_ROWS } from '../../engine/runtime/policy/shell/floor.ts';
import { makeCommand, openSocket, sendCommand, type SocketSession } from '../../engine/runtime/relay/client.ts';
import type { AepEvent } from '../../engine/core/map/envelope.ts';
import { readLogs, until } from '../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../helpers/up-stack.ts';
import { startTelegram, type TelegramStandIn } from '../helpers/telegram-api.ts';
import { startPushService, type TestPushService } from '../helpers/push-service.ts';

const ALICE_TG = 111;
const BOB_TG = 222;
let s: UpStack;
let tg: TelegramStandIn;
let ps: TestPushService;
const tokens: Record<string, string> = {};
const base = mkdtempSync(join(tmpdir(), 'hookmap-people-proj-'));
const shop = join(base, 'shopapi');
const other = join(base, 'otherproj');
mkdirSync(shop);
mkdirSync(other);

beforeAll(async () => {
  tg = await startTelegram();
  ps = await startPushService();
  const users = { [ALICE_TG]: 'alice-chat', [BOB_TG]: 'bob-chat' };
  s = await upStack({
    prefix: 'hookmap-people-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 30_000 }],
    people: new People(
      [
        { name: 'alice', tokens: ['alice-laptop', 'alice-phone'], telegram: [ALICE_TG], approve: [{ project: 'shopapi' }, { floor: 'any' }] },
        { name: 'bob', tokens: ['bob-laptop'], telegram: [BOB_TG], approve: [{ project: 'otherproj' }, { floor: 'force-push' }] },
      ],
      { floor: ['force-push'] },
      { telegram: users },
      FLOOR_ROWS,
    ),
    setup: (home) => {
      for (const n of ['alice-laptop', 'alice-phone', 'bob-laptop', 'ci']) tokens[n] = addToken(home, n, 'control').token;
      writeFileSync(join(home, 'telegram-token'), `${tg.token}\n`, { mode: 0o600 });
      return {
        push: { delayMs: 0 },
        channels: {
          telegram: { tokenFile: join(home, 'telegram-token'), chatIds: [ALICE_TG, BOB_TG], userIds: [ALICE_TG, BOB_TG], users, apiRoot: tg.url },
        },
      };
    },
  });
  await until('long polling', () => tg.calls.some((c) => c.method === 'getUpdates') || undefined);
  // each registers a phone with a token of theirs: the device is its token's person's
  for (const [token, name] of [
    ['alice-phone', 'alice-phone'],
    ['bob-laptop', 'bob-phone'],
  ]) {
    const res = await fetch(`${s.url}/push/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens[token]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subscription: ps.device(name).subscription, name }),
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
const permission = (session: string, command: string, cwd: string) =>
  hook({
    hook_event_name: 'PermissionRequest',
    permission_mode: 'default',
    permission_suggestions: [],
    session_id: session,
    cwd,
    tool_name: 'Bash',
    tool_input: { command },
  });
const requestOf = (session: string) => until(`request of ${session}`, () => events().find((e) => e.type === 'attention.requested' && e.session === session));
const pending = (id: string) =>
  s.up.daemons
    .get('claude-code')!
    .pending()
    .some((h) => h.id === id);
const cardsIn = (chat: number, session: string) => tg.sent.filter((m) => m.chat_id === chat && m.text.includes(`session ${session.slice(0, 12)}`));
const button = (card: { reply_markup?: any }, label: string) =>
  card.reply_markup.inline_keyboard.flat().find((b: any) => b.text === label).callback_data as string;
const lastCallbackText = () => tg.calls.filter((c) => c.method === 'answerCallbackQuery').at(-1)?.body.text as string | undefined;

/** Every event a token's SSE replay holds (live=0: the replay, then the stream ends). */
async function streamAs(token: string): Promise<AepEvent[]> {
  const res = await fetch(`${s.url}/stream?from=all&live=0`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));
}

const sockets: SocketSession[] = [];
afterAll(() => {
  for (const x of sockets) x.ws.close();
});

/** Answer as a token over the relay's WebSocket (the path every surface takes); the daemon's ack. */
async function answerAs(
  token: string,
  req: AepEvent,
  option: 'allow' | 'deny',
  cmd = makeCommand('control.attention.respond', req.session!, { subject: req.id, data: { answer: { option } } }),
) {
  const sock = await openSocket(s.url, token);
  sockets.push(sock);
  const r = await sendCommand(sock, cmd, { ackWindowMs: 5000, outcomeWindowMs: 200, isFinal: () => true });
  if (r.kind !== 'acked') throw new Error(`no ack: ${JSON.stringify(r)}`);
  return r.ack as AepEvent & { data: Record<string, any> };
}

describe('people: routing', () => {
  it('a request routed to alice is invisible to bob (his token, his chat) and his answers are refused, audited', async () => {
    const held = permission('ppl-1', 'make deploy', shop);
    const req = await requestOf('ppl-1');
    expect((req as any).hookmappeople).toBe('alice');
    expect((req as any).hookmapapprovals).toBeUndefined();
    // alice's chat gets the card, bob's never does
    const card = await until("alice's card", () => cardsIn(ALICE_TG, 'ppl-1')[0]);
    // the views each principal reads: alice and the owner see it, bob does not (nor anything about it)
    expect((await streamAs(tokens['alice-laptop'])).some((e) => e.id === req.id)).toBe(true);
    expect((await streamAs(s.token)).some((e) => e.id === req.id)).toBe(true);
    const bobs = await streamAs(tokens['bob-laptop']);
    expect(bobs.some((e) => e.session === 'ppl-1')).toBe(true); // he reads the session's stream...
    expect(bobs.some((e) => e.id === req.id || (e as any).subject === req.id)).toBe(false); // ...never the request
    expect(cardsIn(BOB_TG, 'ppl-1')).toHaveLength(0);
    // and her phone is pushed, his is not
    await until("alice's push", () => ps.received.find((r) => r.device === 'alice-phone' && r.message.request === req.id));
    await new Promise((r) => setTimeout(r, 300)); // both would have been pushed at once (delay 0)
    expect(ps.received.filter((r) => r.device === 'bob-phone' && r.message.request === req.id)).toHaveLength(0);
    // bob's token: refused, the request stays pending, the refusal on the stream
    const nack = await answerAs(tokens['bob-laptop'], req, 'allow');
    expect(nack.type).toBe('control.rejected');
    expect(nack.data.code).toBe('not-routed');
    expect(s.lines.join('\n')).toMatch(/rejected \[refused\]: not-routed: bob-laptop \(bob\) is not among the people this request is routed to \(alice\)/);
    expect(pending(req.id)).toBe(true);
    // his "Allow always" query learns nothing of it either
    const asked = await sendCommand(
      await openSocket(s.url, tokens['bob-laptop']).then((x) => (sockets.push(x), x)),
      makeCommand('x.hookmap.control.ask', req.session!, { subject: req.id, data: {} }),
      {
        ackWindowMs: 5000,
        outcomeWindowMs: 100,
        isFinal: () => true,
      },
    );
    expect(asked.kind === 'acked' && asked.ack.type).toBe('control.rejected');
    // bob pressing alice's card's button (a foreign account): refused, nothing answered, the button not spent
    tg.tap({ from: BOB_TG, chat: ALICE_TG, message_id: card.message_id, data: button(card, 'Allow') });
    await until('the refusal', () => /not among the people/.test(lastCallbackText() ?? '') || undefined);
    expect(pending(req.id)).toBe(true);
    // the audit names who sent each command
    const audit = readFileSync(join(s.home, 'audit.jsonl'), 'utf8');
    expect(audit).toMatch(/bob-laptop/);
    // alice answers from her chat (the very button bob pressed): settled, attributed to her chat account
    tg.tap({ from: ALICE_TG, chat: ALICE_TG, message_id: card.message_id, data: button(card, 'Allow') });
    expect(await (await held).text()).toMatch(/"behavior":"allow"/);
    expect((events().find((e) => e.type === 'attention.answered' && e.subject === req.id)!.data as any).by).toBe('alice-chat');
  });

  it("a token of no person keeps today's behaviour on a request that needs one person", async () => {
    const held = permission('ppl-2', 'make test', other);
    const req = await requestOf('ppl-2');
    expect((req as any).hookmappeople).toBe('bob');
    expect((await streamAs(tokens.ci)).some((e) => e.id === req.id)).toBe(true);
    expect((await answerAs(tokens.ci, req, 'deny')).type).toBe('control.accepted');
    expect(await (await held).text()).toMatch(/"behavior":"deny"/);
  });

  it("bob's search of the history never finds alice's request, nor its answer; alice's and the owner's do", async () => {
    const req = await requestOf('ppl-1');
    const find = async (token: string) => {
      const res = await fetch(`${s.url}/history/search?q=Bash`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { hits: { session: { session: string }; events: { id: string; subject: string | null }[] }[] };
      return body.hits.flatMap((h) => h.events.map((e) => ({ ...e, session: h.session.session })));
    };
    // the history indexes in the background: alice's search finds her request once it is indexed
    await until('indexed', async () => ((await find(tokens['alice-laptop'])).some((e) => e.id === req.id) ? true : undefined), 15_000);
    expect((await find(s.token)).some((e) => e.id === req.id)).toBe(true);
    const bobs = await find(tokens['bob-laptop']);
    expect(bobs.some((e) => e.id === req.id || e.subject === req.id)).toBe(false);
    // his own request (ppl-2 is routed to him) he finds
    const his = await requestOf('ppl-2');
    await until('his request indexed', async () => ((await find(tokens['bob-laptop'])).some((e) => e.id === his.id) ? true : undefined), 15_000);
  });
});

describe('people: the two-person rule', () => {
  it('two tokens of alice count once; alice then bob settles allow; each step on the stream', async () => {
    const held = permission('ppl-3', 'git push --force origin main', shop);
    const req = await requestOf('ppl-3');
    expect((req as any).hookmappeople).toBe('alice,bob');
    expect((req as any).hookmapapprovals).toBe(2);
    const first = await answerAs(tokens['alice-laptop'], req, 'allow');
    expect(first.type).toBe('control.accepted');
    expect(first.data.result).toEqual({ partial: true, approved: ['alice'], need: 2 });
    const partial = await until('the partial approval', () => events().find((e) => e.type === 'x.hookmap.approval.partial' && e.subject === req.id));
    expect(partial.data).toMatchObject({ approved: 1, need: 2, by: ['alice'] });
    expect(pending(req.id)).toBe(true);
    // the same person again, from another token: refused, still pending
    const again = await answerAs(tokens['alice-phone'], req, 'allow');
    expect(again.type).toBe('control.rejected');
    expect(again.data.code).toBe('same-person');
    expect(s.lines.join('\n')).toMatch(/same-person: alice already allowed this \(as alice-laptop\)/);
    // ... and from her chat account
    const card = await until("alice's card", () => cardsIn(ALICE_TG, 'ppl-3')[0]);
    tg.tap({ from: ALICE_TG, chat: ALICE_TG, message_id: card.message_id, data: button(card, 'Allow') });
    await until('the chat refusal', () => /same-person/.test(lastCallbackText() ?? '') || undefined);
    // a token of no person never counts as a second person
    const ci = await answerAs(tokens.ci, req, 'allow');
    expect(ci.data.code).toBe('no-person');
    expect(pending(req.id)).toBe(true);
    // bob: a different person completes it
    const second = await answerAs(tokens['bob-laptop'], req, 'allow');
    expect(second.type).toBe('control.accepted');
    expect(await (await held).text()).toMatch(/"behavior":"allow"/);
    expect((events().find((e) => e.type === 'attention.answered' && e.subject === req.id)!.data as any).by).toBe('bob-laptop');
  });

  it("either's deny settles it as a deny (after a first allow, and as the first answer)", async () => {
    const held = permission('ppl-4', 'git push -f origin main', shop);
    const req = await requestOf('ppl-4');
    // the first allow from her chat: the button's reply says 1 of 2, the partial approval is on the stream
    const card = await until("alice's card", () => cardsIn(ALICE_TG, 'ppl-4')[0]);
    tg.tap({ from: ALICE_TG, chat: ALICE_TG, message_id: card.message_id, data: button(card, 'Allow') });
    await until('1 of 2', () => lastCallbackText() === 'Allowed: 1 of 2, allowed by alice; a different person must allow it too' || undefined);
    expect(events().find((e) => e.type === 'x.hookmap.approval.partial' && e.subject === req.id)!.data).toMatchObject({ by: ['alice'] });
    expect(pending(req.id)).toBe(true);
    // every card already sent says so, its buttons kept (bob's chat, alice's own); each phone's notification is replaced
    for (const chat of [ALICE_TG, BOB_TG]) {
      const sent = await until(`card in ${chat}`, () => cardsIn(chat, 'ppl-4')[0]);
      const edit = await until(`1 of 2 on ${chat}`, () =>
        tg.calls.find(
          (c) =>
            c.method === 'editMessageText' &&
            Number(c.body.chat_id) === chat &&
            Number(c.body.message_id) === sent.message_id &&
            /1 of 2, allowed by alice/.test(String(c.body.text)),
        ),
      );
      const kept = JSON.stringify(edit.body.reply_markup);
      expect(kept).toContain('Allow');
      expect(kept).toContain('Deny');
    }
    for (const device of ['alice-phone', 'bob-phone'])
      await until(`${device} replaced`, () =>
        ps.received.find((r) => r.device === device && r.message.request === req.id && /1 of 2, allowed by alice/.test(r.message.body)),
      );
    expect((await answerAs(tokens['bob-laptop'], req, 'deny')).type).toBe('control.accepted');
    expect(await (await held).text()).toMatch(/"behavior":"deny"/);
    const held2 = permission('ppl-5', 'git push --force', shop);
    const req2 = await requestOf('ppl-5');
    expect((await answerAs(tokens['alice-phone'], req2, 'deny')).type).toBe('control.accepted');
    expect(await (await held2).text()).toMatch(/"behavior":"deny"/);
  });

  it('a replayed allow is the same one allow (its recorded ack), never a second person; a forged button answers nothing', async () => {
    const held = permission('ppl-6', 'git push --force', shop);
    const req = await requestOf('ppl-6');
    const cmd = makeCommand('control.attention.respond', req.session!, { subject: req.id, data: { answer: { option: 'allow' } } });
    const a = await answerAs(tokens['alice-laptop'], req, 'allow', cmd);
    expect(a.data.result.partial).toBe(true);
    // the same command replayed, even by another principal: the recorded ack, no second decision
    const replay = await answerAs(tokens['bob-laptop'], req, 'allow', cmd);
    expect(replay.id).toBe(a.id);
    expect(pending(req.id)).toBe(true);
    expect(events().filter((e) => e.type === 'x.hookmap.approval.partial' && e.subject === req.id)).toHaveLength(1);
    const card = await until("bob's card", () => cardsIn(BOB_TG, 'ppl-6')[0]);
    tg.tap({ from: BOB_TG, chat: BOB_TG, message_id: card.message_id, data: 'a:forged-nonce' });
    await until('the forged refusal', () => /not a hookmap button|expired|unknown/i.test(lastCallbackText() ?? '') || undefined);
    expect(pending(req.id)).toBe(true);
    tg.tap({ from: BOB_TG, chat: BOB_TG, message_id: card.message_id, data: button(card, 'Deny') });
    expect(await (await held).text()).toMatch(/"behavior":"deny"/);
  });
});

describe('people: the config', () => {
  it('a credential is one person’s; floor rows are the floor’s; the owner is nobody else', () => {
    expect(
      () =>
        new People([
          { name: 'a', tokens: ['t'] },
          { name: 'b', tokens: ['t'] },
        ]),
    ).toThrow(PeopleError);
    expect(() => new People([{ name: 'a', approve: [{ floor: 'nope' }] }], {}, {}, FLOOR_ROWS)).toThrow(/unknown floor row 'nope'/);
    expect(() => new People([], { floor: ['nope'] }, {}, FLOOR_ROWS)).toThrow(/two_people.floor: unknown floor row/);
    expect(() => new People([{ name: 'owner' }])).toThrow(/owner token's person/);
    expect(() => new People([{ name: 'a', tokens: ['owner'] }])).toThrow(/never another's/);
    const p = new People([{ name: 'a', tokens: ['t'], approve: [{ agent: 'codex', kind: 'question' }] }]);
    expect(p.personOf('owner')).toBe('owner');
    expect(p.route({ agent: 'codex', kind: 'form' }).people).toEqual(['a']);
    expect(p.route({ agent: 'codex', kind: 'permission' }).people).toEqual([]);
  });
});
