// ntfy and the signed webhook through a whole `hookmap up` (issue 24),
// against loopback stand-ins: an ntfy server (JSON publishing, a bearer
// access token) and a webhook receiver that verifies the HMAC signature and
// the replay window the way docs/channels.md shows. Each gets the held
// request with one-time action URLs; pressing Allow settles the hook as the
// channel's principal, once; a settled request is said; a 500 is retried; at
// capture `redacted` the ntfy message carries the command with its secret
// redacted, at the default the webhook's carries none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startRecorder, type Recorded, type Recorder } from '../../helpers/http-recorder.ts';

const NTFY_TOKEN = 'tk_ntfy_stand_in_token_0123456789';
const SECRET = 'whsec_the_webhook_secret_0123456789';

/** The receiver's check, as docs/channels.md gives it: HMAC over "<timestamp>.<body>", constant-time, 300 s window. */
function verify(r: Recorded): string | undefined {
  const ts = String(r.headers['x-hookmap-timestamp'] ?? '');
  const sig = String(r.headers['x-hookmap-signature'] ?? '');
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return 'timestamp outside the replay window';
  const want = `sha256=${createHmac('sha256', SECRET).update(`${ts}.${r.raw}`).digest('hex')}`;
  return sig.length === want.length && timingSafeEqual(Buffer.from(sig), Buffer.from(want)) ? undefined : 'bad signature';
}

let s: UpStack;
let ntfy: Recorder;
let hook: Recorder;

beforeAll(async () => {
  ntfy = await startRecorder(
    (r) => (r.headers.authorization === `Bearer ${NTFY_TOKEN}` ? undefined : 'unauthorized'),
    (r) => ({ id: 'm1', time: 0, event: 'message', topic: r.body.topic }),
  );
  hook = await startRecorder(verify);
  s = await upStack({
    prefix: 'hookmap-ntfy-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 20_000 }],
    push: { delayMs: 0 },
    setup: (home) => {
      writeFileSync(join(home, 'ntfy-token'), `${NTFY_TOKEN}\n`, { mode: 0o600 });
      writeFileSync(join(home, 'webhook-secret'), `${SECRET}\n`, { mode: 0o600 });
      return {
        channels: {
          ntfy: { server: ntfy.url, topic: 'hookmap-alex', tokenFile: join(home, 'ntfy-token'), principal: 'alex', capture: 'redacted' as const },
          webhook: { url: `${hook.url}/x`, secretFile: join(home, 'webhook-secret'), principal: 'pager' },
        },
      };
    },
  });
}, 30_000);

afterAll(async () => {
  await s?.done();
  await ntfy?.close();
  await hook?.close();
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
const press = (a: { url: string; method?: string; headers?: Record<string, string>; body: string | object }) =>
  fetch(a.url, {
    method: a.method ?? 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof a.body === 'string' ? a.body : JSON.stringify(a.body),
  });

describe('ntfy', () => {
  it(
    'publishes the request with http actions; Allow settles the hook as the channel principal, ' + 'once; the command is redacted at capture redacted',
    async () => {
      const held = permission('nt-1', 'curl -H "Authorization: Bearer ghp_0123456789abcdefghijklmnopqrstuvwxyzAB" https://api.github.com');
      const req = await requestOf('nt-1');
      const msg = await until('the ntfy message', () => ntfy.got.find((g) => g.body.actions?.length && g.body.message.includes('session nt-1')));
      expect(msg.body.topic).toBe('hookmap-alex');
      expect(msg.body.message).toMatch(/^Permission request: curl -H/);
      expect(msg.raw).not.toContain('ghp_0123456789abcdefghijklmnopqrstuvwxyzAB');
      expect(msg.raw).not.toContain(s.token);
      const [allow, deny] = msg.body.actions;
      expect([allow.label, deny.label]).toEqual(['Allow', 'Deny']);
      expect(allow.url).toBe(`${s.url}/push/action`);
      expect((await press(allow)).status).toBe(200);
      expect(await (await held).text()).toMatch(/"behavior":"allow"/);
      expect((events().find((e) => e.type === 'attention.answered' && e.subject === req.id)!.data as any).by).toBe('alex');
      expect([403, 410]).toContain((await press(allow)).status);
      expect([403, 409, 410]).toContain((await press(deny)).status);
      await until('the settled message', () => ntfy.got.find((g) => g.body.message === 'Answered by alex via ntfy'));
    },
  );
});

describe('webhook', () => {
  it('posts a signed document with action URLs; no command at the default capture; a 500 is retried; the settled document follows', async () => {
    hook.next(500);
    const held = permission('wh-1', 'curl https://secret.example/token');
    const req = await requestOf('wh-1');
    const doc = await until('the signed document', () => hook.got.find((g) => g.body.type === 'hookmap.request' && g.body.request.id === req.id));
    expect(hook.refused).toEqual([]);
    expect(doc.raw).not.toMatch(/curl|secret\.example/);
    expect(doc.body.title).toMatch(/^claude-code wants to run Bash/);
    const allow = doc.body.actions.find((a: any) => a.action === 'allow');
    expect((await press(allow)).status).toBe(200);
    expect(await (await held).text()).toMatch(/"behavior":"allow"/);
    expect((events().find((e) => e.type === 'attention.answered' && e.subject === req.id)!.data as any).by).toBe('pager');
    const settled = await until('settled', () => hook.got.find((g) => g.body.type === 'hookmap.settled' && g.body.request.id === req.id));
    expect(settled.body).toMatchObject({ how: 'answered', by: 'pager' });
    // the documented check refuses a body changed in transit
    expect(verify({ ...doc, raw: doc.raw.replace('wh-1', 'wh-2') })).toBe('bad signature');
  });
});
