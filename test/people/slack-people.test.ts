// People on Slack (issue 43), through a whole `hookmap up` with @slack/bolt
// in Socket Mode against the Slack stand-in (test/helpers/slack-api.ts).
// alice and bob approve shopapi, carol another project; a force push needs
// two people. The ladder mentions alice on the card at once and bob in its
// thread 300 ms later. carol's press of a shopapi card answers nothing and
// spends no button; "I'm on it" is a seen on the stream (bob is then never
// mentioned); a first of two allows edits the card in place ("1 of 2,
// allowed by alice"), its buttons kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { People } from '../../engine/runtime/auth/people.ts';
import { FLOOR_ROWS } from '../../engine/runtime/policy/shell/floor.ts';
import { pushConfigOf } from '../../engine/person/push/escalation.ts';
import { readLogs, until } from '../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../helpers/up-stack.ts';
import { startSlack, type SlackStandIn } from '../helpers/slack-api.ts';

const CHANNEL = 'C0TEAM';
const SECOND_MS = 300;
let s: UpStack;
let sl: SlackStandIn;
const base = mkdtempSync(join(tmpdir(), 'hookmap-slack-people-'));
const shop = join(base, 'shopapi');
mkdirSync(shop);

beforeAll(async () => {
  sl = await startSlack();
  const users = { U0ALICE: 'alice-slack', U0BOB: 'bob-slack', U0CAROL: 'carol-slack' };
  s = await upStack({
    prefix: 'hookmap-slack-people-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 30_000 }],
    people: new People(
      [
        { name: 'alice', slack: ['U0ALICE'], approve: [{ project: 'shopapi' }] },
        { name: 'bob', slack: ['U0BOB'], approve: [{ project: 'shopapi' }] },
        { name: 'carol', slack: ['U0CAROL'], approve: [{ project: 'otherproj' }] },
      ],
      { floor: ['force-push'] },
      { slack: users },
      FLOOR_ROWS,
    ),
    push: pushConfigOf({
      ladder: {
        permission: [
          { to: 'slack', people: ['alice'] },
          { to: 'slack', people: ['bob'], after_ms: SECOND_MS },
        ],
      },
    }),
    setup: (home) => {
      writeFileSync(join(home, 'slack-app'), `${sl.appToken}\n`, { mode: 0o600 });
      writeFileSync(join(home, 'slack-bot'), `${sl.botToken}\n`, { mode: 0o600 });
      return {
        channels: { slack: { appTokenFile: join(home, 'slack-app'), botTokenFile: join(home, 'slack-bot'), channel: CHANNEL, users, apiUrl: sl.url } },
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
      cwd: shop,
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command },
      permission_suggestions: [],
    }),
  });
const requestOf = (session: string) => until(`request of ${session}`, () => events().find((e) => e.type === 'attention.requested' && e.session === session));
const cardOf = (session: string) =>
  until(`the card of ${session}`, () => sl.posted.find((p) => !p.thread_ts && JSON.stringify(p.blocks).includes(`session ${session}`)));
const buttonOf = (blocks: any[], id: string) => blocks.find((b) => b.type === 'actions').elements.find((e: any) => e.action_id === id);
const thread = (ts: string) => sl.posted.filter((p) => p.thread_ts === ts);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('people on Slack', () => {
  it('the card mentions alice, bob in its thread at his step; carol (not routed) answers nothing and spends no button', async () => {
    const held = permission('slp-1', 'make deploy');
    const req = await requestOf('slp-1');
    const card = await cardOf('slp-1');
    expect(card.text).toMatch(/^<@U0ALICE> /);
    expect(card.blocks[0]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: '<@U0ALICE>' } });
    const nudge = await until("bob's mention", () => thread(card.ts).find((p) => p.text.includes('<@U0BOB>')));
    expect(nudge.text).toBe('<@U0BOB>: this waits for you too');
    const allow = buttonOf(card.blocks, 'hookmap_allow');
    const acked = sl.acked.length;
    sl.press({ user: 'U0CAROL', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_allow', value: allow.value });
    await until('carol acked', () => (sl.acked.length > acked ? true : undefined));
    await sleep(200);
    expect(events().some((e) => e.type === 'attention.answered' && e.subject === req.id)).toBe(false);
    expect(s.lines.join('\n')).toMatch(/carol-slack \(carol\) is not among the people this request is routed to/);
    // the very button carol pressed still answers for alice
    sl.press({ user: 'U0ALICE', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_allow', value: allow.value });
    expect(await (await held).text()).toMatch(/"behavior":"allow"/);
    expect((events().find((e) => e.type === 'attention.answered' && e.subject === req.id)!.data as any).by).toBe('alice-slack');
  });

  it("I'm on it: a seen on the stream by alice via slack; bob is never mentioned", async () => {
    const held = permission('slp-2', 'make migrate');
    const req = await requestOf('slp-2');
    const card = await cardOf('slp-2');
    sl.press({ user: 'U0ALICE', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_seen', value: buttonOf(card.blocks, 'hookmap_seen').value });
    const seen = await until('the seen', () =>
      readLogs(join(s.logDir, '_operator')).find((e) => e.type === 'x.hookmap.attention.seen' && e.subject === req.id),
    );
    expect(seen.data).toEqual({ by: 'alice-slack', via: 'slack' });
    // the same button again, and a forged value: no second seen, nothing recorded for them
    const acked = sl.acked.length;
    sl.press({ user: 'U0ALICE', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_seen', value: buttonOf(card.blocks, 'hookmap_seen').value });
    sl.press({ user: 'U0ALICE', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_seen', value: 'forged-value-0000000000' });
    sl.press({ user: 'U0EVE', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_seen', value: buttonOf(card.blocks, 'hookmap_seen').value });
    await until('the presses acked', () => (sl.acked.length >= acked + 3 ? true : undefined));
    await sleep(200);
    expect(readLogs(join(s.logDir, '_operator')).filter((e) => e.type === 'x.hookmap.attention.seen' && e.subject === req.id)).toHaveLength(1);
    await sleep(SECOND_MS + 300);
    expect(thread(card.ts)).toHaveLength(0);
    sl.press({ user: 'U0ALICE', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_deny', value: buttonOf(card.blocks, 'hookmap_deny').value });
    expect(await (await held).text()).toMatch(/"behavior":"deny"/);
  });

  it('a first of two allows edits the card in place, buttons kept; the second person settles it', async () => {
    const held = permission('slp-3', 'git push --force origin main');
    const req = await requestOf('slp-3');
    expect((req as any).hookmapapprovals).toBe(2);
    const card = await cardOf('slp-3');
    sl.press({ user: 'U0ALICE', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_allow', value: buttonOf(card.blocks, 'hookmap_allow').value });
    const update = await until('the card edited', () =>
      sl.calls.find((c) => c.method === 'chat.update' && c.body.ts === card.ts && JSON.stringify(c.body.blocks).includes('1 of 2, allowed by alice')),
    );
    const deny = buttonOf(update.body.blocks, 'hookmap_deny');
    expect(deny.value).toBe(buttonOf(card.blocks, 'hookmap_deny').value);
    sl.press({ user: 'U0BOB', channel: CHANNEL, ts: card.ts, action_id: 'hookmap_deny', value: deny.value });
    expect(await (await held).text()).toMatch(/"behavior":"deny"/);
    expect((events().find((e) => e.type === 'attention.answered' && e.subject === req.id)!.data as any).by).toBe('bob-slack');
  });
});
