// Shared pieces of the web inbox's browser tests: Debian's Chromium driven by
// playwright-core (never a browser download), one browser per test file,
// `hookmap up` stacks on ephemeral ports with temp HOOKMAP_HOME folders,
// sign-in, hook firings as an agent makes them, and fixture cases.
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { startUp, type Up, type UpOptions } from '../../engine/app/up.ts';
import { fixtureFiles } from '../../engine/tools/cases/format.ts';
import { tempDir, until } from '../runtime/daemon/helpers.ts';
import { CHROMIUM_TOOL, skipReason } from '../helpers/optional-tools.ts';

export { until } from '../runtime/daemon/helpers.ts';

export const CHROMIUM = CHROMIUM_TOOL.candidates[0];
/**
 * Without Chromium the browser tests are skipped with the reason, unless CI requires them (.ci/run sets
 * HOOKMAP_REQUIRE_BROWSER; test/helpers/optional-tools.ts).
 */
export const skipBrowser = skipReason(CHROMIUM_TOOL) ? `no Chromium at ${CHROMIUM} (install Debian's chromium, or set HOOKMAP_CHROMIUM)` : undefined;
if (skipBrowser) console.log(`[browser] SKIPPED: ${skipBrowser}`);

/**
 * Timing bounds (the issue's: a card within 1 s, the page loaded within 1 s
 * over a full relay) are asserted strictly where the machine is quiet: the
 * CI step that runs these files alone (HOOKMAP_PERF_STRICT=1, .ci/run).
 * Inside `npm test`, beside every other test on a shared machine, the same
 * measurements are printed and held to a looser sanity bound.
 */
export const strictTiming = !!process.env.HOOKMAP_PERF_STRICT;
export const bound = (strictMs: number, sharedMs: number) => (strictTiming ? strictMs : sharedMs);

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const TOKEN = 'inbox-browser-test-token';

export interface Stack {
  up: Up;
  url: string;
  home: string;
  port: number;
  close(): Promise<void>;
  /** Start again on the same port, home and logs (a relay restart mid-session). */
  restart(): Promise<void>;
}

export interface StackOptions {
  agents?: { descriptor: string; attentionTimeoutMs?: number; config?: Record<string, unknown> }[];
  attentionTimeoutMs?: number;
  token?: string | null;
  /** Web Push's escalation (engine/person/push/escalation.ts). */
  push?: UpOptions['push'];
  /** `hookmap run`'s launcher: its config and the environment its agents start with. */
  launch?: UpOptions['launch'];
  launchEnv?: UpOptions['launchEnv'];
  /** Spending caps (the up config's `budgets:`, engine/runtime/usage/budget-schema.ts). */
  budgets?: UpOptions['budgets'];
  /** Called with the home before up starts (wirings, tokens). */
  before?: (home: string) => void;
  /** Every agent's capture ceiling at least this (`up --capture`). */
  capture?: UpOptions['capture'];
  /** Named people (engine/runtime/auth/people.ts). */
  people?: UpOptions['people'];
}

export async function stack(o: StackOptions = {}): Promise<Stack> {
  const tmp = tempDir('hookmap-inbox-');
  // null: an explicitly watch-only (--no-auth) server; named tokens go into `home` (addToken) like `hookmap tokens add`
  const auth = o.token === null ? { noAuth: true } : { token: o.token ?? TOKEN };
  const opts = {
    ...auth,
    home: tmp.dir,
    logDir: tmp.dir,
    attentionTimeoutMs: o.attentionTimeoutMs,
    agents: o.agents ?? [{ descriptor: 'claude-code' }],
    push: o.push,
    launch: o.launch,
    launchEnv: o.launchEnv,
    budgets: o.budgets,
    capture: o.capture,
    people: o.people,
  };
  o.before?.(tmp.dir);
  let up = await startUp({ ...opts, port: 0 });
  const port = up.port;
  const s: Stack = {
    up,
    url: up.url,
    home: tmp.dir,
    port,
    async close() {
      await s.up.close();
      tmp.done();
    },
    async restart() {
      await s.up.close();
      up = await startUp({ ...opts, port });
      s.up = up;
      await ready(s);
    },
  };
  await ready(s);
  return s;
}

async function ready(s: Stack): Promise<void> {
  if (s.up.daemons.size === 0) return;
  await until(
    'every daemon to finish its relay hello',
    async () => (await (await fetch(`${s.url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).relay === true,
  );
}

/** A new browser context (its own cookies), signed in with the token through the login form. */
export async function signedIn(browser: Browser, s: Stack, opts: BrowserContextOptions = {}, token = TOKEN): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...opts });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
  await page.goto(`${s.url}/`);
  await page.locator('#token').fill(token);
  await page.locator('button[type=submit]').click();
  await page.locator('[data-conn="live"]').waitFor({ timeout: 10_000 });
  return { context, page };
}

/** POST one hook firing as the agent does; resolves with the exact reply bytes once the daemon answers. */
export async function fire(s: Stack, agent: string, input: unknown, hook?: string): Promise<{ status: number; text: string }> {
  const r = await fetch(`${s.url}/hooks/${agent}${hook ? `/${encodeURIComponent(hook)}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...hookKeyHeaders(s.home) }, // the home's hook key, as a shim presents it
    body: JSON.stringify(input),
  });
  return { status: r.status, text: await r.text() };
}

/** POST AEP envelopes to the relay as a foreign emitter does (NDJSON, the owner token). */
export async function postEvents(s: Stack, events: object[]): Promise<void> {
  const body = events.map((e) => JSON.stringify(e)).join('\n');
  const r = await fetch(`${s.url}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', 'aep-version': '0.1', authorization: `Bearer ${TOKEN}` },
    body,
  });
  if (r.status !== 202) throw new Error(`POST /events: ${r.status} ${await r.text()}`);
}

/** The desktop and phone screens every inbox item is checked at (README screenshots use the same). */
export const SCREENS: { name: string; opts: BrowserContextOptions }[] = [
  { name: 'desktop', opts: { viewport: { width: 1280, height: 800 } } },
  { name: 'phone', opts: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 } },
];

/** One decision-codec case of an agent's fixtures, by name. */
export function decisionCase(agent: string, name: string): any {
  for (const f of fixtureFiles(agent)) {
    if (f.kind !== 'decisions') continue;
    const c = f.cases.find((x: any) => x.name === name);
    if (c) return c;
  }
  throw new Error(`no decision case '${name}' for ${agent}`);
}

export const withSession = (input: any, session: string) => ({ ...input, session_id: session });
