// The budgets beside the usage in a real Chromium against `hookmap up`
// (web/src/ui/Budgets.tsx over GET /budgets): a project's day budget in
// tokens crossed by a session whose usage comes from Claude Code's
// transcript (read after its Stop, as with a real agent), a session budget in
// USD under its cap; each shows its spend, share, state and what happens next,
// and the view follows new usage. A read-only token's sign-in sees them too.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { tempDir } from '../runtime/daemon/helpers.ts';
import { budgetsOf } from '../../engine/runtime/usage/budget-schema.ts';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { fire, launch, signedIn, skipBrowser, stack, until, type Stack } from './harness.ts';

describe.skipIf(!!skipBrowser)('web inbox: budgets beside the usage', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;
  const user = tempDir('hookmap-budgets-user-');
  const folder = join(user.dir, '.claude', 'projects', 'x');
  let readToken = '';

  const turn = async (id: string, cwd: string, n: number, tokens: { in: number; out: number }) => {
    const file = join(folder, `${id}.jsonl`);
    const line = (k: number) =>
      JSON.stringify({
        type: 'assistant',
        message: { id: `m-${id}-${k}`, model: 'claude-sonnet-4-5', usage: { input_tokens: tokens.in, output_tokens: tokens.out } },
      });
    writeFileSync(file, `${Array.from({ length: n }, (_, k) => line(k)).join('\n')}\n`);
    const cc = (b: object) => fire(s, 'claude-code', { session_id: id, transcript_path: file, cwd, ...b });
    await cc({ hook_event_name: 'SessionStart', source: 'startup' });
    await cc({ hook_event_name: 'UserPromptSubmit', prompt: 'p' });
    await cc({ hook_event_name: 'Stop' });
  };
  const view = async () =>
    (await (await fetch(`${s.url}/budgets`, { headers: { authorization: 'Bearer inbox-browser-test-token' } })).json()) as {
      budgets: { id: string; spends: { name: string; spent: number }[] }[];
    };

  beforeAll(async () => {
    mkdirSync(folder, { recursive: true });
    browser = await launch();
    s = await stack({
      agents: [{ descriptor: 'claude-code', config: { config_dir: join(user.dir, '.claude') } }],
      budgets: budgetsOf([
        { id: 'shop-day', scope: 'project', window: 'day', tokens: 1000, at_cap: 'block' },
        { id: 'per-session', scope: 'session', usd: 5, at_cap: 'notify' },
      ]),
      before: (home) => {
        readToken = addToken(home, 'viewer', ['read']).token;
      },
    });
    await turn('shop-1', '/work/shop-api', 1, { in: 1200, out: 300 });
    await until('the usage counted', async () => (await view()).budgets[0].spends[0]?.spent === 1500);
    page = (await signedIn(browser, s)).page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    user.done();
  });

  it('shows each budget with its spend, share, state and what happens next', async () => {
    await page.goto(`${s.url}/#/history`);
    const shop = page.locator('[data-budget="shop-day"] [data-spend="shop-api"]');
    await shop.waitFor();
    expect(await shop.getAttribute('data-state')).toBe('reached');
    expect(await shop.locator('[data-spent]').textContent()).toBe('1.5k tokens of 1.0k tokens (150%)');
    expect(await shop.textContent()).toContain('the next tool call is refused');
    expect(await page.locator('[data-budget="shop-day"] .budget-head').textContent()).toMatch(/per project, per day · cap 1.0k tokens · at the cap: block/);
    const session = page.locator('[data-budget="per-session"] [data-spend="shop-1"]');
    expect(await session.getAttribute('data-state')).toBe('under');
    expect(await session.locator('[data-spent]').textContent()).toMatch(/^\$0\.\d{4} of \$5\.00 \(0%\)$/);
  });

  it('follows new usage, and a read-only sign-in sees the budgets too', async () => {
    await turn('docs-1', '/work/docs', 1, { in: 100, out: 50 });
    await until('the second project counted', async () => (await view()).budgets[0].spends.some((x) => x.name === 'docs'));
    const viewer = (await signedIn(browser, s, {}, readToken)).page;
    await viewer.goto(`${s.url}/#/history`);
    const docs = viewer.locator('[data-budget="shop-day"] [data-spend="docs"]');
    await docs.waitFor();
    expect(await docs.getAttribute('data-state')).toBe('under');
    expect(await docs.locator('[data-spent]').textContent()).toBe('150 tokens of 1.0k tokens (15%)');
    // the most spent first
    expect(await viewer.locator('[data-budget="shop-day"] [data-spend]').evaluateAll((els) => els.map((e) => e.getAttribute('data-spend')))).toEqual([
      'shop-api',
      'docs',
    ]);
  });
});
