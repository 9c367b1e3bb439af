// The inbox's steer box sending to an IDLE session (issue 29), in Chromium:
// the real Claude Code daemon with instruct and next_turn on, a session whose
// turn is over, and its next-turn waiter (what the background asyncRewake
// Stop handler posts). The page's instruction wakes the waiter (the text,
// exit 2); once the waiter acks, the page says it woke the session.
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { fire, launch, signedIn, skipBrowser, stack, until, type Stack } from './harness.ts';

const SESSION = 'idle-steer-1';
const input = (hook: string, extra: Record<string, unknown> = {}) => ({
  hook_event_name: hook,
  session_id: SESSION,
  transcript_path: '/tmp/t.jsonl',
  cwd: '/home/dev/proj',
  permission_mode: 'default',
  ...extra,
});

describe.skipIf(!!skipBrowser)('web inbox: steer an idle session', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;

  beforeAll(async () => {
    browser = await launch();
    s = await stack({ agents: [{ descriptor: 'claude-code', config: { instruct: true, next_turn: true } }] });
    ({ page } = await signedIn(browser, s));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('the steer box reaches a session whose turn is over: its waiter gets the text with exit 2; the page says it woke the session', async () => {
    await fire(s, 'claude-code', input('SessionStart', { source: 'startup' }));
    await fire(s, 'claude-code', input('UserPromptSubmit', { prompt: 'go' }));
    await fire(s, 'claude-code', input('Stop', { stop_hook_active: false }));
    const waiter = fetch(`${s.url}/next-turn/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hookKeyHeaders(s.home) },
      body: JSON.stringify(input('Stop', { stop_hook_active: false })),
    });
    const daemon = s.up.daemons.get('claude-code') as any;
    await until('the waiter', () => daemon.commands.nextTurn.waiting(SESSION));
    await page.goto(`${s.url}/#/s/${SESSION}`);
    const steer = page.getByLabel('Steer: an instruction the agent reads on its next turn');
    await steer.waitFor();
    await steer.fill('Now write the release notes (from the inbox)');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const r = await waiter;
    expect([r.status, r.headers.get('x-hookmap-exit'), await r.text()]).toEqual([200, '2', 'Now write the release notes (from the inbox)']);
    const status = page.locator('.controls .outcome').first();
    // taken by the waiter, not yet acknowledged: not delivered
    await expect.poll(() => status.textContent()).toBe("Instruction: Accepted: queued for the agent's next turn…");
    const ack = await fetch(`${s.url}/next-turn/claude-code/ack/${r.headers.get('x-hookmap-ack')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hookKeyHeaders(s.home) },
      body: '{}',
    });
    expect(ack.status).toBe(200);
    await expect.poll(() => status.textContent()).toBe('Instruction: Delivered: it woke the idle session into a new turn');
  }, 60_000);
});
