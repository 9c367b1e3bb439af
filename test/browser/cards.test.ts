// The web inbox in a real Chromium against `hookmap up`: Claude Code's held
// hooks (fixtures/claude-code/decisions.yaml, POSTed to /hooks/claude-code
// as Claude Code does) appear as cards, and what a person does on the card
// reaches the held hook as exactly the decision bytes the fixture pins:
// allow, deny (keyboard), guidance text, an AskUserQuestion form and an MCP
// elicitation form (each refused inline first), the countdown running out,
// two people (two named tokens) on one card, a read-only token that watches
// but cannot answer, and a phone-sized screen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { TIMED_OUT } from '../../web/src/model/outcome.ts';
import { bound, decisionCase, fire, launch, signedIn, skipBrowser, stack, TOKEN, withSession, type Stack } from './harness.ts';

const AGENT = 'claude-code';

describe.skipIf(!!skipBrowser)('web inbox: cards answered in a browser reach the held hook', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;
  const card = (p: Page, session: string) => p.locator(`main [data-card][data-session="${session}"]`).first();

  beforeAll(async () => {
    browser = await launch();
    s = await stack({ attentionTimeoutMs: 30_000 });
    ({ page } = await signedIn(browser, s));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('a PermissionRequest is a card within a second; Allow sends the exact allow bytes', async () => {
    const c = decisionCase(AGENT, 'permission allow');
    // the page notes when the card enters the DOM (same clock as this process)
    await page.evaluate(() => {
      const w = window as any;
      w.__cardAt = 0;
      new MutationObserver(() => {
        if (!w.__cardAt && document.querySelector('main [data-card][data-session="perm-allow"]')) w.__cardAt = Date.now();
      }).observe(document.body, { childList: true, subtree: true });
    });
    // as Claude Code does: the tool's PreToolUse, then its PermissionRequest
    await fire(s, AGENT, { ...withSession(c.input, 'perm-allow'), hook_event_name: 'PreToolUse', tool_use_id: 'toolu_perm' });
    const t0 = Date.now();
    const held = fire(s, AGENT, withSession(c.input, 'perm-allow'));
    const k = card(page, 'perm-allow');
    await k.waitFor({ timeout: 5_000 });
    const shownAfter = (await page.evaluate(() => (window as any).__cardAt)) - t0;
    console.log(`[browser] PermissionRequest POST -> card in the page: ${shownAfter} ms`);
    expect(shownAfter).toBeLessThan(bound(1_000, 2_500));
    await expect.poll(() => k.locator('.card-prompt').textContent()).toBe('Permission requested: Bash — touch notes.txt (create the notes file)');
    expect(await k.locator('[role="timer"]').textContent()).toMatch(/left before the agent's own dialog takes over/);
    // what waits is counted in the page title and the header badge
    expect(await page.title()).toBe('(1) hookmap inbox');
    expect(await page.locator('header [data-badge]').textContent()).toBe('1');
    await k.locator('[data-option="allow"]').click();
    const r = await held;
    expect(r.status).toBe(200);
    expect(r.text).toBe(c.reply);
    // the card says what the stream confirmed, and stops taking answers
    await expect.poll(() => k.locator('[data-outcome]').textContent()).toMatch(/^Answered by .+: Allow\. Resolved\.$/);
    expect(await k.locator('[data-option]').count()).toBe(0);
  });

  it('the d key denies the card in front: the exact deny bytes', async () => {
    const c = decisionCase(AGENT, 'permission deny');
    const held = fire(s, AGENT, withSession(c.input, 'perm-deny'));
    const k = card(page, 'perm-deny');
    await k.waitFor();
    await page.locator('body').press('d');
    expect((await held).text).toBe(c.reply);
    await expect.poll(() => k.locator('[data-outcome]').textContent()).toMatch(/Answered by .+: Deny\. Resolved\./);
  });

  it('t, guidance text, Ctrl+Enter: a deny whose message is the text, byte for byte', async () => {
    const c = decisionCase(AGENT, 'permission deny with guidance text (reaches the model as the tool result)');
    const held = fire(s, AGENT, withSession(c.input, 'perm-text'));
    const k = card(page, 'perm-text');
    await k.waitFor();
    await page.locator('body').press('t');
    const box = k.locator('textarea[data-key="t"]');
    await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type(c.answer.text);
    await page.keyboard.press('Control+Enter');
    expect((await held).text).toBe(c.reply);
    await expect.poll(() => k.locator('[data-outcome]').textContent()).toContain(`Deny “${c.answer.text}”`);
  });

  it('an AskUserQuestion form: sending it empty shows each required question inline, then the answers go out as values', async () => {
    const c = decisionCase(AGENT, 'question form answered with values (choice ids, multi, Other text)');
    const held = fire(s, AGENT, withSession(c.input, 'form-ask'));
    const k = card(page, 'form-ask');
    await k.waitFor();
    await k.getByRole('button', { name: 'Send answer' }).click();
    await expect.poll(() => k.locator('.field-error').allTextContents()).toEqual(['Choose one.', 'Choose at least one.']);
    expect(await k.locator('.form-summary').textContent()).toBe('2 answers need attention.');
    expect(await k.locator('[aria-invalid="true"]').count()).toBe(2);
    expect(await Promise.race([held.then(() => 'answered'), new Promise((r) => setTimeout(() => r('still held'), 300))])).toBe('still held');
    // c.answer.values: {"1": "2", "2": ["1", "2"]} -> SQLite; us-east + eu-west
    await k.getByRole('radio', { name: 'SQLite' }).check();
    await k.getByRole('checkbox', { name: 'us-east' }).check();
    await k.getByRole('checkbox', { name: 'eu-west' }).check();
    expect(await k.locator('.field-error').count()).toBe(0);
    await k.getByRole('button', { name: 'Send answer' }).click();
    expect((await held).text).toBe(c.reply);
    await expect.poll(() => k.locator('[data-outcome]').textContent()).toMatch(/Answered by .+: .*SQLite.*us-east, eu-west.*Resolved\./);
  });

  it('an MCP elicitation form: a bad number and missing answers refused inline, then the exact accept bytes', async () => {
    const c = decisionCase(AGENT, 'elicitation accepted with values (content = values verbatim)');
    const held = fire(s, AGENT, withSession(c.input, 'form-elicit'), c.hook);
    const k = card(page, 'form-elicit');
    await k.waitFor();
    await k.getByLabel('Replica count').fill('three');
    await k.getByRole('button', { name: 'Send answer' }).click();
    const errs = async () =>
      Object.fromEntries(
        await k
          .locator('[data-field]')
          .evaluateAll((els) => els.map((e) => [e.getAttribute('data-field'), e.querySelector('.field-error')?.textContent ?? ''])),
      );
    await expect.poll(errs).toEqual({ environment: 'Choose one.', replicas: 'Enter a number.', reason: '', confirm: 'Answer yes or no.' });
    // c.answer.values: { environment: staging, replicas: 3, reason: "hotfix for the login bug", confirm: true }
    await k.getByRole('radio', { name: 'Staging' }).check();
    await k.getByLabel('Replica count').fill('3');
    await k.getByLabel('Why now').fill(c.answer.values.reason);
    await k.locator('[data-field="confirm"]').getByRole('radio', { name: 'Yes' }).check();
    await k.getByRole('button', { name: 'Send answer' }).click();
    expect((await held).text).toBe(c.reply);
  });

  it('two people on one card: one answer is applied, both see who answered, the other is told theirs came second', async () => {
    const allow = decisionCase(AGENT, 'permission allow');
    const deny = decisionCase(AGENT, 'permission deny');
    // two people, each with a named token of their own (`hookmap tokens add`): the answer names who gave it
    const alex = await signedIn(browser, s, {}, addToken(s.home, 'alex', 'control').token);
    const other = await signedIn(browser, s, {}, addToken(s.home, 'sam', 'control').token);
    const page = alex.page;
    try {
      const held = fire(s, AGENT, withSession(allow.input, 'two-people'));
      const a = card(page, 'two-people');
      const b = card(other.page, 'two-people');
      await a.locator('[data-option="allow"]').waitFor();
      await b.locator('[data-option="deny"]').waitFor();
      await page.waitForTimeout(200); // both pages idle, so both presses land before either sees an answer
      // both press at the same moment; a page that already shows the other's answer has no button left to press
      const press = (p: Page, option: string) =>
        p.evaluate(
          ([sel, opt]) => {
            const btn = document.querySelector(`main [data-card][data-session="${sel}"] [data-option="${opt}"]`) as HTMLButtonElement | null;
            btn?.click();
            return !!btn;
          },
          ['two-people', option],
        );
      const [pressedA, pressedB] = await Promise.all([press(page, 'allow'), press(other.page, 'deny')]);
      expect(pressedA || pressedB).toBe(true);
      const reply = (await held).text;
      expect([allow.reply, deny.reply]).toContain(reply);
      const [winner, loser, loserPressed, who] = reply === allow.reply ? [a, b, pressedB, 'alex'] : [b, a, pressedA, 'sam'];
      const applied = reply === allow.reply ? 'Allow' : 'Deny';
      await expect.poll(() => winner.locator('[data-outcome]').textContent()).toBe(`Answered by ${who}: ${applied}. Resolved.`);
      const second = loserPressed ? ' Your answer came second and was not applied.' : '';
      await expect.poll(() => loser.locator('[data-outcome]').textContent()).toBe(`Answered by ${who}: ${applied}. Resolved.${second}`);
      console.log(`[browser] two people: both pressed: ${pressedA && pressedB}; applied: ${who}'s ${applied}`);
    } finally {
      await other.context.close();
      await alex.context.close();
    }
  });

  it('a read-only token watches the card but cannot answer: no buttons, no keys, told why; the owner answers it', async () => {
    const c = decisionCase(AGENT, 'permission allow');
    const watcher = await signedIn(browser, s, {}, addToken(s.home, 'watcher', 'read').token);
    try {
      const p = watcher.page;
      expect(await p.locator('header .who').textContent()).toContain('watcher (read-only)');
      const held = fire(s, AGENT, withSession(c.input, 'read-only'));
      const k = card(p, 'read-only');
      await k.waitFor();
      await expect.poll(() => k.locator('.card-prompt').textContent()).toBe('Permission requested: Bash — touch notes.txt (create the notes file)');
      expect(await k.locator('[role="timer"]').count()).toBe(1);
      expect(await k.locator('.note').textContent()).toBe('Signed in as watcher with read access: you can watch, not answer.');
      expect(await k.locator('[data-option], textarea, button').count()).toBe(0);
      for (const key of ['a', 'd', 't']) await p.locator('body').press(key);
      expect(await Promise.race([held.then(() => 'answered'), new Promise((r) => setTimeout(() => r('still held'), 500))])).toBe('still held');
      // the owner's page answers; the watcher sees the outcome the stream confirms
      await card(page, 'read-only').locator('[data-option="allow"]').click();
      expect((await held).text).toBe(c.reply);
      await expect.poll(() => k.locator('[data-outcome]').textContent()).toBe('Answered by owner: Allow. Resolved.');
    } finally {
      await watcher.context.close();
    }
  });

  it('opt-in notifications: a request that starts waiting while the page is not in front raises one', async () => {
    const c = decisionCase(AGENT, 'permission allow');
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      // a recording Notification (headless Chromium shows none), the page out of focus
      await ctx.addInitScript(() => {
        const w = window as any;
        w.__notes = [];
        w.Notification = class {
          static permission = 'granted';
          static requestPermission = async () => 'granted';
          onclick: unknown = null;
          constructor(title: string, opts: any) {
            w.__notes.push({ title, body: opts?.body, tag: opts?.tag });
          }
          close() {}
        };
        document.hasFocus = () => false;
      });
      const p = await ctx.newPage();
      await p.goto(`${s.url}/`);
      await p.locator('#token').fill(TOKEN);
      await p.locator('button[type=submit]').click();
      await p.locator('[data-conn="live"]').waitFor();
      await p.getByRole('button', { name: 'Notify me' }).click();
      await p.getByRole('button', { name: 'Notifications on' }).waitFor();
      await p.waitForTimeout(3_100); // what the first replay brings back is never announced
      const held = fire(s, AGENT, withSession(c.input, 'notify'));
      const k = card(p, 'notify');
      await k.waitFor();
      await expect
        .poll(() => p.evaluate(() => (window as any).__notes))
        .toEqual([
          {
            title: 'claude-code is waiting for you',
            body: 'Permission requested: Bash — touch notes.txt (create the notes file)',
            tag: await k.getAttribute('data-card'),
          },
        ]);
      await k.locator('[data-option="allow"]').click();
      expect((await held).text).toBe(c.reply);
    } finally {
      await ctx.close();
    }
  });

  it('a phone-sized screen: one column, large targets, no sideways scrolling; a tap answers', async () => {
    const c = decisionCase(AGENT, 'permission allow');
    const phone = await signedIn(browser, s, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    try {
      const p = phone.page;
      const held = fire(s, AGENT, withSession(c.input, 'phone'));
      const k = card(p, 'phone');
      await k.waitFor();
      expect(await p.locator('aside.side').count()).toBe(0);
      expect(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      for (const sel of ['[data-option="allow"]', '[data-option="deny"]', 'textarea[data-key="t"]']) {
        const box = await k.locator(sel).boundingBox();
        expect(box!.height, sel).toBeGreaterThanOrEqual(44);
      }
      await k.locator('[data-option="allow"]').tap();
      expect((await held).text).toBe(c.reply);
      // the sessions list follows the inbox; a tap opens the session, a link leads back
      await p.locator('.session-row[data-session="phone"]').tap();
      await p.locator('.timeline [data-type="attention.requested"]').waitFor();
      expect(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await p.getByRole('link', { name: '← Inbox' }).tap();
      await p.locator('#inbox-h').waitFor();
    } finally {
      await phone.context.close();
    }
  });
});

describe.skipIf(!!skipBrowser)('web inbox: the countdown', () => {
  let browser: Browser;
  let s: Stack;

  beforeAll(async () => {
    browser = await launch();
    s = await stack({ attentionTimeoutMs: 2_500 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it("runs down, then the card says the agent's own dialog decides (from attention.timeout) and the hook gets the neutral bytes", async () => {
    const c = decisionCase(AGENT, "permission timeout fails open to Claude Code's own dialog");
    const { page } = await signedIn(browser, s);
    const held = fire(s, AGENT, withSession(c.input, 'countdown'));
    const k = page.locator('main [data-card][data-session="countdown"]').first();
    await k.waitFor();
    const first = await k.locator('.countdown-text').textContent();
    // a 2.5 s window, said in whole seconds; twice on a loaded machine the first text read 4 s (cause not found yet: noted on issue 45)
    expect(first).toMatch(/^[1-4] s left before the agent's own dialog takes over$/);
    expect((await held).text).toBe(c.reply);
    await expect.poll(() => k.locator('[data-outcome]').textContent(), { timeout: 5_000 }).toBe(TIMED_OUT);
    expect(TIMED_OUT).toBe("Timed out, the agent's own dialog decides");
    expect(await k.locator('[role="timer"]').count()).toBe(0);
    expect(await k.locator('[data-option]').count()).toBe(0);
  });
});
