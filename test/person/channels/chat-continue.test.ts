// Continue on chat cards (issue 42), Telegram and Slack through one whole
// `hookmap up` with its launcher and both stand-ins: a session of the stand-in
// agent (test/person/launch/fake-agent.mjs, whose descriptor can continue) in an
// allow-listed project ends on an error; its alert card carries a Continue
// button. A stranger's press, a forged value and a press from another message
// are refused; an allowed press asks for the prompt (Telegram: a ForceReply;
// Slack: a message whose thread takes it) and is spent (a replay is refused);
// a stranger's reply continues nothing; the allowed person's reply runs the
// agent's own continue (its launch `resume` argv, the prompt one argument:
// `$(touch pwned)` stays text), audited with the person and the channel, and
// the session is named once the continued agent's first hook arrived. A
// session in a folder outside the list gets no Continue.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordWiring } from '../../../engine/runtime/setup/wirings.ts';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startSlack, type SlackStandIn } from '../../helpers/slack-api.ts';
import { startTelegram, type TelegramStandIn } from '../../helpers/telegram-api.ts';
import { launchAgentDescriptor as descriptor } from '../launch/stand-in.ts';

const ALEX = 111;
const STRANGER = 333;
const CHANNEL = 'C0123';
let s: UpStack;
let tg: TelegramStandIn;
let sl: SlackStandIn;
let project: string;
let elsewhere: string;
const env: Record<string, string | undefined> = { PATH: process.env.PATH };

beforeAll(async () => {
  tg = await startTelegram();
  sl = await startSlack();
  s = await upStack({
    prefix: 'hookmap-continue-',
    hello: true,
    launchEnv: env,
    setup: (home) => {
      project = join(home, 'shop-api');
      elsewhere = join(home, 'elsewhere');
      mkdirSync(project);
      mkdirSync(elsewhere);
      recordWiring(home, { agent: 'launch-agent', scope: 'project', path: join(project, '.agent.json'), dir: project });
      writeFileSync(join(home, 'telegram-token'), `${tg.token}\n`, { mode: 0o600 });
      writeFileSync(join(home, 'slack-app'), `${sl.appToken}\n`, { mode: 0o600 });
      writeFileSync(join(home, 'slack-bot'), `${sl.botToken}\n`, { mode: 0o600 });
      return {
        agents: [{ descriptor: descriptor(home) }],
        launch: { timeoutMs: 20_000 },
        push: { delayMs: 0 },
        channels: {
          telegram: { tokenFile: join(home, 'telegram-token'), chatIds: [ALEX], userIds: [ALEX], users: { [ALEX]: 'alex' }, apiRoot: tg.url },
          slack: { appTokenFile: join(home, 'slack-app'), botTokenFile: join(home, 'slack-bot'), channel: CHANNEL, users: { U0ALEX: 'alex' }, apiUrl: sl.url },
        },
      };
    },
  });
  env.HOOKMAP_URL = s.url;
  await until('long polling', () => tg.calls.some((c) => c.method === 'getUpdates') || undefined);
  await until('Socket Mode connected', () => sl.connected() || undefined, 15_000);
}, 40_000);

afterAll(async () => {
  await s?.done();
  await tg?.close();
  await sl?.close();
});

