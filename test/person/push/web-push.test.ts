// Web Push end to end through a whole `hookmap up` (issue 23): a held Claude
// Code PermissionRequest reaches a push service on loopback that verifies
// the VAPID JWT against `hookmap push key` and decrypts the body with
// http_ece; what the message carries at the default capture (no command, no
// token, a fixed padded size); an action credential answers the held hook
// once (the agent receives the allow bytes), and a replay, a credential of
// another request and one of a revoked device are refused; a 410 removes the
// device; settling elsewhere replaces the notification.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addToken, revokeToken } from '../../../engine/runtime/auth/tokens.ts';
import { PAD_SIZE } from '../../../engine/person/push/payload.ts';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startPushService, type TestPushService } from '../../helpers/push-service.ts';
import { runCli } from '../../helpers/cli.ts';

let s: UpStack;
let ps: TestPushService;
let project: string;

beforeAll(async () => {
  ps = await startPushService();
  project = mkdtempSync(join(tmpdir(), 'hookmap-push-proj-'));
  mkdirSync(join(project, '.git'));
  s = await upStack({ prefix: 'hookmap-push-', hello: true, agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 20_000 }], push: { delayMs: 0 } });
}, 30_000);

afterAll(async () => {
  await s?.done();
  await ps?.close();
});

