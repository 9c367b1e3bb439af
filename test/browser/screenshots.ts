// Regenerates the web inbox screenshots in docs/ (sessions list, a session's
// timeline, a card; desktop and phone) from a real `hookmap up` fed with
// Claude Code and Codex hook firings as the agents make them (one permission
// answered from the page, with guidance text, as a person does):
//
//   npx tsx test/browser/screenshots.ts
//
// Not a test (pixels are not asserted); run it after a visible UI change.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { decisionCase, fire, launch, signedIn, stack, TOKEN, until, type Stack } from './harness.ts';
import { startPushService } from '../helpers/push-service.ts';

const OUT = join(ROOT, 'docs');
// a real folder (a project with .git) so "this project" can be offered and the rule saved
const SHOP = join(mkdtempSync(join(tmpdir(), 'hookmap-shots-')), 'shop-api');
mkdirSync(join(SHOP, '.git'), { recursive: true });

async function scenario(s: Stack, page: Page): Promise<Promise<unknown>[]> {
  const cc = (session: string, b: object) => fire(s, 'claude-code', { session_id: session, transcript_path: '/tmp/t.jsonl', cwd: SHOP, ...b });
  const cx = (session: string, b: object) => fire(s, 'codex', { session_id: session, turn_id: 't1', cwd: '/home/dev/billing', model: 'gpt-5', ...b });
  const held: Promise<unknown>[] = [];
  // an older Codex session, finished
  await cx('cx-7f3a', { hook_event_name: 'SessionStart', source: 'startup' });
  await cx('cx-7f3a', { hook_event_name: 'UserPromptSubmit', prompt: 'bump the invoice schema' });
  for (const [i, cmd] of ['rg invoice_total', 'cargo test'].entries()) {
    await cx('cx-7f3a', { hook_event_name: 'PreToolUse', tool_name: 'shell', tool_use_id: `x${i}`, tool_input: { command: cmd } });
    await cx('cx-7f3a', { hook_event_name: 'PostToolUse', tool_name: 'shell', tool_use_id: `x${i}`, tool_input: { command: cmd }, tool_response: 'ok' });
  }
  await cx('cx-7f3a', { hook_event_name: 'Stop' });
  // a Claude Code session: a first run whose Bash call was denied with guidance (answered from the page),
  // then a run with tool calls and a permission prompt waiting
  await cc('cc-2b91', { hook_event_name: 'SessionStart', source: 'startup', model: 'claude-sonnet' });
  await cc('cc-2b91', { hook_event_name: 'UserPromptSubmit', prompt: 'clean the build first' });
  const rm = { tool_name: 'Bash', tool_input: { command: 'rm -rf dist node_modules', description: 'remove build output' } };
  await cc('cc-2b91', { hook_event_name: 'PreToolUse', tool_use_id: 't0', ...rm });
  const denied = cc('cc-2b91', { hook_event_name: 'PermissionRequest', ...rm });
  const card = page.locator('main [data-card][data-session="cc-2b91"]');
  await card.locator('[data-key="t"]').fill('keep node_modules; run npm run clean instead');
  await card.locator('[data-send="text"]').click();
  await denied;
  await cc('cc-2b91', { hook_event_name: 'PostToolBatch', tool_calls: [{ tool_name: 'Bash' }] });
  await cc('cc-2b91', { hook_event_name: 'Stop', stop_hook_active: false });
  await cc('cc-2b91', { hook_event_name: 'UserPromptSubmit', prompt: 'add a notes endpoint' });
  for (const [i, tool] of ['Read', 'Grep', 'Edit'].entries()) {
    await cc('cc-2b91', { hook_event_name: 'PreToolUse', tool_name: tool, tool_use_id: `t${i}`, tool_input: { file_path: 'src/routes.ts' } });
    await cc('cc-2b91', {
      hook_event_name: 'PostToolUse',
      tool_name: tool,
      tool_use_id: `t${i}`,
      tool_input: { file_path: 'src/routes.ts' },
      tool_response: {},
      duration_ms: 40 + i * 30,
    });
  }
  await cc('cc-2b91', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 't9', tool_input: { command: 'npm run migrate -- --env staging' } });
  held.push(
    cc('cc-2b91', {
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'npm run migrate -- --env staging', description: 'apply the notes migration' },
    }),
  );
  // a second Claude Code session asking a question (AskUserQuestion as one form)
  const ask = decisionCase('claude-code', 'question form answered with values (choice ids, multi, Other text)');
  await cc('cc-5c07', { hook_event_name: 'SessionStart', source: 'startup', cwd: '/home/dev/infra' });
  await cc('cc-5c07', { hook_event_name: 'UserPromptSubmit', prompt: 'set up the new service', cwd: '/home/dev/infra' });
  held.push(fire(s, 'claude-code', { ...ask.input, session_id: 'cc-5c07', cwd: '/home/dev/infra' }));
  for (const h of held) h.catch(() => {}); // still held when the stack stops: that is fine here
  return held;
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, `${name}.png`) });
  console.log(`docs/${name}.png`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const browser: Browser = await launch();
  const s = await stack({ agents: [{ descriptor: 'claude-code' }, { descriptor: 'codex' }], attentionTimeoutMs: 600_000 });
  try {
    const desktop = await signedIn(browser, s, { viewport: { width: 1280, height: 800 } });
    const held = await scenario(s, desktop.page);
    const phone = await signedIn(browser, s, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const phoneDark = await signedIn(browser, s, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
      colorScheme: 'dark',
    });
    for (const p of [desktop.page, phone.page, phoneDark.page]) await until('the cards', async () => (await p.locator('[data-waiting="2"]').count()) === 1);
    await shoot(desktop.page, 'inbox-desktop');
    await desktop.page.goto(`${s.url}/#/s/cc-2b91`);
    await desktop.page.locator('.timeline [data-type="attention.requested"]').last().waitFor();
    await desktop.page.locator('.timeline').scrollIntoViewIfNeeded();
    await shoot(desktop.page, 'inbox-timeline-desktop');
    await shoot(phone.page, 'inbox-card-phone');
    await phone.page.locator('#sessions-h').scrollIntoViewIfNeeded();
    await shoot(phone.page, 'inbox-sessions-phone');
    await phone.page.goto(`${s.url}/#/s/cc-2b91`);
    await phone.page.locator('.timeline [data-type="attention.requested"]').last().waitFor();
    await phone.page.locator('.timeline').scrollIntoViewIfNeeded();
    await shoot(phone.page, 'inbox-timeline-phone');
    await phoneDark.page.locator('main [data-card] form').first().scrollIntoViewIfNeeded();
    await shoot(phoneDark.page, 'inbox-form-phone-dark');
    // "Allow always" opened on the waiting Bash card (issue 22), then the Rules page once one is saved
    await desktop.page.goto(`${s.url}/#/`);
    const migrate = desktop.page.locator('main [data-card][data-session="cc-2b91"][data-answerable]');
    await migrate.locator('[data-always]').click();
    await migrate.locator('[data-always-preview]').waitFor();
    await migrate.locator('[data-always-prefix]').fill('npm run migrate');
    await desktop.page.waitForTimeout(300);
    await migrate.screenshot({ path: join(OUT, 'inbox-allow-always.png') });
    console.log('docs/inbox-allow-always.png');
    await migrate.locator('[data-always-save]').click();
    await desktop.page.goto(`${s.url}/#/rules`);
    await desktop.page.locator('[data-rule]').first().waitFor();
    await shoot(desktop.page, 'inbox-rules-desktop');
    // Web Push (issue 23): the Devices page on a phone, with the install hint, one device registered
    // (a subscription of the tests' loopback push service: a real browser's goes to its vendor's service)
    const ps = await startPushService();
    await fetch(`${s.url}/push/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subscription: ps.device('pixel-8').subscription, name: 'pixel-8' }),
    });
    await phone.page.goto(`${s.url}/#/devices`);
    await phone.page.locator('[data-device="pixel-8"]').waitFor();
    await shoot(phone.page, 'inbox-devices-phone');
    await ps.close();
    void held;
  } finally {
    await browser.close();
    await s.close();
  }
}

await main();