const hook = (body: object) =>
  fetch(`${s.url}/hooks/launch-agent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
/** A session the person started by hand in `dir`, which then ended on an error (the alert every channel gets). */
const endedOnError = async (session: string, dir: string) => {
  await hook({ hook_event_name: 'SessionStart', session_id: session, cwd: dir });
  await hook({ hook_event_name: 'SessionEnd', session_id: session, cwd: dir, reason: 'error' });
};
const runs = () =>
  existsSync(join(project, '.fake-agent.jsonl'))
    ? readFileSync(join(project, '.fake-agent.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { argv: string[]; prompt: string; session: string; resume?: string })
    : [];
const audit = () =>
  (existsSync(join(s.logDir, '_operator')) ? readLogs(join(s.logDir, '_operator')) : []).filter((e) => String(e.type).startsWith('x.hookmap.launch.'));
const callbackAnswers = () => tg.calls.filter((c) => c.method === 'answerCallbackQuery').map((c) => String(c.body.text ?? ''));
const nextCallbackAnswer = async (n: number) => until(`callback answer ${n}`, () => callbackAnswers()[n]);

describe('Continue on a Telegram card', () => {
  it('an allowed press asks for the prompt (ForceReply); the reply continues the session through the launcher; refusals', async () => {
    await endedOnError('tg-cont-1', project);
    const card = await until('the alert with Continue', () =>
      tg.sent.find((m) => m.text.includes('session tg-cont-1') && JSON.stringify(m.reply_markup ?? {}).includes('"Continue"')),
    );
    const data = card.reply_markup.inline_keyboard[0][0].callback_data as string;
    expect(data).toMatch(/^r:[A-Za-z0-9_-]{16}$/);
    let n = callbackAnswers().length;
    tg.tap({ from: STRANGER, chat: ALEX, message_id: card.message_id, data });
    expect(await nextCallbackAnswer(n++)).toBe('You may not answer this.');
    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id, data: 'r:forged-value-00000' });
    expect(await nextCallbackAnswer(n++)).toMatch(/unknown button/);
    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id - 1, data });
    expect(await nextCallbackAnswer(n++)).toMatch(/belongs to another message/);
    expect(tg.sent.some((m) => m.reply_markup?.force_reply)).toBe(false);

    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id, data });
    expect(await nextCallbackAnswer(n++)).toBe('Reply with the prompt');
    const ask = await until('the question', () => tg.sent.find((m) => m.reply_markup?.force_reply === true));
    expect(ask.text).toBe('Continue launch-agent session tg-cont-1 in shop-api: reply to this message with what it should do next.');
    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id, data });
    expect(await nextCallbackAnswer(n)).toMatch(/used already/);

    const before = runs().length;
    tg.reply({ from: STRANGER, chat: ALEX, to: ask.message_id, text: 'do something' });
    await until('the stranger told', () => tg.sent.find((m) => m.text.startsWith('Not continued: you are not on the allow-list')));
    tg.reply({ from: ALEX, chat: ALEX, to: ask.message_id, text: 'fix it $(touch pwned)' });
    const said = await until('the continue reply', () => tg.sent.find((m) => m.text.startsWith('Continuing ')));
    expect(said.text).toMatch(/^Continuing launch-agent session tg-cont-1 in shop-api \(run l[0-9a-f]{12}\)\.$/);
    const run = await until('the continued run', () => runs()[before]);
    expect(runs()).toHaveLength(before + 1);
    expect(run.argv).toEqual([project, 'fix it $(touch pwned)', '--resume', 'tg-cont-1']);
    expect(existsSync(join(project, 'pwned'))).toBe(false);
    await until('the session named', () => tg.sent.find((m) => /^launch-agent session tg-cont-1(~\d+)? is on the stream/.test(m.text)));
    const started = await until('audited', () => audit().find((e) => e.type === 'x.hookmap.launch.started' && e.data?.resumed === 'tg-cont-1'));
    expect(started.data).toMatchObject({ mode: 'resume', by: 'alex', via: 'telegram', project });
    // the question is answered once
    tg.reply({ from: ALEX, chat: ALEX, to: ask.message_id, text: 'and again' });
    await new Promise((r) => setTimeout(r, 800));
    expect(runs()).toHaveLength(before + 1);
  });

  it('a session in a folder outside the allow-list gets no Continue', async () => {
    await endedOnError('tg-cont-2', elsewhere);
    const card = await until('the alert', () => tg.sent.find((m) => m.text.includes('session tg-cont-2')));
    expect(card.reply_markup).toBeUndefined();
  });
});

describe('Continue on a Slack card', () => {
  const continueOf = (p: { blocks: any[] }) =>
    p.blocks.find((b) => b.type === 'actions')?.elements.find((e: any) => e.action_id === 'hookmap_continue') as { value: string } | undefined;

  it('an allowed press asks for the prompt; the thread reply continues the session; a stranger, a forged and a replayed press are refused', async () => {
    await endedOnError('sl-cont-1', project);
    const card = await until('the alert with Continue', () => sl.posted.find((p) => JSON.stringify(p.blocks).includes('session sl-cont-1') && continueOf(p)));
    const value = continueOf(card)!.value;
    const questions = () => sl.posted.filter((p) => p.text.startsWith('Continue launch-agent session sl-cont-1'));
    const acked = sl.acked.length;
    sl.press({ user: 'U0EVE', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_continue', value });
    sl.press({ user: 'U0ALEX', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_continue', value: 'forged-value-000000' });
    sl.press({ user: 'U0ALEX', channel: CHANNEL, ts: '1.000100', action_id: 'hookmap_continue', value });
    await until('the presses acked', () => (sl.acked.length >= acked + 3 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(questions()).toHaveLength(0);
    sl.press({ user: 'U0ALEX', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_continue', value });
    const ask = await until('the question', () => questions()[0]);
    expect(ask.text).toBe("Continue launch-agent session sl-cont-1 in shop-api: reply in this message's thread with what it should do next.");
    sl.press({ user: 'U0ALEX', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_continue', value });
    await new Promise((r) => setTimeout(r, 300));
    expect(questions()).toHaveLength(1);

    const before = runs().length;
    sl.threadReply({ user: 'U0EVE', channel: CHANNEL, thread: ask.ts, text: 'do something' });
    await until('the stranger told', () => sl.posted.find((p) => p.thread_ts === ask.ts && p.text.startsWith('Not continued: you are not on the allow-list')));
    sl.threadReply({ user: 'U0ALEX', channel: CHANNEL, thread: ask.ts, text: 'carry on &lt;b&gt; $(touch pwned)' });
    const said = await until('the continue reply', () => sl.posted.find((p) => p.thread_ts === ask.ts && p.text.startsWith('Continuing ')));
    expect(said.text).toMatch(/^Continuing launch-agent session sl-cont-1 in shop-api \(run l[0-9a-f]{12}\)\.$/);
    const run = await until('the continued run', () => runs()[before]);
    expect(run.argv).toEqual([project, 'carry on <b> $(touch pwned)', '--resume', 'sl-cont-1']);
    expect(existsSync(join(project, 'pwned'))).toBe(false);
    await until('the session named', () => sl.posted.find((p) => /^launch-agent session sl-cont-1(~\d+)? is on the stream/.test(p.text)));
    const started = await until('audited', () => audit().find((e) => e.type === 'x.hookmap.launch.started' && e.data?.resumed === 'sl-cont-1'));
    expect(started.data).toMatchObject({ mode: 'resume', by: 'alex', via: 'slack' });
  });

  it('a session in a folder outside the allow-list gets no Continue', async () => {
    await endedOnError('sl-cont-2', elsewhere);
    const card = await until('the alert', () => sl.posted.find((p) => JSON.stringify(p.blocks).includes('session sl-cont-2')));
    expect(continueOf(card)).toBeUndefined();
  });
});