const auth = (token = s.token) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
const post = (path: string, body: unknown, headers: Record<string, string> = auth()) =>
  fetch(`${s.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
const events = () => readLogs(join(s.logDir, 'claude-code'));

function permission(session: string, command: string): Promise<Response> {
  return fetch(`${s.url}/hooks/claude-code`, {
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
}
const requestOf = (session: string) => until(`request of ${session}`, () => events().find((e) => e.type === 'attention.requested' && e.session === session));
const pushesFor = (id: string, type = 'request') => ps.received.filter((r) => r.message.request === id && r.message.type === type);

async function register(name: string, token = s.token) {
  const res = await post('/push/devices', { subscription: ps.device(name).subscription, name }, auth(token));
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

describe('Web Push', () => {
  it('makes the VAPID keys on the first start (0600) and prints the public key', async () => {
    const st = statSync(join(s.home, 'push', 'vapid.json'));
    expect(st.mode & 0o777).toBe(0o600);
    const r = await runCli(['push', 'key'], { ...process.env, HOOKMAP_HOME: s.home });
    expect(r.code).toBe(0);
    const key = (await (await fetch(`${s.url}/push/key`, { headers: auth() })).json()).publicKey;
    expect(r.stdout.trim()).toBe(key);
    expect(Buffer.from(key, 'base64url').length).toBe(65);
  });

  it('refuses a subscription whose endpoint is plain http off loopback, or whose keys are wrong', async () => {
    const bad = await post('/push/devices', { subscription: { endpoint: 'http://push.example.com/x', keys: ps.device('x').subscription.keys } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).detail).toMatch(/must be https/);
    const keys = await post('/push/devices', { subscription: { endpoint: 'https://push.example.com/x', keys: { p256dh: 'AAAA', auth: 'BBBB' } } });
    expect(keys.status).toBe(400);
    expect((await post('/push/devices', { subscription: ps.device('y').subscription }, { 'content-type': 'application/json' })).status).toBe(401);
  });

  it('pushes a held permission request: VAPID verified, decrypted, fixed size, no command at the default capture, actions that answer once', async () => {
    await register('phone');
    const hook = permission('cc-push-1', 'curl -H "Authorization: Bearer sk-live-supersecret" https://api.example.com');
    const req = await requestOf('cc-push-1');
    const got = await until('the push', () => pushesFor(req.id)[0]);
    const key = (await (await fetch(`${s.url}/push/key`, { headers: auth() })).json()).publicKey;
    expect(ps.errors).toEqual([]);
    expect(got.vapidKey).toBe(key);
    expect(got.claims.aud).toBe(ps.url);
    expect(got.plaintext.length).toBe(PAD_SIZE);
    expect(got.headers.urgency).toBe('high');
    expect(got.headers.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    expect(Number(got.headers.ttl)).toBeGreaterThan(0);
    const m = got.message;
    expect(m.title).toMatch(/^claude-code wants to run Bash in hookmap-push-proj-/);
    // no "always": the notification does not show the command, so it cannot save a rule for it (issue 40)
    expect(m.actions.map((a: any) => a.action)).toEqual(['allow', 'deny']);
    const text = got.plaintext.toString();
    expect(text).not.toMatch(/curl|supersecret|api\.example/);
    expect(text).not.toContain(s.token);
    expect(text).not.toMatch(/hmk_|login=/);
    expect(m.credential).toMatch(/^hma_/);
    // the credential answers this request once, as the device's principal
    const ok = await post('/push/action', { credential: m.credential, action: 'allow' }, { 'content-type': 'application/json' });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect((await ok.json()).by).toBe('owner');
    const reply = await hook;
    expect(await reply.text()).toBe('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}');
    const answered = await until('answered', () => events().find((e) => e.type === 'attention.answered' && e.subject === req.id));
    expect((answered.data as any).by).toBe('owner');
    // a replay is refused, and the notification is replaced by a settled one with the same tag
    const again = await post('/push/action', { credential: m.credential, action: 'allow' }, { 'content-type': 'application/json' });
    expect([403, 410]).toContain(again.status);
    const settled = await until('the settled push', () => pushesFor(req.id, 'settled')[0]);
    expect(settled.message.tag).toBe(m.tag);
    expect(settled.headers.topic).toBe(got.headers.topic);
    expect(settled.plaintext.length).toBe(PAD_SIZE);
  });

  it('a forged "always" from a notification that did not show the command saves no rule and answers nothing (finish in the inbox)', async () => {
    const hook = permission('cc-push-always', 'kubectl "delete ns prod"');
    const req = await requestOf('cc-push-always');
    const m = (await until('the push', () => pushesFor(req.id)[0])).message;
    expect(m.actions.map((a: any) => a.action)).toEqual(['allow', 'deny']);
    const forged = await post('/push/action', { credential: m.credential, action: 'always', request: req.id }, { 'content-type': 'application/json' });
    expect(forged.status).toBe(422);
    const body = await forged.json();
    expect(body.error).toBe('finish-in-inbox');
    expect(body.detail).toMatch(/open the inbox/);
    // replayed: the credential was spent on the refusal
    const replay = await post('/push/action', { credential: m.credential, action: 'always', request: req.id }, { 'content-type': 'application/json' });
    expect([403, 410]).toContain(replay.status);
    const rules = (await (await fetch(`${s.url}/rules`, { headers: auth() })).json()).rules as { origin: string; matches: string }[];
    expect(rules.filter((r) => r.origin === 'learned' && /kubectl/.test(r.matches))).toEqual([]);
    expect(events().some((e) => e.type === 'attention.answered' && e.subject === req.id)).toBe(false);
    // still waiting: answered where the command is shown
    expect((await runCli(['answer', req.id, '--deny'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url })).code).toBe(0);
    await hook;
  });

  it('a credential of another request, a forged one and one of a revoked device answer nothing', async () => {
    const h1 = permission('cc-push-2', 'ls');
    const r1 = await requestOf('cc-push-2');
    const m1 = (await until('push 2', () => pushesFor(r1.id)[0])).message;
    // a credential presented for another request answers nothing (and is spent)
    const other = await post(
      '/push/action',
      { credential: m1.credential, action: 'allow', request: 'some-other-request' },
      { 'content-type': 'application/json' },
    );
    expect(other.status).toBe(403);
    expect((await other.json()).error).toBe('wrong-request');
    // forged: the right shape, never issued
    const forged = await post('/push/action', { credential: `hma_${'A'.repeat(43)}`, action: 'allow' }, { 'content-type': 'application/json' });
    expect(forged.status).toBe(403);
    // the device is revoked (CLI, straight in the file): its credentials are dead
    const h2 = permission('cc-push-2b', 'ls /');
    const r2 = await requestOf('cc-push-2b');
    const m2 = (await until('push 2b', () => pushesFor(r2.id)[0])).message;
    const rv = await runCli(['push', 'revoke', 'phone'], { ...process.env, HOOKMAP_HOME: s.home });
    expect(rv.code, rv.stderr).toBe(0);
    const dead = await post('/push/action', { credential: m2.credential, action: 'allow' }, { 'content-type': 'application/json' });
    expect(dead.status).toBe(403);
    expect((await dead.json()).error).toBe('device-revoked');
    await runCli(['answer', r2.id, '--deny'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });
    await h2;
    // answered in the terminal: the request settles, nothing was answered by the push
    await runCli(['answer', r1.id, '--deny'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });
    expect(await (await h1).text()).toMatch(/"behavior":"deny"/);
  });

  it('a token revoked after registering makes its devices answer nothing', async () => {
    const t = addToken(s.home, 'alex', 'control').token;
    await register('alex-phone', t);
    const h = permission('cc-push-3', 'ls -la');
    const r = await requestOf('cc-push-3');
    const m = (await until('push 3', () => pushesFor(r.id).find((x) => x.device === 'alex-phone'))).message;
    revokeToken(s.home, 'alex');
    await until('revocation seen', async () => (await fetch(`${s.url}/push/key`, { headers: auth(t) })).status === 401 || undefined);
    const res = await post('/push/action', { credential: m.credential, action: 'allow' }, { 'content-type': 'application/json' });
    expect(res.status).toBe(403);
    await runCli(['answer', r.id, '--deny'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });
    await h;
  });

  it('a flood of forged actions is refused each time and fills no log: one line a minute at most', async () => {
    const refusedLines = () => s.lines.filter((l) => /an action was refused/.test(l)).length;
    const before = refusedLines();
    for (let i = 0; i < 50; i++) {
      const r = await post('/push/action', { credential: `hma_${String(i).padStart(43, 'B')}`, action: 'allow' }, { 'content-type': 'application/json' });
      expect(r.status).toBe(403);
    }
    expect(refusedLines() - before).toBeLessThanOrEqual(1);
  });

  it('removes a device the push service says is gone (410), and says so once', async () => {
    await register('old-laptop');
    ps.respond('old-laptop', 410);
    const h = permission('cc-push-4', 'pwd');
    const r = await requestOf('cc-push-4');
    await until('old-laptop removed', async () => {
      const list = (await (await fetch(`${s.url}/push/devices`, { headers: auth() })).json()).devices;
      return !list.some((d: any) => d.name === 'old-laptop') || undefined;
    });
    expect(s.lines.filter((l) => /old-laptop is gone/.test(l))).toHaveLength(1);
    await runCli(['answer', r.id, '--deny'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });
    await h;
  });

  it('refuses a cross-origin browser request', async () => {
    const res = await post('/push/action', { credential: 'hma_x', action: 'allow' }, { 'content-type': 'application/json', origin: 'https://evil.example' });
    expect(res.status).toBe(403);
  });
});
