// Live: `hookmap run` (issue 42) starting the real Claude Code headless from
// its descriptor's launch block (`claude -p ... --session-id <uuid>`) inside
// `hookmap up`, against the scripted Messages API: the CLI prints the session
// once its first hook arrived, the held permission request is answered with
// `hookmap answer`, the run finishes; `--resume <prefix>` continues the same
// session (the model's next request holds the earlier turn). Then the same from
// the inbox's New session form in a real Chromium on a phone's viewport: the
// session opens and its permission card is allowed there.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { command, until } from './harness.ts';
import { Live } from './live.ts';
import { launch as chromium, SCREENS, skipBrowser } from '../browser/harness.ts';

const ID = 'claude-code';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] launch (${ID}): SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);
const ANSWER_TIMEOUT_MS = 30_000;

/** The run `hookmap run` printed is over: up's `x.hookmap.launch.ended` audit of its launch id. */
const runEnded = (live: Live, stdout: string) => {
  const id = /\(launch (l[0-9a-f]{12}),/.exec(stdout)![1];
  return until(`launch ${id} ended`, () => live.stream.events.find((e) => e.type === 'x.hookmap.launch.ended' && e.data?.launch === id), 90_000);
};

describe.skipIf(!!skip)(`hookmap run: ${agent.pkg}@${agent.version} live`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'Bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    await live.setup(['--project', '--dir', live.s.project]);
    // the runs are children of up: up's environment is theirs (the scratch HOME, the scripted model, the agent on PATH)
    await live.restartUp(ANSWER_TIMEOUT_MS, {
      env: {
        ...live.agentEnv,
        PATH: `${dirname(live.bin)}:${process.env.PATH}`,
        ANTHROPIC_BASE_URL: live.model.url,
        ANTHROPIC_API_KEY: 'sk-ant-live-test-not-a-key',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await live.finish(agent.version);
  }, 30_000);

  const events = (session: string) => live.stream.events.filter((e) => e.session === session);

  it('starts Claude Code headless, the permission answered with `hookmap answer`; --resume continues the same session', async () => {
    const sc = live.scenario('permission-allow');
    live.model.play(sc);
    const r0 = live.model.requests.length;
    const started = await command(live.up.url, ['run', ID, '--dir', live.s.project, '--option', 'permission_mode=default', sc.prompt], live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr()}`).toBe(0);
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    expect(started.stdout).toMatch(/started claude-code \(launch l[0-9a-f]{12}, pid \d+\)/);
    const req = await until('the held permission request', () => events(session).find((e) => e.type === 'attention.requested'), 60_000);
    const answered = await live.answer(req.id, ['--allow']);
    expect(answered.code).toBe(0);
    await until('the run finished', () => events(session).find((e) => e.type === 'session.ended'), 90_000);
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(true);
    expect(live.model.requests.length).toBeGreaterThan(r0);

    // continue it: the same agent session, by a prefix of its id
    // the scripted model answers the step its conversation's tool results count: the continued one holds the first turn's
    const again = {
      name: 'resume',
      prompt: 'Now create the file denied.txt too.',
      steps: [live.shell('touch allowed.txt'), live.shell('touch denied.txt'), { say: 'The command was denied; nothing was created.' }],
    };
    live.model.play(again);
    const r1 = live.model.requests.length;
    const resumed = await command(live.up.url, ['run', ID, '--dir', live.s.project, '--resume', session.slice(0, 8), again.prompt], live.s, 90_000);
    expect(resumed.code, `${resumed.stdout}${resumed.stderr}`).toBe(0);
    const next = /^session (\S+)$/m.exec(resumed.stdout)![1];
    expect(next.replace(/~\d+$/, '')).toBe(session);
    const req2 = await until('the second held request', () => events(next).find((e) => e.type === 'attention.requested' && e.id !== req.id), 60_000).catch(
      (e) => {
        const log = /log (\S+)/.exec(resumed.stdout)?.[1];
        const seen = live.stream.events.filter((x) => String(x.session).startsWith(session)).map((x) => `${x.session} ${x.type}`);
        throw new Error(`${e.message}\n${resumed.stdout}\n${seen.join('\n')}\n${log && existsSync(log) ? readFileSync(log, 'utf8').slice(-3000) : ''}`);
      },
    );
    expect((await live.answer(req2.id, ['--deny'])).code).toBe(0);
    await until('the continued run finished', () => events(next).filter((e) => e.type === 'session.ended').length >= (next === session ? 2 : 1), 90_000);
    // the model's first request of the continued run holds the earlier turn
    const first = live.model.requests.slice(r1).find((r) => JSON.stringify(r.body ?? {}).includes(again.prompt));
    expect(JSON.stringify(first?.body)).toContain(sc.prompt);
    expect(existsSync(join(live.s.project, 'denied.txt'))).toBe(false);
  }, 300_000);

  it('New session from the inbox on a phone (real Chromium) starts Claude Code; its permission card is allowed there', async () => {
    if (skipBrowser) throw new Error(`the live suite needs the browser: ${skipBrowser}`);
    const sc = { name: 'inbox', prompt: 'Create the file inbox.txt.', steps: [live.shell('touch inbox.txt'), { say: 'Created inbox.txt.' }] };
    live.model.play(sc);
    const browser = await chromium();
    try {
      const context = await browser.newContext(SCREENS.find((x) => x.name === 'phone')!.opts);
      const page = await context.newPage();
      await page.goto(`${live.up.url}/`);
      await page.locator('#token').fill(readFileSync(join(live.s.hookmapHome, 'token'), 'utf8').trim());
      await page.locator('button[type=submit]').click();
      await page.locator('[data-conn="live"]').waitFor({ timeout: 15_000 });
      await page.goto(`${live.up.url}/#/new`);
      const form = page.locator('[data-launch-form]');
      await form.waitFor();
      await form.locator('select[name=agent]').selectOption(ID);
      await form.locator('select[name=project]').selectOption(basename(live.s.project));
      await form.locator('select[name=option-permission_mode]').selectOption('default');
      await form.locator('textarea[name=prompt]').fill(sc.prompt);
      await form.locator('[data-launch-start]').click();
      await page.waitForURL(/#\/s\//, { timeout: 90_000 });
      const session = decodeURIComponent(new URL(page.url()).hash.slice('#/s/'.length));
      const card = page.locator(`main [data-card][data-session="${session}"]`).first();
      await card.waitFor({ timeout: 60_000 });
      await card.locator('[data-option="allow"]').click();
      await until('the run finished', () => events(session).find((e) => e.type === 'session.ended'), 90_000);
      expect(existsSync(join(live.s.project, 'inbox.txt'))).toBe(true);
      expect(events(session).some((e) => e.type === 'attention.answered')).toBe(true);
    } finally {
      await browser.close();
    }
  }, 300_000);
});

const CODEX = 'codex';
const codexSkip = Live.skipReason(CODEX);
if (codexSkip) console.log(`[live] launch (${CODEX}): SKIPPED: ${codexSkip}`);

describe.skipIf(!!codexSkip)(`hookmap run: ${resolveAgent(CODEX).agent.pkg} live`, () => {
  // a writing command asks to leave the read-only sandbox: codex's PermissionRequest (as in codex.live.ts)
  const live = new Live(CODEX, (cmd) => ({
    tool: 'exec_command',
    args: /^touch /.test(cmd) ? { cmd, sandbox_permissions: 'require_escalated', justification: 'run touch outside the sandbox' } : { cmd },
  }));

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    const codexHome = join(live.s.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model = "scripted"',
        'model_provider = "live"',
        'approval_policy = "on-request"',
        'sandbox_mode = "read-only"',
        '[model_providers.live]',
        'name = "hookmap live scripted model"',
        `base_url = "${live.model.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "HOOKMAP_LIVE_API_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '[features]',
        'hooks = true',
        '',
      ].join('\n'),
    );
    await live.setup([], { ...live.agentEnv, CODEX_HOME: codexHome });
    // wired at user scope: the project is allowed by the up config's launch.projects
    const config = join(live.s.home, 'up.yaml');
    writeFileSync(config, `launch:\n  projects: [${JSON.stringify(live.s.project)}]\n`);
    await live.restartUp(ANSWER_TIMEOUT_MS, {
      args: ['--config', config],
      env: {
        ...live.agentEnv,
        PATH: `${dirname(live.bin)}:${process.env.PATH}`,
        CODEX_HOME: codexHome,
        HOOKMAP_LIVE_API_KEY: 'sk-live-test-not-a-key',
        RUST_LOG: 'error',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await live.finish(resolveAgent(CODEX).agent.version);
  }, 30_000);

  const events = (session: string) => live.stream.events.filter((e) => e.session === session);

  it('starts `codex exec` from its launch block, the permission answered with `hookmap answer`; --resume continues the thread', async () => {
    const sc = live.scenario('permission-allow');
    live.model.play(sc);
    const started = await command(live.up.url, ['run', CODEX, '--dir', live.s.project, sc.prompt], live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr()}`).toBe(0);
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    const req = await until('the held permission request', () => events(session).find((e) => e.type === 'attention.requested'), 60_000);
    expect((await live.answer(req.id, ['--allow'])).code).toBe(0);
    await until('the turn finished', () => events(session).find((e) => e.type === 'run.finished'), 90_000);
    await until('allowed.txt', () => existsSync(join(live.s.project, 'allowed.txt')), 30_000);

    const again = {
      name: 'resume',
      prompt: 'Now say done.',
      steps: [live.shell('touch allowed.txt'), { say: 'Done: the thread goes on.' }],
    };
    live.model.play(again);
    const r1 = live.model.requests.length;
    const resumed = await command(live.up.url, ['run', CODEX, '--dir', live.s.project, '--resume', session.slice(0, 8), again.prompt], live.s, 90_000);
    expect(resumed.code, `${resumed.stdout}${resumed.stderr}`).toBe(0);
    expect(/^session (\S+)$/m.exec(resumed.stdout)![1].replace(/~\d+$/, '')).toBe(session);
    const first = await until(
      'the continued request',
      () => live.model.requests.slice(r1).find((r) => JSON.stringify(r.body ?? {}).includes(again.prompt)),
      60_000,
    );
    expect(JSON.stringify(first.body)).toContain(sc.prompt);
  }, 300_000);
});

