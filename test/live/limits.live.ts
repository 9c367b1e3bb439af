// Live: a rate limit (issue 44, docs/usage.md "Rate limits") with the real
// Claude Code started by `hookmap run` inside `hookmap up`, against the
// scripted Messages API, which refuses the first main-loop request 429
// rate_limit_error (Anthropic's documented shape, retry-after 1). Claude Code
// retries nothing (CLAUDE_CODE_MAX_RETRIES=0), ends the turn and fires
// StopFailure {error: rate_limit}. hookmap: run.failed, then the limit sign
// (x.hookmap.limit.reached, no reset time: an API 429's retry-after stays
// inside Claude Code); with `launch.after_limit` (wait 1.5 s) up continues
// the session by the agent's own resume, as principal `hookmap`, and the
// model's next request holds the first turn's prompt and the continue prompt.
// Codex says it in no hook: its rollout's task_complete carries the 429
// (the descriptor's transcript.limits, read at SessionEnd), and up continues
// the thread with `codex exec resume` the same way.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { command, until } from './harness.ts';
import { Live } from './live.ts';

const ID = 'claude-code';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] limits (${ID}): SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);
const ANSWER_TIMEOUT_MS = 30_000;
const WAIT_MS = 1500;
const PROMPT = 'Continue where you left off (scripted).';

