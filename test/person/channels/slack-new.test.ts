// `/new <agent> <project> <prompt>` on Slack (issue 42): a slash command in a
// Socket Mode `slash_commands` envelope from the Slack stand-in, through a
// whole `hookmap up` with its launcher: a mapped user in the configured
// channel starts a run of the stand-in agent (test/person/launch/fake-agent.mjs) in
// an allow-listed project; the command's acknowledgement names the run (only
// the person who typed it sees it), a message in the channel names the
// session once its first hook arrived (a thread reply to it steers the
// session), and the start is audited with the person and the channel. A
// stranger, another channel, a project outside the list, an unknown agent and
// a bare /new start nothing and the answer says why; a prompt of `$(touch
// pwned)` (Slack sends & < > escaped) stays text.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordWiring } from '../../../engine/runtime/setup/wirings.ts';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startSlack, type SlackStandIn } from '../../helpers/slack-api.ts';
import { launchAgentDescriptor as descriptor } from '../launch/stand-in.ts';

const CHANNEL = 'C0123';
let s: UpStack;
let sl: SlackStandIn;
let project: string;
const env: Record<string, string | undefined> = { PATH: process.env.PATH };

beforeAll(async () => {
  sl = await startSlack();
  s = await upStack({
    prefix: 'hookmap-slack-new-',
    hello: true,
    launchEnv: env,
    setup: (home) => {
      project = join(home, 'shop-api');
      mkdirSync(project);
      mkdirSync(join(home, 'elsewhere'));
      recordWiring(home, { agent: 'launch-agent', scope: 'project', path: join(project, '.agent.json'), dir: project });
      writeFileSync(join(home, 'slack-app'), `${sl.appToken}\n`, { mode: 0o600 });
      writeFileSync(join(home, 'slack-bot'), `${sl.botToken}\n`, { mode: 0o600 });
      return {
        agents: [{ descriptor: descriptor(home) }],
        launch: { timeoutMs: 20_000 },
        push: { delayMs: 0 },
        channels: {
          slack: { appTokenFile: join(home, 'slack-app'), botTokenFile: join(home, 'slack-bot'), channel: CHANNEL, users: { U0ALEX: 'alex' }, apiUrl: sl.url },
        },
      };
    },
  });
  env.HOOKMAP_URL = s.url;
  await until('Socket Mode connected', () => sl.connected() || undefined, 15_000);
}, 40_000);

afterAll(async () => {
  await s?.done();
  await sl?.close();
});

const started = () =>
  existsSync(join(project, '.fake-agent.jsonl'))
    ? readFileSync(join(project, '.fake-agent.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { prompt: string; session: string; cwd: string })
    : [];
const audit = () =>
  (existsSync(join(s.logDir, '_operator')) ? readLogs(join(s.logDir, '_operator')) : []).filter((e) => String(e.type).startsWith('x.hookmap.launch.'));
const answer = (id: string) => until(`the answer to ${id}`, () => sl.responses.get(id));

describe('Slack /new', () => {
  it('a mapped user starts the agent in an allowed project; the session is named in the channel once its first hook arrived; audited', async () => {
    const id = sl.slash({ user: 'U0ALEX', channel: CHANNEL, command: '/new', text: 'launch-agent shop-api the tests are red $(touch pwned) &amp;&amp; go' });
    const a = await answer(id);
    expect(a).toMatchObject({ response_type: 'ephemeral' });
    expect(a.text).toMatch(/^Starting launch-agent in shop-api \(run l[0-9a-f]+\)\.$/);
    const [run] = await until('the run', () => (started().length ? started() : undefined));
    expect(run.prompt).toBe('the tests are red $(touch pwned) && go');
    expect(run.cwd).toBe(project);
    expect(existsSync(join(project, 'pwned'))).toBe(false);
    const named = await until('the session message', () =>
      sl.posted.find((p) => p.text.includes(`launch-agent session ${run.session.slice(0, 12)} is on the stream`)),
    );
    expect(named.channel).toBe(CHANNEL);
    expect(named.text).toContain('reply in the thread to steer it');
    expect(JSON.stringify(sl.posted)).not.toContain(sl.botToken);
    const audited = await until('the start audited', () => audit().find((e) => e.type === 'x.hookmap.launch.started'));
    expect(audited.data).toMatchObject({ agent: 'launch-agent', by: 'alex', via: 'slack' });
  });

  it('a stranger, another channel, a project outside the list, an unknown agent and a bare /new start nothing; the answer says why', async () => {
    const before = started().length;
    const cases: [string, string, string, RegExp][] = [
      ['U0EVE', CHANNEL, 'launch-agent shop-api go', /not on the allow-list/],
      ['U0ALEX', 'C0OTHER', 'launch-agent shop-api go', /not on the allow-list/],
      ['U0ALEX', CHANNEL, 'launch-agent elsewhere go', /Not started: elsewhere is not an allowed project .*\[project-refused\]/],
      ['U0ALEX', CHANNEL, 'launch-agent /etc go', /Not started: \/etc is not an allowed project/],
      ['U0ALEX', CHANNEL, 'no-such shop-api go', /Not started: no-such is not an agent this hookmap up runs \[no-such-agent\]/],
      ['U0ALEX', CHANNEL, 'launch-agent shop-api --dangerously-skip-permissions', /Not started: a prompt may not start with '-'/],
      ['U0ALEX', CHANNEL, '', /^Usage: \/new <agent> <project> <prompt>\n {2}launch-agent: shop-api$/],
    ];
    for (const [user, channel, text, why] of cases) {
      const a = await answer(sl.slash({ user, channel, command: '/new', text }));
      expect(a.text, text).toMatch(why);
    }
    expect(started().length).toBe(before);
    expect(audit().filter((e) => e.type === 'x.hookmap.launch.refused').length).toBeGreaterThanOrEqual(4);
  });
});
