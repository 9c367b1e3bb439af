// Web Push through a whole `hookmap up`, the behaviours around the send
// (issue 23): the delay while an inbox tab is visible (nothing pushed for a
// request answered within it), the command at capture `redacted` through
// redaction, a push service that hangs or answers 429 never delaying the
// hook's reply (asserted by behaviour: the held hook answers as soon as it
// is answered), and 429's Retry-After honoured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startPushService, type TestPushService } from '../../helpers/push-service.ts';
import { runCli } from '../../helpers/cli.ts';

let s: UpStack;
let ps: TestPushService;

beforeAll(async () => {
  ps = await startPushService();
  s = await upStack({
    prefix: 'hookmap-push-b-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 20_000 }],
    // the delay outlasts a `hookmap answer` spawned on a loaded machine (it answers the quick request within it)
    push: { delayMs: 6000, capture: 'redacted' },
  });
  for (const name of ['desk', 'slow']) {
    const res = await fetch(`${s.url}/push/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subscription: ps.device(name).subscription, name }),
    });
    expect(res.status).toBe(200);
  }
}, 30_000);

afterAll(async () => {
  await s?.done();
  await ps?.close();
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
const answer = (id: string, how: string) => runCli(['answer', id, how], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });
const visible = (tab: string, v: boolean) =>
  fetch(`${s.url}/push/presence`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tab, visible: v }),
  });

describe('when a push goes out', () => {
  it('with a visible inbox tab: nothing for a request answered within push.delay_ms, a push after it otherwise', async () => {
    expect((await visible('tab-desk-0001', true)).status).toBe(204);
    const quick = permission('pb-1', 'ls');
    const r1 = await requestOf('pb-1');
    expect((await answer(r1.id, '--allow')).code).toBe(0);
    await quick;
    const slow = permission('pb-2', 'ls -la');
    const r2 = await requestOf('pb-2');
    const t0 = Date.parse(r2.time); // the delay counts from the request (engine/person/push/ladder.ts)
    await until('the delayed push', () => ps.received.find((r) => r.message.request === r2.id), 10_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(6000);
    expect(ps.received.some((r) => r.message.request === r1.id)).toBe(false);
    await answer(r2.id, '--deny');
    await slow;
    await visible('tab-desk-0001', false);
  });

  it('at capture redacted the notification carries the command, with the secret redacted', async () => {
    const held = permission('pb-3', 'curl -H "Authorization: Bearer ghp_0123456789abcdefghijklmnopqrstuvwxyzAB" https://api.github.com/user');
    const r = await requestOf('pb-3');
    const got = await until('the push', () => ps.received.find((x) => x.message.request === r.id));
    expect(got.message.body).toMatch(/^Permission request: curl -H/);
    expect(got.plaintext.toString()).not.toContain('ghp_0123456789abcdefghijklmnopqrstuvwxyzAB');
    await answer(r.id, '--deny');
    await held;
  });

  it('a push service that hangs or rate-limits never holds up the hook reply', async () => {
    ps.respond('slow', 'hang');
    ps.respond('desk', 429);
    const held = permission('pb-4', 'pwd');
    const r = await requestOf('pb-4');
    // nobody looks: pushed at once, to a service that never answers and one that says 429
    await new Promise((res) => setTimeout(res, 300));
    const t0 = Date.now();
    expect((await answer(r.id, '--allow')).code).toBe(0);
    const reply = await held;
    expect(await reply.text()).toMatch(/"behavior":"allow"/);
    expect(Date.now() - t0).toBeLessThan(5000);
    ps.respond('desk', 201);
  });
});
