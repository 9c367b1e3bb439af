// The history's search in the web inbox, in a real Chromium against `hookmap
// up` (capture full, so prompts and commands are logged and found): each
// matching event with an excerpt of its logged text and the words marked,
// markup in an event shown as text (never run), and the agent, project and
// date filters narrowing the search.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { fire, launch, signedIn, skipBrowser, stack, until, type Stack } from './harness.ts';

describe.skipIf(!!skipBrowser)('web inbox: history search with highlights and filters', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;

  beforeAll(async () => {
    browser = await launch();
    s = await stack({ agents: [{ descriptor: 'claude-code' }, { descriptor: 'codex' }], capture: 'full' });
    const cc = (b: object) => fire(s, 'claude-code', { session_id: 'cc-1', cwd: '/work/shop', ...b });
    await cc({ hook_event_name: 'SessionStart', source: 'startup' });
    await cc({ hook_event_name: 'UserPromptSubmit', prompt: 'fix the <img src=x onerror="window.__pwned=1"> Flaky checkout test' });
    const cx = (b: object) => fire(s, 'codex', { session_id: 'cx-1', turn_id: 't1', cwd: '/work/docs', ...b });
    await cx({ hook_event_name: 'SessionStart', source: 'startup' });
    await cx({ hook_event_name: 'UserPromptSubmit', prompt: 'the flaky docs build' });
    await s.up.history!()!.caughtUp();
    page = (await signedIn(browser, s)).page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const hits = () => page.locator('[data-results="search"] [data-hist-session]');
  const searchFor = async (q: string) => {
    await page.locator('input[type="search"]').fill(q);
    await page.locator('form[role="search"] button').click();
  };

  it("marks the searched words in an excerpt of each event, an event's markup shown as text", async () => {
    await page.goto(`${s.url}/#/history`);
    await searchFor('flaky');
    await until('two sessions found', async () => (await hits().count()) === 2);
    const cc = page.locator('[data-hist-session="cc-1"]');
    const excerpt = cc.locator('.hist-excerpt').first();
    expect(await excerpt.locator('mark').allTextContents()).toEqual(['Flaky']);
    expect(await excerpt.textContent()).toContain('<img src=x onerror="window.__pwned=1"> Flaky checkout test');
    expect(await page.locator('.hist-hits img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await cc.locator('[data-metadata-only]').count()).toBe(0);
    // two words: both marked
    await searchFor('flaky docs');
    await until('one session found', async () => (await hits().count()) === 1);
    expect(await page.locator('[data-hist-session="cx-1"] .hist-excerpt mark').allTextContents()).toEqual(['flaky', 'docs']);
  });

  it('narrows the search by agent, project and date', async () => {
    await page.goto(`${s.url}/#/history`);
    await searchFor('flaky');
    await until('two sessions found', async () => (await hits().count()) === 2);
    await page.locator('select[name="agent"]').selectOption('codex');
    await until('the agent filter', async () => (await hits().count()) === 1);
    expect(await hits().first().getAttribute('data-hist-session')).toBe('cx-1');
    await page.locator('select[name="agent"]').selectOption('');
    await page.locator('select[name="project"]').selectOption('shop');
    // the agent filter's one hit shows until the project filter's answer comes: wait for that answer
    await until('the project filter', async () => (await hits().count()) === 1 && (await hits().first().getAttribute('data-hist-session')) === 'cc-1');
    await page.locator('select[name="project"]').selectOption('');
    await until('no filter', async () => (await hits().count()) === 2);
    await page.locator('input[name="since"]').fill('2999-01-01');
    await until('the date filter', async () => (await hits().count()) === 0);
    await page.locator('input[name="since"]').fill('');
    await page.locator('input[name="until"]').fill('2000-01-01');
    await until('the before filter', async () => (await hits().count()) === 0);
  });
});