const PI = 'pi';
const piSkip = Live.skipReason(PI);
if (piSkip) console.log(`[live] launch (${PI}): SKIPPED: ${piSkip}`);

describe.skipIf(!!piSkip)(`hookmap run: ${resolveAgent(PI).agent.pkg} live`, () => {
  const live = new Live(PI, (cmd) => ({ tool: 'bash', args: { command: cmd } }));

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    const dir = join(live.s.home, '.pi', 'agent');
    mkdirSync(dir, { recursive: true });
    const provider = { baseUrl: `${live.model.url}/v1`, api: 'openai-completions', apiKey: 'sk-live-test-not-a-key', models: [{ id: 'scripted' }] };
    writeFileSync(
      join(dir, 'models.json'),
      JSON.stringify({ providers: { scripted: { ...provider, compat: { supportsDeveloperRole: false, supportsReasoningEffort: false } } } }),
    );
    await live.setup(['--user']);
    const config = join(live.s.home, 'up.yaml');
    writeFileSync(config, `launch:\n  projects: [${JSON.stringify(live.s.project)}]\n`);
    await live.restartUp(ANSWER_TIMEOUT_MS, { args: ['--config', config], env: { ...live.agentEnv, PATH: `${dirname(live.bin)}:${process.env.PATH}` } });
  }, 120_000);

  afterAll(async () => {
    await live.finish(resolveAgent(PI).agent.version);
  }, 30_000);

  const events = (session: string) => live.stream.events.filter((e) => e.session === session);

  // pi has no permission prompt of its own: the launch block's gate (HOOKMAP_GATE=1) registers the extension's
  // tool_call gate, which holds every call but the read-only tools for hookmap and blocks what nobody allowed.
  it('starts `pi -p` (provider and model options) under the gate: the bash call held and answered with `hookmap answer`, a deny blocks it; --resume continues it', async () => {
    const sc = live.scenario('permission-allow');
    live.model.play(sc);
    const argv = ['run', PI, '--dir', live.s.project, '--option', 'provider=scripted', '--model', 'scripted', sc.prompt];
    const started = await command(live.up.url, argv, live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr()}`).toBe(0);
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    const req = await until('the held call', () => events(session).find((e) => e.type === 'attention.requested'), 60_000);
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(false);
    expect((await live.answer(req.id, ['--allow'])).code).toBe(0);
    await until('the run finished', () => events(session).find((e) => e.type === 'run.finished'), 90_000);
    await until('allowed.txt', () => existsSync(join(live.s.project, 'allowed.txt')), 30_000);
    expect((await runEnded(live, started.stdout)).data).toMatchObject({ state: 'exited', exit: 0 });

    // (the scripted model plays a scenario's steps by the tool results in the conversation, so a continued one says its line)
    live.model.play({ name: 'resume', steps: [{ say: 'Done: the session goes on.' }] });
    const r1 = live.model.requests.length;
    const resumed = await command(live.up.url, ['run', PI, '--dir', live.s.project, '--resume', session.slice(0, 8), 'Now say done.'], live.s, 90_000);
    expect(resumed.code, `${resumed.stdout}${resumed.stderr}`).toBe(0);
    expect(/^session (\S+)$/m.exec(resumed.stdout)![1].replace(/~\d+$/, '')).toBe(session);
    const first = await until(
      'the continued request',
      () => live.model.requests.slice(r1).find((r) => JSON.stringify(r.body ?? {}).includes('Now say done.')),
      60_000,
    );
    expect(JSON.stringify(first.body)).toContain(sc.prompt);
    expect((await runEnded(live, resumed.stdout)).data).toMatchObject({ state: 'exited', exit: 0 });

    // a new run under the gate, its call denied: pi blocks it and the model reads the reason
    const deny = live.scenario('permission-deny');
    live.model.play(deny);
    const r2 = live.model.requests.length;
    const argv2 = ['run', PI, '--dir', live.s.project, '--option', 'provider=scripted', '--model', 'scripted', deny.prompt];
    const denied = await command(live.up.url, argv2, live.s, 90_000);
    expect(denied.code, `${denied.stdout}${denied.stderr}`).toBe(0);
    const s2 = /^session (\S+)$/m.exec(denied.stdout)![1];
    const req2 = await until('the second held call', () => events(s2).find((e) => e.type === 'attention.requested'), 60_000);
    expect((await live.answer(req2.id, ['--deny'])).code).toBe(0);
    expect((await runEnded(live, denied.stdout)).data).toMatchObject({ state: 'exited', exit: 0 });
    expect(existsSync(join(live.s.project, 'denied.txt'))).toBe(false);
    expect(JSON.stringify(live.model.requests.slice(r2).map((r) => r.body))).toContain('Denied via hookmap attention loop');
  }, 300_000);
});

const GEMINI = 'gemini-cli';
const geminiSkip = Live.skipReason(GEMINI);
if (geminiSkip) console.log(`[live] launch (${GEMINI}): SKIPPED: ${geminiSkip}`);

describe.skipIf(!!geminiSkip)(`hookmap run: ${resolveAgent(GEMINI).agent.pkg} live`, () => {
  const live = new Live(GEMINI, (cmd) => ({ tool: 'run_shell_command', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    mkdirSync(join(live.s.home, '.gemini'), { recursive: true });
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      telemetry: { enabled: false },
    };
    writeFileSync(join(live.s.home, '.gemini', 'settings.json'), JSON.stringify(settings));
    await live.setup(['--user']);
    const config = join(live.s.home, 'up.yaml');
    writeFileSync(config, `launch:\n  projects: [${JSON.stringify(live.s.project)}]\n`);
    const env = { GEMINI_API_KEY: 'live-test-not-a-key', GOOGLE_GEMINI_BASE_URL: live.model.url, NO_BROWSER: '1' };
    await live.restartUp(ANSWER_TIMEOUT_MS, {
      args: ['--config', config],
      env: { ...live.agentEnv, ...env, PATH: `${dirname(live.bin)}:${process.env.PATH}` },
    });
  }, 120_000);

  afterAll(async () => {
    await live.finish(resolveAgent(GEMINI).agent.version);
  }, 30_000);

  const events = (session: string) => live.stream.events.filter((e) => e.session === session);

  // Headless Gemini asks nothing itself (under approval_mode default its shell tool is not even offered),
  // so the launch block's gate starts it with --approval-mode yolo and HOOKMAP_GATE=1: BeforeTool holds every
  // call but the read-only ones for hookmap, and refuses what nobody allowed (vendors/gemini-cli.yaml).
  it('starts `gemini --prompt` under the gate: the shell call held and answered with `hookmap answer`, a deny refuses; --resume continues it', async () => {
    const sc = live.scenario('permission-allow');
    live.model.play(sc);
    const argv = ['run', GEMINI, '--dir', live.s.project, '--model', 'gemini-2.5-flash', sc.prompt];
    const started = await command(live.up.url, argv, live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr()}`).toBe(0);
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    const req = await until('the held permission request', () => events(session).find((e) => e.type === 'attention.requested'), 60_000);
    expect(req.data).toMatchObject({ kind: 'permission', respond_via: ['control'] });
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(false);
    expect((await live.answer(req.id, ['--allow'])).code).toBe(0);
    await until('allowed.txt', () => existsSync(join(live.s.project, 'allowed.txt')), 30_000);
    const ended = await runEnded(live, started.stdout);
    expect(ended.data).toMatchObject({ state: 'exited', exit: 0, session });
    const launched = live.stream.events.find((e) => e.type === 'x.hookmap.launch.started' && (e.data as any)?.agent === GEMINI);
    expect(launched?.data).toMatchObject({ gate: true });

    live.model.play({ name: 'resume', steps: [{ say: 'Done: the session goes on.' }] });
    const r1 = live.model.requests.length;
    const resumed = await command(live.up.url, ['run', GEMINI, '--dir', live.s.project, '--resume', session.slice(0, 8), 'Now say done.'], live.s, 90_000);
    expect(resumed.code, `${resumed.stdout}${resumed.stderr}`).toBe(0);
    expect(/^session (\S+)$/m.exec(resumed.stdout)![1].replace(/~\d+$/, '')).toBe(session);
    const first = await until(
      'the continued request',
      () => live.model.requests.slice(r1).find((r) => JSON.stringify(r.body ?? {}).includes('Now say done.')),
      60_000,
    );
    expect(JSON.stringify(first.body)).toContain(sc.prompt);
    expect((await runEnded(live, resumed.stdout)).data).toMatchObject({ state: 'exited', exit: 0 });

    // a new run under the gate, its call denied: the command does not run and the model reads Gemini's refusal
    const deny = live.scenario('permission-deny');
    live.model.play(deny);
    const r2 = live.model.requests.length;
    const denied = await command(live.up.url, ['run', GEMINI, '--dir', live.s.project, '--model', 'gemini-2.5-flash', deny.prompt], live.s, 90_000);
    expect(denied.code, `${denied.stdout}${denied.stderr}`).toBe(0);
    const s2 = /^session (\S+)$/m.exec(denied.stdout)![1];
    const req2 = await until('the second held request', () => events(s2).find((e) => e.type === 'attention.requested'), 60_000);
    expect((await live.answer(req2.id, ['--deny'])).code).toBe(0);
    expect((await runEnded(live, denied.stdout)).data).toMatchObject({ state: 'exited', exit: 0 });
    expect(existsSync(join(live.s.project, 'denied.txt'))).toBe(false);
    expect(JSON.stringify(live.model.requests.slice(r2).map((r) => r.body))).toContain('Tool execution blocked: Denied via hookmap attention loop');
    expect(events(s2).map((e) => e.type)).toContain('tool.denied');
  }, 240_000);

  // A person who chooses an approval mode replaces the gate (launch.gate.unless): Gemini's own headless rules decide,
  // and under `default` its shell tool is not offered (AGENT-FACTS), so nothing is held and the run finishes.
  it('with approval_mode=default chosen: no gate, the shell tool is not offered headless, nothing to answer; the run finishes', async () => {
    const sc = live.scenario('permission-allow');
    live.model.play(sc);
    const r0 = live.model.requests.length;
    const argv = ['run', GEMINI, '--dir', live.s.project, '--model', 'gemini-2.5-flash', '--option', 'approval_mode=default', sc.prompt];
    const started = await command(live.up.url, argv, live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr()}`).toBe(0);
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    await until('the session ended', () => events(session).find((e) => e.type === 'session.ended'), 90_000);
    const ended = await runEnded(live, started.stdout);
    expect(ended.data).toMatchObject({ state: 'exited', exit: 0, session });
    const asked = live.model.requests.slice(r0).find((r) => JSON.stringify(r.body ?? {}).includes(sc.prompt));
    const offered = JSON.stringify(asked?.body?.tools ?? []);
    expect(offered).toContain('"name":"glob"');
    expect(offered).not.toContain('"name":"run_shell_command"');
    expect(events(session).some((e) => e.type === 'attention.requested')).toBe(false);
  }, 180_000);
});

const COPILOT = 'copilot-cli';
const copilotSkip = Live.skipReason(COPILOT);
if (copilotSkip) console.log(`[live] launch (${COPILOT}): SKIPPED: ${copilotSkip}`);

describe.skipIf(!!copilotSkip)(`hookmap run: ${resolveAgent(COPILOT).agent.pkg} live`, () => {
  const live = new Live(COPILOT, (cmd) => ({ tool: 'bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    await live.setup(['--user']);
    const config = join(live.s.home, 'up.yaml');
    writeFileSync(config, `launch:\n  projects: [${JSON.stringify(live.s.project)}]\n`);
    const offline = {
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${live.model.url}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: 'sk-live-test-not-a-key',
      COPILOT_MODEL: 'scripted',
      COPILOT_AUTO_UPDATE: 'false',
    };
    await live.restartUp(ANSWER_TIMEOUT_MS, {
      args: ['--config', config],
      env: { ...live.agentEnv, ...offline, PATH: `${dirname(live.bin)}:${process.env.PATH}` },
    });
  }, 120_000);

  afterAll(async () => {
    await live.finish(resolveAgent(COPILOT).agent.version);
  }, 30_000);

  const events = (session: string) => live.stream.events.filter((e) => e.session === session);

  it('starts `copilot --prompt` from its launch block, the permission answered with `hookmap answer`; --resume continues it', async () => {
    const sc = live.scenario('permission-allow');
    live.model.play(sc);
    const started = await command(live.up.url, ['run', COPILOT, '--dir', live.s.project, sc.prompt], live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr()}`).toBe(0);
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    const req = await until('the held permission request', () => events(session).find((e) => e.type === 'attention.requested'), 60_000);
    expect((await live.answer(req.id, ['--allow'])).code).toBe(0);
    await until('the session ended', () => events(session).find((e) => e.type === 'session.ended'), 90_000);
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(true);

    const again = { name: 'resume', prompt: 'Now say done.', steps: [live.shell('touch allowed.txt'), { say: 'Done: the session goes on.' }] };
    live.model.play(again);
    const r1 = live.model.requests.length;
    const resumed = await command(live.up.url, ['run', COPILOT, '--dir', live.s.project, '--resume', session.slice(0, 8), again.prompt], live.s, 90_000);
    expect(resumed.code, `${resumed.stdout}${resumed.stderr}`).toBe(0);
    expect(/^session (\S+)$/m.exec(resumed.stdout)![1].replace(/~\d+$/, '')).toBe(session);
    const first = await until(
      'the continued request',
      () => live.model.requests.slice(r1).find((r) => JSON.stringify(r.body ?? {}).includes(again.prompt)),
      60_000,
    );
    expect(JSON.stringify(first.body)).toContain(sc.prompt);
  }, 300_000);
});

