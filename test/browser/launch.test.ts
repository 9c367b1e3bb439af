// Starting and continuing a session from the inbox (issue 42) in a real
// Chromium on a phone's viewport (390x844) against `hookmap up`: New session
// lists what up offers (GET /launch: the agents with a launch block, the
// allowed projects each is wired for, the descriptor's option lists), starts
// Claude Code in an allow-listed project through the launcher (a stand-in on
// PATH named `claude`, test/browser/fake-claude.mjs, given Claude Code's own
// launch argv and firing its hooks), opens the session once its first hook
// arrived, and its permission card is answered there; History's Continue
// resumes the same session by its id. A read-only token is offered neither.
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { recordWiring } from '../../engine/runtime/setup/wirings.ts';
import { launch, SCREENS, signedIn, skipBrowser, stack, TOKEN, until, type Stack } from './harness.ts';

const FAKE = join(import.meta.dirname, 'fake-claude.mjs');
const PHONE = SCREENS.find((x) => x.name === 'phone')!.opts;

describe.skipIf(!!skipBrowser)('web inbox: New session and Continue (phone)', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;
  let project: string;
  const env: Record<string, string | undefined> = {};
  const calls = () =>
    existsSync(join(project, '.fake-claude.jsonl'))
      ? readFileSync(join(project, '.fake-claude.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { argv: string[]; session: string; resume?: string; prompt: string })
      : [];
  const api = async (path: string) => (await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();

  beforeAll(async () => {
    browser = await launch();
    s = await stack({
      launchEnv: env,
      launch: { timeoutMs: 60_000 },
      before: (home) => {
        project = join(home, 'shop-api');
        mkdirSync(project);
        mkdirSync(join(home, 'other'));
        recordWiring(home, { agent: 'claude-code', scope: 'project', path: join(project, '.claude', 'settings.json'), dir: project });
        const bin = join(home, 'bin');
        mkdirSync(bin);
        chmodSync(FAKE, 0o755);
        symlinkSync(FAKE, join(bin, 'claude'));
        Object.assign(env, { PATH: `${bin}:${process.env.PATH}`, HOOKMAP_HOME: home });
      },
    });
    env.HOOKMAP_URL = s.url;
    page = (await signedIn(browser, s, PHONE)).page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('GET /launch offers the agents with a launch block and the allowed projects each is wired for, by name', async () => {
    const c = await api('/launch');
    expect(c.projects).toEqual(['shop-api']);
    const cc = c.agents.find((a: { agent: string }) => a.agent === 'claude-code');
    expect(cc).toMatchObject({ headless: true, tmux: true, resume: true, projects: ['shop-api'] });
    expect(cc.options.find((o: { name: string }) => o.name === 'permission_mode').values).toEqual(['default', 'acceptEdits', 'plan']);
    expect(JSON.stringify(c)).not.toContain(project); // names, never paths
  });

  it('New session starts Claude Code in shop-api, opens its session, and its permission card answers the agent', async () => {
    await page.goto(`${s.url}/#/new`);
    const form = page.locator('[data-launch-form]');
    await form.waitFor();
    expect(await form.locator('select[name=project]').inputValue()).toBe('shop-api');
    await form.locator('select[name=option-permission_mode]').selectOption('plan');
    const prompt = 'the tests on shop-api are red; fix them $(touch pwned)';
    await form.locator('textarea[name=prompt]').fill(prompt);
    await form.locator('[data-launch-start]').click();
    // the session opens once the agent's first hook named it
    await page.waitForURL(/#\/s\//, { timeout: 20_000 });
    const session = decodeURIComponent(new URL(page.url()).hash.slice('#/s/'.length));
    const [first] = calls();
    expect(first.session).toBe(session);
    expect(first.prompt).toBe(prompt); // one argv element: no shell ever read it
    expect(first.argv).toEqual(expect.arrayContaining(['--session-id', session, '--permission-mode', 'plan']));
    expect(existsSync(join(project, 'pwned'))).toBe(false);
    const card = page.locator(`main [data-card][data-session="${session}"]`).first();
    await card.waitFor({ timeout: 20_000 });
    await card.locator('[data-option="allow"]').click();
    await until('the run ends once its permission was answered', async () => {
      const c = await api('/launch');
      return c.runs.some((r: { session?: string; state: string }) => r.session === session && r.state === 'exited');
    });
    const run = (await api('/launch')).runs.find((r: { session?: string }) => r.session === session);
    expect(run).toMatchObject({ agent: 'claude-code', mode: 'headless', by: 'owner', via: 'inbox' });
    // what the agent printed: the allow bytes of vendors/claude-code.yaml, as its PermissionRequest hook received them
    expect(readFileSync(run.log, 'utf8')).toContain('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}');
  });

  it("History's Continue resumes that session by its id in its project", async () => {
    const session = calls()[0].session;
    await until('the session is in the history', async () =>
      (await api('/history/sessions?limit=50')).sessions.some((x: { session: string }) => x.session === session),
    );
    await page.goto(`${s.url}/#/history`);
    const row = page.locator(`[data-hist-session="${session}"]`);
    await row.waitFor();
    await row.locator(`[data-continue="${session}"]`).click();
    const form = row.locator(`[data-continue-form="${session}"]`);
    await form.locator('textarea[name=prompt]').fill('and now the lint');
    await form.locator('button[type=submit]').click();
    await until('the agent was started again with --resume', async () => calls().length === 2);
    const second = calls()[1];
    expect(second.resume).toBe(session);
    expect(second.prompt).toBe('and now the lint');
    await page.waitForURL(new RegExp(`#/s/${session}`), { timeout: 20_000 });
    const card = page.locator(`main [data-card][data-session="${session}"]`).first();
    await card.waitFor({ timeout: 20_000 });
    await card.locator('[data-option="allow"]').click();
    await until('the continued run ends', async () => (await api('/launch')).runs.filter((r: { state: string }) => r.state === 'exited').length === 2);
  });

  it('a read-only token is offered neither New session nor Continue, and the launch API refuses it', async () => {
    const ro = await signedIn(browser, s, PHONE, addToken(s.home, 'watcher', 'read').token);
    await ro.page.locator('summary[aria-label="Menu"]').click();
    expect(await ro.page.locator('[data-nav="history"]').count()).toBe(1);
    expect(await ro.page.locator('[data-nav="new"]').count()).toBe(0);
    await ro.page.goto(`${s.url}/#/new`);
    await ro.page.locator('.launch .error').waitFor();
    expect(await ro.page.locator('.launch .error').textContent()).toMatch(/no control scope/);
    await ro.page.goto(`${s.url}/#/history`);
    await ro.page.locator('[data-hist-session]').first().waitFor();
    expect(await ro.page.locator('[data-continue]').count()).toBe(0);
    await ro.context.close();
  });
});
