// `/new <agent> <project> <prompt>` on Telegram (issue 42), through a whole
// `hookmap up` with its launcher and the Bot API stand-in: an allowed person
// starts a run of a stand-in agent (test/person/launch/fake-agent.mjs, described
// with a launch block) in an allow-listed project; the reply names the run
// and a second message the session once its first hook arrived (a reply to
// it steers the session); the start is audited with the person and the
// channel. A stranger, a project outside the list, an unknown agent and a
// bare /new start nothing and the reply says why; a prompt of `$(touch
// pwned)` stays text.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordWiring } from '../../../engine/runtime/setup/wirings.ts';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startTelegram, type TelegramStandIn } from '../../helpers/telegram-api.ts';
import { parseNew } from '../../../engine/person/channels/chat-launch.ts';
import { launchAgentDescriptor as descriptor } from '../launch/stand-in.ts';

const ALEX = 111;
const STRANGER = 333;
let s: UpStack;
let tg: TelegramStandIn;
let project: string;
const env: Record<string, string | undefined> = { PATH: process.env.PATH };

beforeAll(async () => {
  tg = await startTelegram();
  s = await upStack({
    prefix: 'hookmap-tg-new-',
    hello: true,
    launchEnv: env,
    setup: (home) => {
      project = join(home, 'shop-api');
      mkdirSync(project);
      mkdirSync(join(home, 'elsewhere'));
      recordWiring(home, { agent: 'launch-agent', scope: 'project', path: join(project, '.agent.json'), dir: project });
      writeFileSync(join(home, 'telegram-token'), `${tg.token}\n`, { mode: 0o600 });
      return {
        agents: [{ descriptor: descriptor(home) }],
        launch: { timeoutMs: 20_000 },
        push: { delayMs: 0 },
        channels: { telegram: { tokenFile: join(home, 'telegram-token'), chatIds: [ALEX], userIds: [ALEX], users: { [ALEX]: 'alex' }, apiRoot: tg.url } },
      };
    },
  });
  env.HOOKMAP_URL = s.url;
  await until('long polling', () => tg.calls.some((c) => c.method === 'getUpdates') || undefined);
}, 30_000);

afterAll(async () => {
  await s?.done();
  await tg?.close();
});

const repliesTo = (id: number) => tg.sent.filter((m) => m.reply_parameters?.message_id === id);
const started = () =>
  existsSync(join(project, '.fake-agent.jsonl'))
    ? readFileSync(join(project, '.fake-agent.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { prompt: string; session: string; cwd: string })
    : [];
const audit = () =>
  (existsSync(join(s.logDir, '_operator')) ? readLogs(join(s.logDir, '_operator')) : []).filter((e) => String(e.type).startsWith('x.hookmap.launch.'));

describe('Telegram /new', () => {
  it('reads /new, /new@bot and the prompt whole', () => {
    expect(parseNew('/new launch-agent shop-api fix the  tests\nplease')).toEqual({
      agent: 'launch-agent',
      project: 'shop-api',
      prompt: 'fix the  tests\nplease',
    });
    expect(parseNew('/new@hookmap_bot a b c')).toEqual({ agent: 'a', project: 'b', prompt: 'c' });
    expect(parseNew('/new')).toEqual({ agent: undefined, project: undefined, prompt: undefined });
    expect(parseNew('/newer a b c')).toBeUndefined();
    expect(parseNew('please /new a b c')).toBeUndefined();
  });

  it('an allowed person starts the agent in an allowed project; the session is named once its first hook arrived; audited', async () => {
    const id = tg.send({ from: ALEX, chat: ALEX, text: '/new launch-agent shop-api the tests are red $(touch pwned)' });
    const [first] = await until('the start reply', () => (repliesTo(id).length ? repliesTo(id) : undefined));
    expect(first.text).toMatch(/^Starting launch-agent in shop-api \(run l[0-9a-f]+\)\.$/);
    const second = await until('the session message', () => repliesTo(id)[1]);
    const [run] = started();
    expect(run.prompt).toBe('the tests are red $(touch pwned)');
    expect(run.cwd).toBe(project);
    expect(existsSync(join(project, 'pwned'))).toBe(false);
    expect(second.text).toContain(`launch-agent session ${run.session.slice(0, 12)} is on the stream`);
    expect(second.text).not.toContain(tg.token);
    const a = await until('the start audited', () => audit().find((e) => e.type === 'x.hookmap.launch.started'));
    expect(a.data).toMatchObject({ agent: 'launch-agent', by: 'alex', via: 'telegram' });
  });

  it('a stranger, a project outside the list, an unknown agent and a bare /new start nothing, and the reply says why', async () => {
    const before = started().length;
    const cases: [number, string, RegExp][] = [
      [STRANGER, '/new launch-agent shop-api go', /not on the allow-list/],
      [ALEX, '/new launch-agent elsewhere go', /Not started: elsewhere is not an allowed project .*\[project-refused\]/],
      [ALEX, '/new launch-agent /etc go', /Not started: \/etc is not an allowed project/],
      [ALEX, '/new no-such shop-api go', /Not started: no-such is not an agent this hookmap up runs \[no-such-agent\]/],
      [ALEX, '/new launch-agent shop-api --dangerously-skip-permissions', /Not started: a prompt may not start with '-'/],
      [ALEX, '/new', /^Usage: \/new <agent> <project> <prompt>\n {2}launch-agent: shop-api$/],
    ];
    for (const [from, text, why] of cases) {
      const id = tg.send({ from, chat: from, text });
      const [r] = await until(`the reply to ${text}`, () => (repliesTo(id).length ? repliesTo(id) : undefined));
      expect(r.text).toMatch(why);
    }
    expect(started().length).toBe(before);
    expect(audit().filter((e) => e.type === 'x.hookmap.launch.refused').length).toBeGreaterThanOrEqual(4);
  });
});
