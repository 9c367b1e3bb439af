// "Allow always" from the web inbox (issue 22), in a real Chromium against
// `hookmap up`, fed Claude Code's PermissionRequest as Claude Code sends it:
// the card proposes a prefix from the parsed command and shows what will be
// saved before it is; saving allows this request and writes the rule; the
// next matching request in the same project is answered by the rule (no
// card, "Allowed by rule" in its timeline with a link to the rule), a command
// built to slip past it and a request in another folder still raise a card;
// the Rules page lists it (who, from where, how often) and revoking it there
// makes the next request ask again. A card the floor keeps says so. A
// read-only sign-in sees the rules but has no revoke.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { fire, launch, signedIn, skipBrowser, stack, until, type Stack } from './harness.ts';

describe.skipIf(!!skipBrowser)('web inbox: Allow always and the rules page', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;
  let project: string;
  let other: string;
  const cc = (session: string, command: string, cwd = project) =>
    fire(s, 'claude-code', {
      hook_event_name: 'PermissionRequest',
      session_id: session,
      transcript_path: '/tmp/t.jsonl',
      cwd,
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command, description: 'run it' },
      permission_suggestions: [],
    });
  const start = (session: string, cwd = project) =>
    fire(s, 'claude-code', { hook_event_name: 'SessionStart', session_id: session, transcript_path: '/tmp/t.jsonl', cwd, source: 'startup' });
  const card = (session: string) => page.locator(`main [data-card][data-session="${session}"]`);

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'hookmap-rules-shop-'));
    mkdirSync(join(project, '.git'));
    other = mkdtempSync(join(tmpdir(), 'hookmap-rules-other-'));
    browser = await launch();
    s = await stack({ attentionTimeoutMs: 4_000 });
    page = (await signedIn(browser, s)).page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    rmSync(project, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  });

  it('saves "commands starting with npm test, this project" from the card, shown before it is saved', async () => {
    await start('s1');
    await page.goto(`${s.url}/#/`);
    const held = cc('s1', 'npm test -- --watch');
    const c = card('s1');
    await c.locator('[data-always]').click();
    await c.locator('[data-always-prefix]').waitFor();
    expect(await c.locator('[data-always-prefix]').inputValue()).toBe('npm test');
    const preview = c.locator('[data-always-preview]');
    expect(await preview.textContent()).toContain(`Allow Bash commands starting with \`npm test\` from claude-code in ${project}`);
    await c.locator('input[value="session"]').check();
    expect(await preview.textContent()).toContain('in this session');
    await c.locator('input[value="project"]').check();
    await c.locator('[data-always-save]').click();
    expect(JSON.parse((await held).text).hookSpecificOutput.decision).toEqual({ behavior: 'allow' });
    const file = readFileSync(join(s.home, 'rules.yaml'), 'utf8');
    expect(file).toContain('prefix: npm test');
    expect(file).toContain(`project: ${project}`);
    expect(file).toMatch(/via: inbox/);
  });

  it('the rule answers the next session in the project; a slipped command and another folder raise a card', async () => {
    await start('s2');
    const auto = await cc('s2', 'npm test -- --runInBand');
    expect(JSON.parse(auto.text).hookSpecificOutput.decision.behavior).toBe('allow');
    await page.goto(`${s.url}/#/s/s2`);
    const row = page.locator('.timeline [data-type="attention.requested"]').first();
    await until('the rule in the timeline', async () => /Allowed by rule allow-npm-test/.test((await row.textContent()) ?? ''));
    const link = row.locator('[data-rule-link]');
    const ruleId = (await link.getAttribute('data-rule-link'))!;
    const slipped = cc('s2', 'npm test && touch pwned');
    await page.goto(`${s.url}/#/`);
    await card('s2').waitFor();
    const elsewhere = cc('s3', 'npm test', other);
    await card('s3').waitFor();
    await card('s2').locator('[data-option="deny"]').click();
    await card('s3').locator('[data-option="deny"]').click();
    expect(JSON.parse((await slipped).text).hookSpecificOutput.decision.behavior).toBe('deny');
    await elsewhere;
    // the link leads to the rule on the Rules page
    await page.goto(`${s.url}/#/rules/${ruleId}`);
    const r = page.locator(`[data-rule="${ruleId}"]`);
    await r.waitFor();
    expect(await r.textContent()).toMatch(/added by inbox-test|added by owner/);
    expect(await r.textContent()).toMatch(/answered 1 time/);
  });

  it('revoking it on the Rules page makes the next npm test ask again', async () => {
    await page.goto(`${s.url}/#/rules`);
    const revoke = page.locator('[data-revoke^="allow-npm-test"]');
    await revoke.click();
    await until('the rule gone', async () => (await page.locator('[data-rule^="allow-npm-test"]').count()) === 0);
    const again = cc('s2', 'npm test');
    await page.goto(`${s.url}/#/`);
    await card('s2').locator('[data-option="allow"]').click();
    expect(JSON.parse((await again).text).hookSpecificOutput.decision.behavior).toBe('allow');
    expect(readFileSync(join(s.home, 'rules-audit.jsonl'), 'utf8')).toMatch(/"action":"revoked".*"via":"inbox"/);
  });

  it('a card the floor keeps says so; a read-only sign-in has no revoke and no Allow always', async () => {
    // a tool-wide rule for Bash in the project, then a command on the floor
    await start('s4');
    const first = cc('s4', 'make build');
    const c = card('s4');
    await page.goto(`${s.url}/#/`);
    await c.locator('[data-always]').click();
    await c.locator('input[value="tool"]').check();
    await c.locator('[data-always-save]').click();
    await first;
    const floored = cc('s4', 'sudo make install');
    await c.locator('[data-floor]').waitFor();
    expect(await c.locator('[data-floor]').textContent()).toMatch(/would allow this; the floor keeps it for you \(privilege\)/);
    await c.locator('[data-option="deny"]').click();
    await floored;
    const watcher = addToken(s.home, 'watcher', 'read').token;
    const ro = (await signedIn(browser, s, {}, watcher)).page;
    await ro.goto(`${s.url}/#/rules`);
    await ro.locator('[data-rule]').first().waitFor();
    expect(await ro.locator('[data-revoke]').count()).toBe(0);
    const held = cc('s4', 'sudo ls');
    await ro.goto(`${s.url}/#/`);
    await ro.locator('main [data-card][data-session="s4"]').waitFor();
    expect(await ro.locator('[data-always]').count()).toBe(0);
    await held;
  });
});
