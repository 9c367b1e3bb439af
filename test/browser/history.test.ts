// The history view of the web inbox in a real Chromium against `hookmap up`:
// sessions from the history database with their tokens and cost (usage read
// from Claude Code's transcript), the project and date filters, search, the
// usage view per day and per agent, and older sessions paged in.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { tempDir } from '../runtime/daemon/helpers.ts';
import { fire, launch, signedIn, skipBrowser, stack, until, type Stack } from './harness.ts';

describe.skipIf(!!skipBrowser)('web inbox: history, search and usage', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;
  const user = tempDir('hookmap-history-user-');
  const folder = join(user.dir, '.claude', 'projects', 'x');

  const session = async (id: string, cwd: string, words: string, tokens?: { in: number; out: number }) => {
    const file = join(folder, `${id}.jsonl`);
    const u = tokens && { input_tokens: tokens.in, output_tokens: tokens.out };
    writeFileSync(file, tokens ? `${JSON.stringify({ type: 'assistant', message: { id: `m-${id}`, model: 'claude-sonnet-4-5', usage: u } })}\n` : '');
    const cc = (b: object) => fire(s, 'claude-code', { session_id: id, transcript_path: file, cwd, ...b });
    await cc({ hook_event_name: 'SessionStart', source: 'startup' });
    await cc({ hook_event_name: 'UserPromptSubmit', prompt: 'p' });
    await cc({ hook_event_name: 'PreToolUse', tool_name: words, tool_use_id: `t-${id}`, tool_input: { command: 'x' } });
    await cc({ hook_event_name: 'Stop' });
    await cc({ hook_event_name: 'SessionEnd', reason: 'other' });
  };

  beforeAll(async () => {
    mkdirSync(folder, { recursive: true });
    browser = await launch();
    s = await stack({ agents: [{ descriptor: 'claude-code', config: { config_dir: join(user.dir, '.claude') } }] });
    await session('shop-1', '/work/shop', 'MigrateTool', { in: 1200, out: 300 });
    await session('shop-2', '/work/shop', 'Bash', { in: 50, out: 20 });
    for (let i = 0; i < 27; i++) await session(`docs-${String(i).padStart(2, '0')}`, '/work/docs', 'Read');
    // the background indexer has caught up with the logs
    await until('the history indexed', async () => {
      const r = await fetch(`${s.url}/history/sessions?limit=200`, { headers: { authorization: 'Bearer inbox-browser-test-token' } });
      return ((await r.json()) as { sessions: unknown[] }).sessions.length === 29;
    });
    page = (await signedIn(browser, s)).page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    user.done();
  });

  it('lists sessions with tokens and cost, pages older ones, and filters by project', async () => {
    await page.goto(`${s.url}/#/history`);
    const rows = page.locator('[data-results="sessions"] [data-hist-session]');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(25);
    await page.locator('[data-older]').click();
    await until('older sessions paged in', async () => (await rows.count()) === 29);
    const shop1 = page.locator('[data-hist-session="shop-1"]');
    expect(await shop1.locator('[data-tokens]').getAttribute('data-tokens')).toBe('1500');
    expect(await shop1.locator('[data-cost]').textContent()).toMatch(/^\$0\.\d{4}$/);
    await page.locator('select[name="project"]').selectOption('shop');
    await until('the project filter', async () => (await rows.count()) === 2);
    expect((await rows.allTextContents()).every((t) => t.includes('shop'))).toBe(true);
    await page.locator('select[name="project"]').selectOption('');
    await until('all projects again', async () => (await rows.count()) === 25);
    // a date in the future: nothing since then
    await page.locator('input[name="since"]').fill('2999-01-01');
    await until('the date filter', async () => (await rows.count()) === 0);
    await page.locator('input[name="since"]').fill('');
    await until('no date filter', async () => (await rows.count()) === 25);
  });

  it('searches the history: the matching session with its matching event', async () => {
    await page.goto(`${s.url}/#/history`);
    await page.locator('input[type="search"]').fill('migratetool');
    await page.locator('form[role="search"] button').click();
    const hits = page.locator('[data-results="search"] [data-hist-session]');
    await hits.first().waitFor();
    expect(await hits.count()).toBe(1);
    expect(await hits.first().getAttribute('data-hist-session')).toBe('shop-1');
    expect(await hits.first().locator('.hist-hits').textContent()).toContain('tool.requested MigrateTool');
    // captured at metadata (the default): the tool's name is marked, and the hit says no text was logged to show
    // (the subject and the data's tool name: both marked)
    expect(new Set(await hits.first().locator('.hist-excerpt').first().locator('mark').allTextContents())).toEqual(new Set(['MigrateTool']));
    expect(await hits.first().locator('[data-metadata-only]').first().textContent()).toContain('captured at metadata');
  });

  it('shows usage per day and per agent', async () => {
    await page.goto(`${s.url}/#/history`);
    const agent = page.locator('[data-usage-agent="claude-code"]');
    await agent.waitFor();
    expect(await agent.textContent()).toMatch(/claude-code21\.3k/);
    const day = new Date().toISOString().slice(0, 10);
    expect(await page.locator(`[data-day="${day}"]`).count()).toBe(1);
  });

  it('a resumed session and its first part each show the line summed, the parts named', async () => {
    // shop-2 ended; Claude Code resumes it (the same id and transcript): hookmap's session shop-2~2, its usage its own
    const file = join(folder, 'shop-2.jsonl');
    const more = { type: 'assistant', message: { id: 'm-shop-2-again', model: 'claude-sonnet-4-5', usage: { input_tokens: 400, output_tokens: 30 } } };
    writeFileSync(
      file,
      `${JSON.stringify({ type: 'assistant', message: { id: 'm-shop-2', model: 'claude-sonnet-4-5', usage: { input_tokens: 50, output_tokens: 20 } } })}\n${JSON.stringify(more)}\n`,
    );
    const cc = (b: object) => fire(s, 'claude-code', { session_id: 'shop-2', transcript_path: file, cwd: '/work/shop', ...b });
    await cc({ hook_event_name: 'SessionStart', source: 'resume' });
    await cc({ hook_event_name: 'UserPromptSubmit', prompt: 'again' });
    await cc({ hook_event_name: 'PreToolUse', tool_name: 'ResumedTool', tool_use_id: 't-shop-2-again', tool_input: { command: 'x' } });
    await cc({ hook_event_name: 'Stop' });
    await until('the resumed part indexed with its usage', async () => {
      const r = await fetch(`${s.url}/history/sessions?limit=200`, { headers: { authorization: 'Bearer inbox-browser-test-token' } });
      const rows = ((await r.json()) as { sessions: { session: string; line?: { input_tokens: number } }[] }).sessions;
      return rows.find((x) => x.session === 'shop-2~2')?.line?.input_tokens === 450;
    });
    await page.goto(`${s.url}/#/history`);
    // the sessions (no search), and shop-2 itself is older than the first page: the project filter brings both parts
    await page.locator('input[type="search"]').fill('');
    await page.locator('form[role="search"] button').click();
    await page.locator('select[name="project"]').selectOption('shop');
    await until('the shop sessions', async () => (await page.locator('[data-results="sessions"] [data-hist-session]').count()) === 3);
    for (const id of ['shop-2', 'shop-2~2']) {
      const line = page.locator(`[data-results="sessions"] [data-hist-session="${id}"] [data-line]`);
      await line.waitFor();
      expect(await line.getAttribute('data-line')).toBe('shop-2');
      expect(await line.getAttribute('data-line-parts')).toBe('2');
      expect(await line.getAttribute('data-line-tokens')).toBe('500');
      expect(await line.textContent()).toContain('shop-2, shop-2~2');
    }
    expect(await page.locator('[data-results="sessions"] [data-hist-session="shop-1"] [data-line]').count()).toBe(0);
    // a search finds the resumed part with its line too
    await page.locator('input[type="search"]').fill('resumedtool');
    await page.locator('form[role="search"] button').click();
    const hit = page.locator('[data-results="search"] [data-hist-session="shop-2~2"] [data-line]');
    await hit.waitFor();
    expect(await hit.getAttribute('data-line-tokens')).toBe('500');
  });
});
