// One door across the fleet (issue 39): two `hookmap up --backplane` on one
// NATS JetStream stream (real nats-server -js) as stand-ins for two
// machines. The phone's push device and a Telegram channel are configured
// on A only; a Claude Code PermissionRequest held on B reaches the push
// service and the chat from A (what the card needs is asked of B's daemon
// by a control query through the relays); a Telegram tap on A settles B's
// hook with the allow bytes of vendors/claude-code.yaml; an "Allow always"
// from A's notification is saved by B's daemon in B's rule book, so B's next
// identical request is answered without a card; `hookmap sessions` on A
// lists B's session (A's history indexes what the stream brings).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUp, type Up, type UpOptions } from '../../engine/app/up.ts';
import { readLogs, until } from '../runtime/daemon/helpers.ts';
import { runCli } from '../helpers/cli.ts';
import { startPushService, type TestPushService } from '../helpers/push-service.ts';
import { startTelegram, type TelegramStandIn } from '../helpers/telegram-api.ts';
import { NATS_MISSING, NatsServer } from './nats.ts';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { WsClient } from '../runtime/relay/helpers.ts';

const TOKEN = 'fleet-one-door-token';
const ALEX = 4242;
const ALLOW = '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}';

describe.skipIf(!!NATS_MISSING)('one door across the fleet (nats-server -js)', () => {
  let nats: NatsServer;
  let ps: TestPushService;
  let tg: TelegramStandIn;
  let project: string;
  const homes: string[] = [];
  const ups: Up[] = [];
  let a: Up;
  let b: Up;
  let homeA: string;
  let logB: string;

  const start = async (setup: (home: string) => Partial<UpOptions>): Promise<{ up: Up; home: string }> => {
    const home = mkdtempSync(join(tmpdir(), 'hookmap-door-'));
    homes.push(home);
    writeFileSync(join(home, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    const extra = setup(home);
    const up = await startUp({
      port: 0,
      home,
      logDir: join(home, 'logs'),
      stateDir: join(home, 'state'),
      tokenFile: join(home, 'token'),
      hookKey: false,
      agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 20_000 }],
      backplane: { url: nats.url, stream: `DOOR${process.pid}`, prefix: `door${process.pid}` },
      ...extra,
    });
    ups.push(up);
    const headers = { authorization: `Bearer ${TOKEN}` };
    await until("the daemons' hello", async () => (await (await fetch(`${up.url}/healthz`, { headers })).json()).relay === true);
    return { up, home };
  };

  beforeAll(async () => {
    nats = await NatsServer.start();
    ps = await startPushService();
    tg = await startTelegram();
    project = mkdtempSync(join(tmpdir(), 'hookmap-door-proj-'));
    mkdirSync(join(project, '.git'));
    const A = await start((home) => {
      writeFileSync(join(home, 'telegram-token'), `${tg.token}\n`, { mode: 0o600 });
      return {
        push: { delayMs: 0, capture: 'redacted' },
        channels: { telegram: { tokenFile: join(home, 'telegram-token'), chatIds: [ALEX], userIds: [ALEX], users: { [ALEX]: 'alex' }, apiRoot: tg.url } },
      };
    });
    a = A.up;
    homeA = A.home;
    const B = await start(() => ({}));
    b = B.up;
    logB = join(B.home, 'logs', 'claude-code');
    const res = await fetch(`${a.url}/push/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subscription: ps.device('phone').subscription, name: 'phone' }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    await until('long polling', () => tg.calls.some((c) => c.method === 'getUpdates') || undefined);
  }, 60_000);

  afterAll(async () => {
    for (const up of ups) await up.close().catch(() => undefined);
    await tg?.close();
    await ps?.close();
    await nats?.stop();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
    if (project) rmSync(project, { recursive: true, force: true });
  });

  const permission = (session: string, command: string) =>
    fetch(`${b.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: session,
        cwd: project,
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command },
        permission_suggestions: [],
      }),
    });
  const requestOf = (session: string) =>
    until(`request of ${session}`, () => readLogs(logB).find((e) => e.type === 'attention.requested' && e.session === session));
  const pushFor = (id: string) => until(`the push of ${id}`, () => ps.received.find((r) => r.message.request === id && r.message.type === 'request'));
  const cardsFor = (session: string) => tg.sent.filter((m) => m.text.includes(`session ${session.slice(0, 12)}`));
  const button = (card: { reply_markup?: any }, label: string) =>
    card.reply_markup.inline_keyboard.flat().find((x: any) => x.text === label).callback_data as string;

  it("a request held on B reaches A's push device and A's Telegram chat; a tap on A settles B's hook with the allow bytes", async () => {
    const held = permission('door-1', 'ls -la');
    const req = await requestOf('door-1');
    const pushed = await pushFor(req.id);
    expect(pushed.message.title).toMatch(/^claude-code wants to run Bash in hookmap-door-proj-/);
    expect(pushed.message.body).toMatch(/^Permission request: ls -la · \d+ s to answer$/);
    // the command was shown whole (capture redacted, nothing redacted): the notification can save a rule
    expect(pushed.message.actions.map((x: any) => x.action)).toEqual(['allow', 'deny', 'always']);
    const card = await until('the card', () => cardsFor('door-1')[0]);
    expect(card.text).toMatch(/^claude-code wants to run Bash in hookmap-door-proj-/);
    // the inbox's "Allow always" proposal, asked on A of the daemon on B
    const proposal = await fetch(`${a.url}/rules/propose?request=${req.id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(proposal.status).toBe(200);
    expect(await proposal.json()).toMatchObject({ agent: 'claude-code', tool: 'Bash', command: 'ls -la', exact: 'ls -la', plain: true, session: 'door-1' });
    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id, data: button(card, 'Allow') });
    expect(await (await held).text()).toBe(ALLOW);
    const answered = await until('answered', () => readLogs(logB).find((e) => e.type === 'attention.answered' && e.subject === req.id));
    expect((answered.data as any).by).toBe('alex');
  });

  it('an "Allow always" from A\'s notification is saved on B: B\'s next identical request is answered without a card', async () => {
    const held = permission('door-2', 'make test');
    const req = await requestOf('door-2');
    const pushed = await pushFor(req.id);
    const r = await fetch(`${a.url}/push/action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credential: pushed.message.credential, action: 'always', request: req.id }),
    });
    const body = await r.json();
    expect(r.status, JSON.stringify(body)).toBe(200);
    expect(body.rule).toMatch(/./);
    expect(await (await held).text()).toBe(ALLOW);
    // B's own rule book holds it: the next identical request (another session, the same project) is answered by it
    const next = await permission('door-3', 'make test');
    expect(await next.text()).toBe(ALLOW);
    const ruled = await until('ruled', () => readLogs(logB).find((e) => e.type === 'x.hookmap.answer.ruled' && e.session === 'door-3'));
    expect((ruled.data as any).rule).toBe(body.rule);
    // settled by the rule as it was raised: nothing reaches the phone or the chat
    const third = await requestOf('door-3');
    const by = await until('answered by the rule', () => readLogs(logB).find((e) => e.type === 'attention.answered' && e.subject === third.id));
    expect((by.data as any).by).toBe(`rule:${body.rule}`);
    await new Promise((res) => setTimeout(res, 1000));
    expect(cardsFor('door-3')).toEqual([]);
    expect(ps.received.filter((x) => x.message.request === third.id)).toEqual([]);
  });

  it('a control query is answered only to a control principal: a read-only watcher on A never sees one, nor may it ask', async () => {
    const read = addToken(homeA, 'watcher', 'read').token;
    const w = await WsClient.hello(a.url, { role: 'consumer' }, { authorization: `Bearer ${read}` });
    try {
      w.send({ type: 'subscribe', id: 'all', from: 'all' });
      await w.next((m) => m.type === 'subscribed');
      // what the stream holds of door-1 (its request, its answer) is there; the answers of the queries about it are not
      await until('the stream replayed', () => w.msgs.find((m) => m.type === 'attention.answered' && m.session === 'door-1'));
      expect(w.msgs.some((m) => m.type === 'control.accepted' && m.data?.result !== undefined)).toBe(false);
      expect(w.msgs.some((m) => m.type === 'control.accepted')).toBe(true);
      const req = readLogs(logB).find((e) => e.type === 'attention.requested' && e.session === 'door-1')!;
      w.send({
        aep: '0.1',
        id: 'read-ask-1',
        type: 'x.hookmap.control.ask',
        time: new Date().toISOString(),
        source: 'aep://t/agent/w',
        agent: 'w',
        session: 'door-1',
        subject: req.id,
        data: {},
      });
      const refused = await w.next((m) => m.type === 'error' && m.cause === 'read-ask-1');
      expect(refused.code).toBe('unauthorized');
    } finally {
      w.close();
    }
  });

  it("`hookmap sessions` on A lists B's sessions", async () => {
    const env = { ...process.env, HOOKMAP_HOME: homeA, HOOKMAP_URL: a.url };
    const out = await until(
      "B's session in A's history",
      async () => {
        const r = await runCli(['sessions', '--json'], env);
        return r.code === 0 && (JSON.parse(r.stdout) as { session: string }[]).some((s) => s.session === 'door-1') ? r : undefined;
      },
      30_000,
    );
    expect(out.stdout).toContain('door-2');
  });
});
