// Web Push in a real Chromium (issue 23): the inbox registers its service
// worker; a message the hookmap up sent (as the loopback push service
// received and decrypted it) is delivered to that worker through CDP
// (ServiceWorker.deliverPushMessage, what the push service's delivery does);
// the worker shows the notification with the request's actions (read back
// with registration.getNotifications()); its Allow handler posts the action
// credential and the held Claude Code hook gets the allow bytes; a replayed
// message's Allow is refused; a request answered in the terminal replaces
// its notification. No real push service can run here: the stand-in is
// test/helpers/push-service.ts (docs/push.md, "How it is tested").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { fire, launch, signedIn, skipBrowser, stack, until, TOKEN, type Stack } from './harness.ts';
import { startPushService, type TestPushService } from '../helpers/push-service.ts';
import { runCli } from '../helpers/cli.ts';

describe.skipIf(!!skipBrowser)('web inbox: Web Push through the service worker', () => {
  let browser: Browser;
  let s: Stack;
  let ps: TestPushService;
  let page: Page;
  let cdp: CDPSession;
  let registrationId = '';
  const cc = (session: string, command: string) =>
    fire(s, 'claude-code', {
      hook_event_name: 'PermissionRequest',
      session_id: session,
      transcript_path: '/tmp/t.jsonl',
      cwd: '/tmp',
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command },
      permission_suggestions: [],
    });
  const pushed = (session: string, type = 'request') =>
    until(`a ${type} push for ${session}`, () => ps.received.find((r) => r.message.session === session && r.message.type === type));
  const deliver = (plaintext: Buffer) => cdp.send('ServiceWorker.deliverPushMessage', { origin: s.url, registrationId, data: plaintext.toString('utf8') });
  const notifications = (tag: string) =>
    page.evaluate(
      async (t) =>
        (await (await navigator.serviceWorker.ready).getNotifications({ tag: t })).map((n) => ({
          title: n.title,
          body: n.body,
          tag: n.tag,
          actions: ((n as any).actions ?? []).map((a: any) => a.action),
        })),
      tag,
    );
  /** What pressing a notification's button does, asked of the worker (no CDP command presses one). */
  const press = (tag: string, action: string) =>
    page.evaluate(
      ({ t, a }) =>
        new Promise<string>((resolve) => {
          navigator.serviceWorker.addEventListener('message', function on(e) {
            if (e.data?.type === 'notification-action-done' && e.data.tag === t) {
              navigator.serviceWorker.removeEventListener('message', on);
              resolve(e.data.text);
            }
          });
          navigator.serviceWorker.controller!.postMessage({ type: 'notification-action', tag: t, action: a });
        }),
      { t: tag, a: action },
    );

  beforeAll(async () => {
    ps = await startPushService();
    browser = await launch();
    s = await stack({ attentionTimeoutMs: 20_000, push: { delayMs: 0 } });
    const res = await fetch(`${s.url}/push/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subscription: ps.device('chromium').subscription, name: 'chromium' }),
    });
    expect(res.status).toBe(200);
    const signed = await signedIn(browser, s);
    page = signed.page;
    await signed.context.grantPermissions(['notifications'], { origin: s.url });
    cdp = await signed.context.newCDPSession(page);
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e: any) => {
      for (const r of e.registrations) if (r.scopeURL === `${s.url}/` && !r.isDeleted) registrationId = r.registrationId;
    });
    await cdp.send('ServiceWorker.enable');
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
    });
    await until('the worker registration', () => registrationId || undefined);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await ps?.close();
  });

  it('serves an installable app: the manifest, its icons, the worker at the root', async () => {
    const m = await (await fetch(`${s.url}/manifest.webmanifest`)).json();
    expect(m.display).toBe('standalone');
    for (const i of m.icons) {
      const r = await fetch(`${s.url}${i.src}`);
      expect(r.headers.get('content-type')).toBe('image/png');
      const png = Buffer.from(await r.arrayBuffer());
      expect(png.readUInt32BE(16)).toBe(Number(i.sizes.split('x')[0]));
    }
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${s.url}/sw.js`);
    // the shell is cached, nothing else: no event, no API answer
    const cached = await page.evaluate(async () => {
      const out: string[] = [];
      for (const k of await caches.keys()) for (const r of await (await caches.open(k)).keys()) out.push(new URL(r.url).pathname);
      return out.sort();
    });
    expect(cached).toEqual([
      '/',
      '/inbox/assets/icon-192.png',
      '/inbox/assets/icon-512.png',
      '/inbox/assets/inbox.css',
      '/inbox/assets/inbox.js',
      '/manifest.webmanifest',
    ]);
  });

  it("shows a pushed request with its actions, and its Allow settles the held hook; a replay's Allow is refused", async () => {
    const held = cc('sw-1', 'npm test');
    const got = await pushed('sw-1');
    await deliver(got.plaintext);
    const tag = got.message.tag;
    const shown = await until('the notification', async () => (await notifications(tag))[0]);
    expect(shown.title).toMatch(/^claude-code wants to run Bash/);
    expect(shown.actions).toEqual(['allow', 'deny']);
    expect(await press(tag, 'allow')).toBe('Allowed from this device');
    expect(JSON.parse((await held).text).hookSpecificOutput.decision).toEqual({ behavior: 'allow' });
    // the same message again (a replay at the push service): its Allow answers nothing
    await deliver(got.plaintext);
    await until('the replayed notification', async () => ((await notifications(tag))[0]?.actions.length ? true : undefined));
    expect(await press(tag, 'allow')).toMatch(/^Not answered: /);
  });

  it('replaces the notification when the request is answered in the terminal', async () => {
    const held = cc('sw-2', 'ls');
    const got = await pushed('sw-2');
    await deliver(got.plaintext);
    const tag = got.message.tag;
    await until('the notification', async () => (await notifications(tag))[0]);
    const r = await runCli(['answer', got.message.request, '--deny'], { ...process.env, HOOKMAP_URL: s.url, HOOKMAP_TOKEN: TOKEN });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse((await held).text).hookSpecificOutput.decision.behavior).toBe('deny');
    const settled = await pushed('sw-2', 'settled');
    expect(settled.message.tag).toBe(tag);
    await deliver(settled.plaintext);
    const now = await until('the replacement', async () => {
      const l = await notifications(tag);
      return l.length === 1 && l[0].actions.length === 0 ? l[0] : undefined;
    });
    expect(now.body).toBe('Answered by owner via cli');
  });

  it("lists the device on #/devices and revokes it there; a revoked device's Allow answers nothing", async () => {
    const held = cc('sw-3', 'pwd');
    const got = await pushed('sw-3');
    await page.goto(`${s.url}/#/devices`);
    await page.locator('[data-device="chromium"]').waitFor();
    await page.locator('[data-device="chromium"] button', { hasText: 'Revoke' }).click();
    await page.locator('[data-devices-empty]').waitFor();
    await page.evaluate(async () => {
      if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
    });
    await deliver(got.plaintext);
    const tag = got.message.tag;
    await until('the notification', async () => (await notifications(tag))[0]);
    expect(await press(tag, 'allow')).toMatch(/^Not answered: (this device was revoked|no such action credential)/);
    const r = await runCli(['answer', got.message.request, '--deny'], { ...process.env, HOOKMAP_URL: s.url, HOOKMAP_TOKEN: TOKEN });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse((await held).text).hookSpecificOutput.decision.behavior).toBe('deny');
  });
});
