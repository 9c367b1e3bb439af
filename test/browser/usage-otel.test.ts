// The live views' tokens and cost, and the Codex OTel companion join (issue
// 30), in a real Chromium against `hookmap up`: usage events posted in a
// session show "N tokens · $X" on its row in the session list, in the
// session's head and on each run's row; Codex's OTel tool_result and
// tool_decision (another emitter, same session and call id) show on the hook
// channel's tool-call row, and a record with no matching call stays a row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, postEvents, signedIn, skipBrowser, stack, until, type Stack } from './harness.ts';

const SESSION = 'cx-usage-1';
const HOOKS = `aep://test/agent/codex/session/${SESSION}`;
const OTEL = `aep://test/agent/codex/otel/session/${SESSION}`;
const USAGE = `aep://test/agent/codex/usage/session/${SESSION}`;

describe.skipIf(!!skipBrowser)('web inbox: tokens and cost, and the OTel companion on tool rows', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;

  beforeAll(async () => {
    browser = await launch();
    s = await stack();
    const t = Date.now() - 60_000;
    const seqs = new Map<string, number>();
    const env = (source: string, type: string, extra: object = {}) => {
      const seq = seqs.get(source) ?? 0;
      seqs.set(source, seq + 1);
      return {
        aep: '0.1',
        id: `${source.split('/')[4]}-${seq}`,
        type,
        time: new Date(t + seqs.size * 1000 + seq * 1000).toISOString(),
        source,
        agent: 'codex',
        session: SESSION,
        seq,
        epoch: 0,
        data: {},
        ...extra,
      };
    };
    const tool = (call: string) => ({ name: 'Bash', call_id: call });
    const otelTool = (call: string) => ({ tool_name: 'exec_command', call_id: call });
    const usage = (run: string, input: number, output: number, cost: number) =>
      env(USAGE, 'x.hookmap.usage.reported', {
        run,
        data: {
          'gen_ai.response.model': 'gpt-5',
          'gen_ai.usage.input_tokens': input,
          'gen_ai.usage.output_tokens': output,
          responses: 1,
          cost: { currency: 'USD', total: cost },
          price_table: 'test',
        },
      });
    await postEvents(s, [
      env(HOOKS, 'session.started', { data: { cwd: '/work/usage-demo' } }),
      env(HOOKS, 'run.started', { run: 'r1', data: { prompt: 'list it' } }),
      env(HOOKS, 'tool.requested', { run: 'r1', subject: 'Bash', data: { tool: tool('call_ls') } }),
      env(HOOKS, 'tool.completed', { run: 'r1', subject: 'Bash', data: { tool: tool('call_ls') } }),
      env(HOOKS, 'tool.requested', { run: 'r1', subject: 'Bash', data: { tool: tool('call_rm') } }),
      env(HOOKS, 'run.finished', { run: 'r1', data: {} }),
      env(HOOKS, 'run.started', { run: 'r2', data: { prompt: 'again' } }),
      env(HOOKS, 'run.finished', { run: 'r2', data: {} }),
    ]);
    await postEvents(s, [
      // the records' own attributes, values as OTLP carries them (the AEP pins)
      env(OTEL, 'x.codex.otel.tool_result', { data: { ...otelTool('call_ls'), success: 'true', exit_code: 2, duration_ms: '1244' } }),
      env(OTEL, 'x.codex.otel.tool_decision', { data: { ...otelTool('call_rm'), decision: 'denied', source: 'config' } }),
      env(OTEL, 'x.codex.otel.tool_result', { data: { ...otelTool('call_elsewhere'), success: 'true', duration_ms: '30' } }),
      usage('r1', 1200, 300, 0.0125),
      usage('r2', 100, 50, 0.002),
    ]);
    page = (await signedIn(browser, s)).page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('shows the session total in the session list and the session head, each run its own', async () => {
    const row = page.locator(`[data-session="${SESSION}"] .usage`);
    await until('the usage on the session row', async () => (await row.count()) === 1 && (await row.getAttribute('data-tokens')) === '1650');
    expect(await row.locator('[aria-hidden]').textContent()).toBe('1.6k tokens · $0.0145');
    expect(await row.locator('.sr-only').textContent()).toBe('1,650 tokens (1,300 input, 350 output), cost $0.0145');
    await page.goto(`${s.url}/#/s/${SESSION}`);
    const head = page.locator('.session-head .usage');
    await head.waitFor();
    expect(await head.locator('[aria-hidden]').textContent()).toBe('1.6k tokens · $0.0145');
    const runs = page.locator('.row-run');
    await until('both runs', async () => (await runs.count()) === 2);
    expect(await runs.nth(0).locator('.row-usage [aria-hidden]').textContent()).toBe('1.5k tokens · $0.0125');
    expect(await runs.nth(1).locator('.row-usage [aria-hidden]').textContent()).toBe('150 tokens · $0.0020');
  });

  it("shows the OTel facts on the hook channel's tool rows, and an unmatched record as its own row", async () => {
    await page.goto(`${s.url}/#/s/${SESSION}`);
    const tools = page.locator('.row-tool');
    await until('the two tool rows with their OTel facts', async () => (await tools.count()) === 2 && (await page.locator('[data-otel]').count()) === 2);
    expect(await tools.nth(0).locator('[data-otel]').textContent()).toBe('exit 2 · 1.2 s (OTel)');
    expect(await tools.nth(1).locator('[data-otel]').textContent()).toBe('denied by config (OTel)');
    // the record whose call no hook row holds is an agent-specific row of its own
    await page.locator('.show-quiet').click();
    const own = page.locator('.row[data-type="x.codex.otel.tool_result"]');
    await until('the unmatched OTel row', async () => (await own.count()) === 1);
    expect(await page.locator('.row[data-type="x.codex.otel.tool_decision"]').count()).toBe(0);
  });
});