const QWEN = 'qwen-code';
const qwenSkip = Live.skipReason(QWEN);
if (qwenSkip) console.log(`[live] launch (${QWEN}): SKIPPED: ${qwenSkip}`);

describe.skipIf(!!qwenSkip)(`hookmap run: ${resolveAgent(QWEN).agent.pkg} live`, () => {
  const live = new Live(QWEN, (cmd) => ({ tool: 'run_shell_command', args: { command: cmd, description: `run ${cmd.split(' ')[0]}`, is_background: false } }));

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    mkdirSync(join(live.s.home, '.qwen'), { recursive: true });
    const settings = {
      security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true },
      telemetry: { enabled: false },
    };
    writeFileSync(join(live.s.home, '.qwen', 'settings.json'), JSON.stringify(settings));
    await live.setup(['--user']);
    const config = join(live.s.home, 'up.yaml');
    writeFileSync(config, `launch:\n  projects: [${JSON.stringify(live.s.project)}]\n`);
    const env = { OPENAI_API_KEY: 'sk-live-test-not-a-key', OPENAI_BASE_URL: `${live.model.url}/v1`, OPENAI_MODEL: 'scripted' };
    await live.restartUp(ANSWER_TIMEOUT_MS, {
      args: ['--config', config],
      env: { ...live.agentEnv, ...env, PATH: `${dirname(live.bin)}:${process.env.PATH}` },
    });
  }, 120_000);

  afterAll(async () => {
    await live.finish(resolveAgent(QWEN).agent.version);
  }, 30_000);

  const events = (session: string) => live.stream.events.filter((e) => e.session === session);

  // Plain `-p` declines a shell call with no hook (AGENT-FACTS); the launch block runs Qwen Code in the
  // SDK's stream-json mode with hookmap as its host (engine/person/launch/stream-host.ts), where
  // PermissionRequest fires and is held like any other.
  it('starts `qwen` (stream-json, hookmap the host): the permission held and answered with `hookmap answer`; --resume continues it', async () => {
    const sc = live.scenario('permission-allow');
    live.model.play(sc);
    const started = await command(live.up.url, ['run', QWEN, '--dir', live.s.project, sc.prompt], live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr()}`).toBe(0);
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    const req = await until('the held permission request', () => events(session).find((e) => e.type === 'attention.requested'), 60_000);
    expect(req.data).toMatchObject({ kind: 'permission', respond_via: ['control'] });
    expect((await live.answer(req.id, ['--allow'])).code).toBe(0);
    await until('the turn finished', () => events(session).find((e) => e.type === 'run.finished'), 90_000);
    await until('allowed.txt', () => existsSync(join(live.s.project, 'allowed.txt')), 30_000);
    expect((await runEnded(live, started.stdout)).data).toMatchObject({ state: 'exited', exit: 0, session });

    live.model.play({ name: 'resume', steps: [{ say: 'Done: the session goes on.' }] });
    const r1 = live.model.requests.length;
    const resumed = await command(live.up.url, ['run', QWEN, '--dir', live.s.project, '--resume', session.slice(0, 8), 'Now say done.'], live.s, 90_000);
    expect(resumed.code, `${resumed.stdout}${resumed.stderr}`).toBe(0);
    expect(/^session (\S+)$/m.exec(resumed.stdout)![1].replace(/~\d+$/, '')).toBe(session);
    const first = await until(
      'the continued request',
      () => live.model.requests.slice(r1).find((r) => JSON.stringify(r.body ?? {}).includes('Now say done.')),
      60_000,
    );
    expect(JSON.stringify(first.body)).toContain(sc.prompt);
    expect((await runEnded(live, resumed.stdout)).data).toMatchObject({ state: 'exited' });
  }, 180_000);
});

const OPENCODE = 'opencode';
const opencodeSkip = Live.skipReason(OPENCODE);
if (opencodeSkip) console.log(`[live] launch (${OPENCODE}): SKIPPED: ${opencodeSkip}`);

describe.skipIf(!!opencodeSkip)(`hookmap run: ${resolveAgent(OPENCODE).agent.pkg} live`, () => {
  const live = new Live(OPENCODE, (cmd) => ({ tool: 'bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    const quiet = { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' };
    live.agentEnv = { ...live.agentEnv, ...quiet };
    const dir = join(live.s.home, '.config', 'opencode');
    mkdirSync(dir, { recursive: true });
    const provider = {
      npm: '@ai-sdk/openai-compatible',
      name: 'Scripted',
      options: { baseURL: `${live.model.url}/v1`, apiKey: 'sk-live-test-not-a-key' },
      models: { scripted: { name: 'scripted', tool_call: true } },
    };
    const doc = {
      autoupdate: false,
      share: 'disabled',
      permission: { bash: 'ask' },
      provider: { scripted: provider },
      model: 'scripted/scripted',
      small_model: 'scripted/scripted',
    };
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify(doc));
    await live.setup(['--user']);
    const config = join(live.s.home, 'up.yaml');
    writeFileSync(config, `launch:\n  projects: [${JSON.stringify(live.s.project)}]\n`);
    await live.restartUp(ANSWER_TIMEOUT_MS, { args: ['--config', config], env: { ...live.agentEnv, PATH: `${dirname(live.bin)}:${process.env.PATH}` } });
  }, 120_000);

  afterAll(async () => {
    await live.finish(resolveAgent(OPENCODE).agent.version);
  }, 30_000);

  const events = (session: string) => live.stream.events.filter((e) => e.session === session);

  // AGENT-FACTS: `opencode run` answers every ask itself at once ("auto-rejecting") unless `--auto` allows
  // them all. The launch block's gate starts it with --auto and HOOKMAP_GATE=1: the generated plugin holds
  // tool.execute.before for hookmap (every tool but the read-only ones) and throws what hookmap refused.
  it('starts `opencode run` under the gate: the bash call held and answered with `hookmap answer`, a deny refuses; --resume (--session) continues it', async () => {
    const sc = live.scenario('permission-allow');
    live.model.play(sc);
    const started = await command(live.up.url, ['run', OPENCODE, '--dir', live.s.project, '--model', 'scripted/scripted', sc.prompt], live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr()}`).toBe(0);
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    const req = await until('the held call', () => events(session).find((e) => e.type === 'attention.requested'), 60_000);
    expect(req.data).toMatchObject({ kind: 'permission', prompt: 'Tool call: bash — touch allowed.txt', respond_via: ['control'] });
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(false);
    expect((await live.answer(req.id, ['--allow'])).code).toBe(0);
    await until('allowed.txt', () => existsSync(join(live.s.project, 'allowed.txt')), 30_000);
    expect((await runEnded(live, started.stdout)).data).toMatchObject({ state: 'exited', exit: 0 });
    // OpenCode's own ask (bash: ask) was answered by `opencode run --auto`: no second card
    expect(events(session).filter((e) => e.type === 'attention.requested')).toHaveLength(1);

    // a new run under the gate, its call denied: the command does not run and the model reads the refusal
    const deny = live.scenario('permission-deny');
    live.model.play(deny);
    const r2 = live.model.requests.length;
    const denied = await command(live.up.url, ['run', OPENCODE, '--dir', live.s.project, '--model', 'scripted/scripted', deny.prompt], live.s, 90_000);
    expect(denied.code, `${denied.stdout}${denied.stderr}`).toBe(0);
    const s2 = /^session (\S+)$/m.exec(denied.stdout)![1];
    const req2 = await until('the second held call', () => events(s2).find((e) => e.type === 'attention.requested'), 60_000);
    expect((await live.answer(req2.id, ['--deny'])).code).toBe(0);
    await runEnded(live, denied.stdout);
    expect(existsSync(join(live.s.project, 'denied.txt'))).toBe(false);
    await until('the refusal reached the model', () =>
      JSON.stringify(live.model.requests.slice(r2).map((r) => r.body)).includes('Denied via hookmap attention loop'),
    );
    expect(events(s2).map((e) => e.type)).toContain('tool.denied');

    live.model.play({ name: 'resume', steps: [{ say: 'Done: the session goes on.' }] });
    const r1 = live.model.requests.length;
    const resumed = await command(live.up.url, ['run', OPENCODE, '--dir', live.s.project, '--resume', session.slice(0, 12), 'Now say done.'], live.s, 90_000);
    const log = /log (\S+)/.exec(resumed.stdout)?.[1];
    const seen = live.stream.events.filter((e) => String(e.session).startsWith(session)).map((e) => `${e.session} ${e.type}`);
    expect(
      resumed.code,
      `${resumed.stdout}${resumed.stderr}\n${seen.join('\n')}\n${log && existsSync(log) ? readFileSync(log, 'utf8').slice(-1500) : ''}`,
    ).toBe(0);
    expect(/^session (\S+)$/m.exec(resumed.stdout)![1].replace(/~\d+$/, '')).toBe(session);
    const first = await until(
      'the continued request',
      () => live.model.requests.slice(r1).find((r) => JSON.stringify(r.body ?? {}).includes('Now say done.')),
      60_000,
    );
    expect(JSON.stringify(first.body)).toContain(sc.prompt);
    expect((await runEnded(live, resumed.stdout)).data).toMatchObject({ state: 'exited', exit: 0 });
  }, 180_000);
});