describe.skipIf(!!skip)(`rate limits: ${agent.pkg}@${agent.version} live`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'Bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    await live.setup(['--project', '--dir', live.s.project]);
    const file = join(live.s.root, 'up-limits.yaml');
    writeFileSync(file, `launch:\n  after_limit: { wait_ms: ${WAIT_MS}, prompt: ${JSON.stringify(PROMPT)} }\n`);
    // the runs are children of up: up's environment is theirs (the scratch HOME, the scripted model, the agent on PATH)
    await live.restartUp(ANSWER_TIMEOUT_MS, {
      args: ['--config', file],
      env: {
        ...live.agentEnv,
        PATH: `${dirname(live.bin)}:${process.env.PATH}`,
        ANTHROPIC_BASE_URL: live.model.url,
        ANTHROPIC_API_KEY: 'sk-ant-live-test-not-a-key',
        CLAUDE_CODE_MAX_RETRIES: '0',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await live.close();
  }, 30_000);

  it('a 429 ends the turn: the session is paused on a rate limit, and up continues it after the wait, audited as hookmap', async () => {
    const sc = { name: 'limited', prompt: 'Summarise the project in one line.', steps: [{ say: 'Continued after the limit.' }] };
    live.model.play(sc);
    live.model.rateLimit(1, 1);
    const r0 = live.model.requests.length;
    const started = await command(live.up.url, ['run', ID, '--dir', live.s.project, sc.prompt], live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr()}`).toBe(0);
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    const of = (s: string) => live.stream.events.filter((e) => e.session === s);

    const reached = await until('the limit sign', () => of(session).find((e) => e.type === 'x.hookmap.limit.reached'), 60_000).catch((e) => {
      const seen = live.model.requests.slice(r0).map((r) => `${r.path} limited=${!!r.limited} step=${r.step}`);
      throw new Error(
        `${e.message}\n${of(session)
          .map((x) => x.type)
          .join(', ')}\n${seen.join('\n')}\n${started.stdout}`,
      );
    });
    expect(reached.data).toEqual({ kind: 'rate_limit', hook: 'StopFailure' }); // no reset time: an API 429 says none in the hook
    const failed = of(session).find((e) => e.type === 'run.failed');
    expect(failed?.data).toMatchObject({ reason: 'rate_limit', error: { type: 'rate_limit' } });
    const payload = live.tap.hooks.find((h) => h.body?.hook_event_name === 'StopFailure')?.body;
    console.log(
      `[live] limits: StopFailure keys ${Object.keys(payload ?? {}).join(', ')}; error ${payload?.error}; message ${String(payload?.last_assistant_message).slice(0, 160)}`,
    );
    expect(payload).toMatchObject({ error: 'rate_limit' });
    expect(live.model.requests.slice(r0).some((r) => r.limited)).toBe(true);

    const resumed = await until(
      'the continuation',
      () => live.stream.events.find((e) => e.type === 'x.hookmap.limit.resumed' && e.data?.session === session),
      30_000,
    );
    expect(resumed.data).toMatchObject({ agent: ID, ok: true });
    const waited = Date.parse(resumed.time) - Date.parse(reached.time);
    expect(waited).toBeGreaterThanOrEqual(WAIT_MS - 50);
    const launched = live.stream.events.find((e) => e.type === 'x.hookmap.launch.started' && e.data?.launch === resumed.data.launch);
    expect(launched?.data).toMatchObject({ agent: ID, by: 'hookmap', via: 'after-limit' });

    // the continued run: the same agent session (its line), and the model told both prompts
    const line = await until(
      'the continued run',
      () =>
        live.stream.events.find(
          (e) => e.type === 'run.started' && String(e.session).replace(/~\d+$/, '') === session && Date.parse(e.time) > Date.parse(resumed.time),
        ),
      90_000,
    );
    const asked = await until(
      'the model asked with the continue prompt',
      () => live.model.requests.slice(r0).find((r) => !r.limited && r.step !== undefined && JSON.stringify(r.body ?? {}).includes(PROMPT)),
      60_000,
    );
    expect(JSON.stringify(asked?.body)).toContain(sc.prompt);
    await until(
      'the continued session ended',
      () => of(line.session).some((e) => e.type === 'session.ended' && Date.parse(e.time) > Date.parse(line.time)),
      90_000,
    );
    console.log(`[live] limits: paused at ${reached.time}, continued ${waited} ms later (launch ${resumed.data.launch}), session ${line.session}`);
  }, 300_000);
});

const CODEX = 'codex';
const codexSkip = Live.skipReason(CODEX);
if (codexSkip) console.log(`[live] limits (${CODEX}): SKIPPED: ${codexSkip}`);

describe.skipIf(!!codexSkip)(`rate limits: ${resolveAgent(CODEX).agent.pkg}@${resolveAgent(CODEX).agent.version} live`, () => {
  const live = new Live(CODEX, (cmd) => ({ tool: 'exec_command', args: { cmd } }));

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    const codexHome = join(live.s.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    const provider = [
      '[model_providers.live]',
      'name = "hookmap live scripted model"',
      `base_url = "${live.model.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "HOOKMAP_LIVE_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
    ];
    const toml = ['model = "scripted"', 'model_provider = "live"', 'approval_policy = "never"', 'sandbox_mode = "read-only"', ...provider];
    writeFileSync(join(codexHome, 'config.toml'), [...toml, '[features]', 'hooks = true', ''].join('\n'));
    await live.setup([], { ...live.agentEnv, CODEX_HOME: codexHome });
    const file = join(live.s.root, 'up-limits.yaml');
    const launch = `launch:\n  projects: [${JSON.stringify(live.s.project)}]\n  after_limit: { wait_ms: ${WAIT_MS}, prompt: ${JSON.stringify(PROMPT)} }\n`;
    writeFileSync(file, launch);
    await live.restartUp(ANSWER_TIMEOUT_MS, {
      args: ['--config', file],
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
    await live.close();
  }, 30_000);

  it('a 429 fails the turn: the rollout says so, the session is paused, and up continues the thread with its resume', async () => {
    const sc = { name: 'limited', prompt: 'Summarise the project in one line.', steps: [{ say: 'Continued after the limit.' }] };
    live.model.play(sc);
    live.model.rateLimit(1, 1);
    const r0 = live.model.requests.length;
    const started = await command(live.up.url, ['run', CODEX, '--dir', live.s.project, sc.prompt], live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr()}`).toBe(0);
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    const of = (s: string) => live.stream.events.filter((e) => e.session === s);

    const reached = await until('the limit sign', () => of(session).find((e) => e.type === 'x.hookmap.limit.reached'), 60_000).catch((e) => {
      throw new Error(
        `${e.message}\n${of(session)
          .map((x) => x.type)
          .join(', ')}\n${live.up.stderr().slice(-2000)}`,
      );
    });
    expect(reached.data).toEqual({ kind: 'rate_limit', hook: 'SessionEnd', transcript: true });
    expect(live.tap.hooks.filter((h) => h.body?.session_id === session).map((h) => h.hook)).not.toContain('Stop'); // no hook said it
    expect(live.model.requests.slice(r0).filter((r) => r.limited)).toHaveLength(1);

    const resumed = await until(
      'the continuation',
      () => live.stream.events.find((e) => e.type === 'x.hookmap.limit.resumed' && e.data?.session === session),
      30_000,
    );
    expect(resumed.data).toMatchObject({ agent: CODEX, ok: true });
    expect(Date.parse(resumed.time) - Date.parse(reached.time)).toBeGreaterThanOrEqual(WAIT_MS - 50);
    const asked = await until(
      'the model asked with the continue prompt',
      () => live.model.requests.slice(r0).find((r) => !r.limited && r.step !== undefined && JSON.stringify(r.body ?? {}).includes(PROMPT)),
      60_000,
    );
    expect(JSON.stringify(asked?.body)).toContain(sc.prompt); // the same thread: the first turn's prompt is in it
    const line = await until(
      'the continued run finished',
      () => live.stream.events.find((e) => e.type === 'run.finished' && String(e.session).replace(/~\d+$/, '') === session),
      90_000,
    );
    console.log(`[live] limits: codex paused at ${reached.time}, continued (launch ${resumed.data.launch}), session ${line.session}`);
  }, 300_000);
});
