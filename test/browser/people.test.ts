// People in the web inbox (issue 43), a real Chromium against `hookmap up`:
// a request routed to alice is no card in bob's inbox (his sign-in reads a
// stream without it) and is one in alice's; a force push needs two people:
// alice's Allow leaves the card open saying "1 of 2, allowed by alice", in
// bob's inbox too, and bob's Allow settles it with the allow bytes.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { People } from '../../engine/runtime/auth/people.ts';
import { FLOOR_ROWS } from '../../engine/runtime/policy/shell/floor.ts';
import { fire, launch, signedIn, skipBrowser, stack, type Stack } from './harness.ts';

describe.skipIf(!!skipBrowser)('web inbox: people', () => {
  let browser: Browser;
  let s: Stack;
  let alice: Page;
  let bob: Page;
  let base: string;
  const tokens: Record<string, string> = {};
  const shop = () => join(base, 'shopapi');
  const cc = (session: string, command: string) =>
    fire(s, 'claude-code', {
      hook_event_name: 'PermissionRequest',
      session_id: session,
      transcript_path: '/tmp/t.jsonl',
      cwd: shop(),
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command, description: 'run it' },
      permission_suggestions: [],
    });
  const card = (page: Page, session: string) => page.locator(`main [data-card][data-session="${session}"]`);

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'hookmap-people-web-'));
    mkdirSync(shop());
    browser = await launch();
    s = await stack({
      attentionTimeoutMs: 20_000,
      people: new People(
        [
          { name: 'alice', tokens: ['alice'], approve: [{ project: 'shopapi' }, { floor: 'any' }] },
          { name: 'bob', tokens: ['bob'], approve: [{ floor: 'force-push' }] },
        ],
        { floor: ['force-push'] },
        {},
        FLOOR_ROWS,
      ),
      before: (home) => {
        for (const n of ['alice', 'bob']) tokens[n] = addToken(home, n, 'control').token;
      },
    });
    alice = (await signedIn(browser, s, {}, tokens.alice)).page;
    bob = (await signedIn(browser, s, {}, tokens.bob)).page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it("a request routed to alice is a card in her inbox and none in bob's", async () => {
    for (const p of [alice, bob]) await p.goto(`${s.url}/#/`);
    const held = cc('pw-1', 'make deploy');
    await card(alice, 'pw-1').waitFor({ timeout: 5_000 });
    // bob's inbox is live (it shows the next request routed to him) and never showed this one
    const held2 = cc('pw-2', 'git push --force origin main');
    await card(bob, 'pw-2').waitFor({ timeout: 5_000 });
    expect(await card(bob, 'pw-1').count()).toBe(0);
    await card(alice, 'pw-1').locator('[data-option="allow"]').click();
    expect((await held).text).toMatch(/"behavior":"allow"/);
    // the force push: alice's allow is 1 of 2, shown on both inboxes; bob's settles it
    const a = card(alice, 'pw-2');
    await a.locator('[data-option="allow"]').click();
    await expect.poll(() => a.locator('.partial-note').textContent()).toBe('1 of 2, allowed by alice: a different person must allow it too.');
    await expect.poll(() => card(bob, 'pw-2').locator('.partial-note').textContent()).toBe('1 of 2, allowed by alice: a different person must allow it too.');
    await card(bob, 'pw-2').locator('[data-option="allow"]').click();
    expect((await held2).text).toMatch(/"behavior":"allow"/);
    await expect.poll(() => card(bob, 'pw-2').locator('[data-outcome]').textContent()).toMatch(/^Answered by bob: Allow\. Resolved\.$/);
  });
});
