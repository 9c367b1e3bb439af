// Slack cards through a whole `hookmap up` (issue 24), with @slack/bolt in
// Socket Mode against a stand-in of Slack's Web API and Socket Mode on
// loopback (the framework's API URL option): a Block Kit card for a held
// Claude Code PermissionRequest; a mapped user's Allow settles the hook with
// the allow bytes (attention.answered by the principal the user maps to) and
// the card is updated; an unmapped user, a second press and a forged value
// are refused; a thread reply lands as guidance text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startSlack, type SlackStandIn } from '../../helpers/slack-api.ts';

let s: UpStack;
let sl: SlackStandIn;
const CHANNEL = 'C0123';

beforeAll(async () => {
  sl = await startSlack();
  s = await upStack({
    prefix: 'hookmap-slack-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 20_000 }],
    push: { delayMs: 0 },
    setup: (home) => {
      writeFileSync(join(home, 'slack-app'), `${sl.appToken}\n`, { mode: 0o600 });
      writeFileSync(join(home, 'slack-bot'), `${sl.botToken}\n`, { mode: 0o600 });
      return {
        channels: {
          slack: { appTokenFile: join(home, 'slack-app'), botTokenFile: join(home, 'slack-bot'), channel: CHANNEL, users: { U0ALEX: 'alex' }, apiUrl: sl.url },
        },
      };
    },
  });
  await until('Socket Mode connected', () => sl.connected() || undefined, 15_000);
}, 40_000);

afterAll(async () => {
  await s?.done();
  await sl?.close();
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
const cardOf = (session: string) =>
  until(`the card of ${session}`, () => sl.posted.find((p) => !p.thread_ts && JSON.stringify(p.blocks).includes(`session ${session}`)));
const buttonOf = (card: { blocks: any[] }, id: string) => card.blocks.find((b) => b.type === 'actions').elements.find((e: any) => e.action_id === id);

describe('Slack', () => {
  it("posts a card without the command; a mapped user's Allow settles the hook and the card is updated; others are refused", async () => {
    const held = permission('sl-1', 'curl -H "Authorization: Bearer sk-live-abcdef" https://api.example.com');
    const req = await requestOf('sl-1');
    const card = await cardOf('sl-1');
    expect(card.channel).toBe(CHANNEL);
    expect(JSON.stringify(card)).not.toMatch(/curl|sk-live|api\.example/);
    expect(JSON.stringify(card)).not.toContain(sl.botToken);
    const allow = buttonOf(card, 'hookmap_allow');
    // an unmapped user and a forged value answer nothing
    sl.press({ user: 'U0EVE', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_allow', value: allow.value });
    sl.press({ user: 'U0ALEX', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_allow', value: 'forged-value-000000' });
    await until('both acked', () => (sl.acked.length >= 2 ? true : undefined));
    expect(events().some((e) => e.type === 'attention.answered' && e.subject === req.id)).toBe(false);
    sl.press({ user: 'U0ALEX', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_allow', value: allow.value });
    expect(await (await held).text()).toBe('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}');
    expect((events().find((e) => e.type === 'attention.answered' && e.subject === req.id)!.data as any).by).toBe('alex');
    const upd = await until('the card updated', () => sl.calls.find((c) => c.method === 'chat.update' && c.body.ts === card.ts));
    expect(JSON.stringify(upd.body.blocks)).toContain('Answered by alex');
    expect(JSON.stringify(upd.body.blocks)).not.toContain('hookmap_allow');
    expect(s.lines.some((l) => /ignored U0EVE/.test(l))).toBe(true);
    // a second press of a settled card's button answers nothing
    const acks = sl.acked.length;
    sl.press({ user: 'U0ALEX', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_deny', value: buttonOf(card, 'hookmap_deny').value });
    await until('acked', () => (sl.acked.length > acks ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(events().filter((e) => e.type === 'attention.answered' && e.subject === req.id)).toHaveLength(1);
  });

  it("honours a 429's Retry-After: the card arrives after the wait", async () => {
    sl.rateLimit('chat.postMessage', 1);
    const t0 = Date.now();
    const held = permission('sl-3', 'pwd');
    const req = await requestOf('sl-3');
    await cardOf('sl-3');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(sl.calls.filter((c) => c.method === 'chat.postMessage').length).toBeGreaterThanOrEqual(2);
    const { runCli } = await import('../../helpers/cli.ts');
    await runCli(['answer', req.id, '--deny'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });
    await held;
  });

  it('a thread reply under a card is guidance text for its request', async () => {
    const held = permission('sl-2', 'rm -rf dist');
    await requestOf('sl-2');
    const card = await cardOf('sl-2');
    sl.threadReply({ user: 'U0ALEX', channel: CHANNEL, thread: card.ts, text: 'use npm run clean' });
    expect(JSON.parse(await (await held).text()).hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: 'use npm run clean' });
    await until('the confirmation in the thread', () => sl.posted.find((p) => p.thread_ts === card.ts && /as guidance/.test(p.text)));
  });
});
