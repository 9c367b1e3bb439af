// `hookmap channels test|list` and a broken channel in /healthz and doctor
// (issue 24): the test message goes out through the channel as up would
// (the Bot API stand-in), a wrong token makes the channel's problem show on
// /healthz and in `hookmap doctor` (the token in no line), and the hooks are
// untouched by it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startTelegram, type TelegramStandIn } from '../../helpers/telegram-api.ts';
import { runCli } from '../../helpers/cli.ts';

let tg: TelegramStandIn;
let s: UpStack;
let config: string;

beforeAll(async () => {
  tg = await startTelegram();
  s = await upStack({
    prefix: 'hookmap-ch-cli-',
    hello: true,
    agents: [{ descriptor: 'claude-code' }],
    setup: (home) => {
      writeFileSync(join(home, 'good-token'), `${tg.token}\n`, { mode: 0o600 });
      writeFileSync(join(home, 'bad-token'), '999:not-the-token-of-this-bot_abcdefghij\n', { mode: 0o600 });
      config = join(home, 'up.yaml');
      writeFileSync(config, `channels:\n  telegram:\n    token_file: ./good-token\n    chat_ids: [111]\n    user_ids: [111]\n    api_root: ${tg.url}\n`);
      return { channels: { telegram: { tokenFile: join(home, 'bad-token'), chatIds: [111], userIds: [111], users: {}, apiRoot: tg.url } } };
    },
  });
}, 30_000);

afterAll(async () => {
  await s?.done();
  await tg?.close();
});

describe('hookmap channels', () => {
  it('test sends one message through the configured channel; list says where it goes', async () => {
    const r = await runCli(['channels', 'test', 'telegram', '--config', config], { ...process.env, HOOKMAP_HOME: s.home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^telegram: sent: sent to 1 chat/);
    expect(tg.sent.some((m) => m.chat_id === 111 && /cards for held requests come to this chat/.test(m.text))).toBe(true);
    const l = await runCli(['channels', 'list', '--config', config], { ...process.env, HOOKMAP_HOME: s.home });
    expect(l.stdout).toMatch(/^telegram {2}chats 111; may answer: 111;/);
    const none = await runCli(['channels', 'test', 'slack', '--config', config], { ...process.env, HOOKMAP_HOME: s.home });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/configures no slack channel/);
  });

  it("shows a channel's problem on /healthz and in doctor, never its token, and the hooks are untouched", async () => {
    const h = await until('the problem', async () => {
      const b = await (await fetch(`${s.url}/healthz`, { headers: { authorization: `Bearer ${s.token}` } })).json();
      return b.channels?.telegram?.ok === false ? b : undefined;
    });
    expect(h.channels.telegram.problem).toMatch(/401|Unauthorized/);
    expect(JSON.stringify(h)).not.toContain('not-the-token-of-this-bot');
    expect(s.lines.join('\n')).not.toContain('not-the-token-of-this-bot');
    const d = await runCli(['doctor', '--json', '--url', s.url], { ...process.env, HOOKMAP_HOME: s.home });
    const f = JSON.parse(d.stdout).findings.find((x: any) => x.subject === 'telegram');
    expect(f).toMatchObject({ status: 'warn', fix: expect.stringContaining('hookmap channels test telegram') });
    const r = await fetch(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'ch-1', cwd: '/tmp', source: 'startup' }),
    });
    expect(r.status).toBe(200);
  });
});
