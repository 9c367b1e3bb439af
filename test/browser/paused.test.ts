// A session paused on a rate limit, in a real Chromium (issue 44,
// docs/usage.md "Rate limits"): Claude Code's StopFailure {error: rate_limit}
// POSTed as Claude Code 2.1.328 sent it (test/live/limits.live.ts), with a
// reset the message states; the session list shows the row as paused with
// "rate limit: paused until HH:MM", the state filter finds it, and the
// session's next prompt turns it back into a running one. OpenCode's retry
// (session.status retry as OpenCode 1.18.33 sent it after a 429,
// test/live/limits-retry.live.ts) shows "retrying by itself at HH:MM" while
// its run waits, and its next status lets the row go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { fire, launch, signedIn, skipBrowser, stack, type Stack } from './harness.ts';

const AGENT = 'claude-code';
const SESSION = 'paused-1';

describe.skipIf(!!skipBrowser)('web inbox: a session paused on a rate limit', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;
  const base = { session_id: SESSION, cwd: '/tmp/shop-api', transcript_path: '/tmp/none.jsonl' };

  beforeAll(async () => {
    browser = await launch();
    s = await stack({ agents: [{ descriptor: 'claude-code' }, { descriptor: 'opencode' }] });
    ({ page } = await signedIn(browser, s));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('shows the row paused until the stated reset; the state filter finds it; its next prompt runs it again', async () => {
    const reset = new Date(Date.now() + 2 * 3600_000);
    reset.setSeconds(0, 0);
    expect((await fire(s, AGENT, { ...base, hook_event_name: 'SessionStart', source: 'startup' })).status).toBe(200);
    expect((await fire(s, AGENT, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'refactor the auth module' })).status).toBe(200);
    const stop = {
      ...base,
      hook_event_name: 'StopFailure',
      error: 'rate_limit',
      last_assistant_message: `Claude AI usage limit reached|${reset.getTime() / 1000}`,
    };
    expect((await fire(s, AGENT, stop)).status).toBe(200);
    const row = page.locator(`.session-list a[data-session="${SESSION}"]`);
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 5_000 }).toBe('paused');
    expect(await row.locator('.pill').textContent()).toBe('paused');
    // the page's own clock and time zone say the hour
    const hhmm = await page.evaluate((iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }), reset.toISOString());
    const sub = await row.locator('.session-sub .muted').first().textContent();
    expect(sub).toContain('rate limit: paused until');
    expect(sub).toContain(hhmm);
    await page.locator('select[aria-label="Filter by state"]').selectOption('paused');
    await expect.poll(() => page.locator('.session-list a[data-session]').count()).toBe(1);
    await page.locator('select[aria-label="Filter by state"]').selectOption('');
    expect((await fire(s, AGENT, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go on' })).status).toBe(200);
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 5_000 }).toBe('running');
    expect(await row.locator('.session-sub .muted').first().textContent()).not.toContain('rate limit');
  });

  it('an agent retrying by itself: paused inside its run until its retry time, which a second retry moves', async () => {
    const session = 'ses_retrying1';
    const later = new Date(Date.now() + 3 * 3600_000);
    later.setSeconds(0, 0);
    let n = 0;
    const bus = (type: string, properties: Record<string, unknown>) =>
      fire(s, 'opencode', { kind: 'bus', event: { id: `evt_paused_${++n}`, type, properties: { sessionID: session, ...properties } } });
    const retry = (attempt: number, next: number) =>
      bus('session.status', { status: { type: 'retry', attempt, message: 'Rate limit reached for requests', next } });
    expect((await bus('session.created', { info: { id: session, version: '1.18.33', directory: '/tmp/shop-api', title: 'retry' } })).status).toBe(200);
    expect((await bus('session.status', { status: { type: 'busy' } })).status).toBe(200);
    expect((await retry(1, later.getTime())).status).toBe(200);
    const row = page.locator(`.session-list a[data-session="${session}"]`);
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 5_000 }).toBe('paused');
    const hhmm = await page.evaluate((iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }), later.toISOString());
    const sub = await row.locator('.session-sub .muted').first().textContent();
    expect(sub).toContain('rate limit: retrying by itself at');
    expect(sub).toContain(hhmm);
    // refused again: the agent retries sooner; past that time the row is no longer paused
    expect((await retry(2, Date.now() + 3_000)).status).toBe(200);
    await expect.poll(() => row.locator('.session-sub .muted').first().textContent(), { timeout: 5_000 }).not.toContain(hhmm);
    expect(await row.getAttribute('data-state')).toBe('paused');
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 10_000 }).not.toBe('paused');
    expect(await row.locator('.session-sub .muted').first().textContent()).not.toContain('rate limit');
  });
});
