// A session's timeline across a relay restart (AEP-0003 §7 resume): the page
// follows a session, `hookmap up` stops and starts again on the same port
// (its buffer gone, the daemon on a new epoch), events are fired while the
// page is still reconnecting and after; the timeline ends up with every tool
// call of the session's log exactly once, in (epoch, seq) order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { readLogs } from '../runtime/daemon/helpers.ts';
import { fire, launch, signedIn, skipBrowser, stack, until, type Stack } from './harness.ts';

const AGENT = 'claude-code';
const SESSION = 'resume-1';
const base = { session_id: SESSION, transcript_path: '/tmp/t.jsonl', cwd: '/work/app' };
const pre = (call: string) => ({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: `echo ${call}` }, tool_use_id: call });
const post = (call: string) => ({
  ...base,
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: { command: `echo ${call}` },
  tool_use_id: call,
  tool_response: { stdout: call },
});

describe.skipIf(!!skipBrowser)('web inbox: a relay restart during a session', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;

  beforeAll(async () => {
    browser = await launch();
    s = await stack();
    ({ page } = await signedIn(browser, s));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const toolRows = () => page.locator('.timeline li.row-tool').evaluateAll((els) => els.map((e) => e.getAttribute('data-seq')));
  const call = async (c: string) => {
    expect((await fire(s, AGENT, pre(c))).status).toBe(200);
    expect((await fire(s, AGENT, post(c))).status).toBe(200);
  };

  it('leaves the timeline with every event once, in order: no gap, no duplicate', async () => {
    await fire(s, AGENT, { ...base, hook_event_name: 'SessionStart', source: 'startup' });
    await fire(s, AGENT, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
    await page.goto(`${s.url}/#/s/${SESSION}`);
    await page.locator('.timeline [data-type="session.started"]').waitFor();
    for (const c of ['c1', 'c2', 'c3', 'c4']) await call(c);
    await until('4 tool rows', async () => (await toolRows()).length === 4);

    await s.up.close();
    await page.locator('[data-conn="connecting"]').waitFor({ timeout: 10_000 });
    // the page stays off the network until these are in the new relay's buffer: only the resume can bring them
    await page.context().setOffline(true);
    await s.restart();
    for (const c of ['c5', 'c6', 'c7']) await call(c);
    await page.waitForTimeout(300);
    expect(await page.locator('[data-conn]').getAttribute('data-conn')).toBe('connecting');
    expect(await toolRows()).toHaveLength(4);
    await page.context().setOffline(false);
    await page.locator('[data-conn="live"]').waitFor({ timeout: 15_000 });
    for (const c of ['c8', 'c9', 'c10']) await call(c);

    const log = readLogs(`${s.home}/${AGENT}`).filter((e) => e.session === SESSION);
    const want = log.filter((e) => e.type === 'tool.requested').map((e) => `${e.epoch ?? 0}:${e.seq}`);
    expect(want).toHaveLength(10);
    expect(new Set(log.map((e) => e.epoch)).size).toBe(2); // the restart began a new epoch
    await until('10 tool rows', async () => (await toolRows()).length >= 10);
    expect(await toolRows()).toEqual(want);
    // every row of the timeline once, in (epoch, seq) order
    const all = await page.locator('.timeline li.row').evaluateAll((els) => els.map((e) => e.getAttribute('data-seq')!));
    expect(new Set(all).size).toBe(all.length);
    const key = (p: string) => p.split(':').map(Number);
    const sorted = [...all].sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1]);
    expect(all).toEqual(sorted);
    // and each tool call ended (its completion paired in, none missing)
    expect(await page.locator('.timeline li.row-tool .pill-tool-done').count()).toBe(10);
  });
});
