// Live: the real Codex CLI (`codex exec`) against the scripted Responses API
// through a custom provider in a scratch $CODEX_HOME, its hooks wired by
// `hookmap setup codex` ($CODEX_HOME/hooks.json), `[features] hooks = true`,
// `--dangerously-bypass-hook-trust`. `codex exec` forces approval `never`
// (permission_mode bypassPermissions; `-c approval_policy=...` is overridden
// and `untrusted` is gone in 0.169.0); `--approve-for-me` keeps approvals on
// (permission_mode default) and routes them to PermissionRequest hooks first.
// Sandbox read-only: a writing command is sent by the model with
// `sandbox_permissions: "require_escalated"`, which needs approval; a
// read-only one runs in the sandbox without asking.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { command, run, until } from './harness.ts';
import { Live, unusedPort } from './live.ts';

const ID = 'codex';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] ${ID}: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);

const ANSWER_TIMEOUT_MS = 30_000;
const SHORT_TIMEOUT_MS = 1_500;

/** Every function_call_output the model was sent, newest last. */
const outputs = (reqs: { body: any; step?: number }[]) =>
  reqs
    .filter((r) => r.step !== undefined)
    .flatMap((r) => (Array.isArray(r.body?.input) ? r.body.input : []))
    .filter((i: any) => i?.type === 'function_call_output');
const outText = (o: any) => (typeof o?.output === 'string' ? o.output : JSON.stringify(o?.output ?? ''));

function writeConfig(codexHome: string, modelUrl: string) {
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "scripted"',
      'model_provider = "live"',
      'approval_policy = "on-request"',
      'sandbox_mode = "read-only"',
      '',
      '[model_providers.live]',
      'name = "hookmap live scripted model"',
      `base_url = "${modelUrl}/v1"`,
      'wire_api = "responses"',
      'env_key = "HOOKMAP_LIVE_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      '[features]',
      'hooks = true',
      '',
    ].join('\n'),
  );
}

describe.skipIf(!!skip)(`${agent.pkg}@${agent.version} live`, () => {
  const live = new Live(ID, (cmd) => ({
    tool: 'exec_command',
    args: /^(touch|rm|mkdir) /.test(cmd)
      ? { cmd, sandbox_permissions: 'require_escalated', justification: `run ${cmd.split(' ')[0]} outside the sandbox` }
      : { cmd },
  }));
  let codexHome = '';

  const codex = (prompt: string, env: NodeJS.ProcessEnv = live.agentEnv, home = codexHome, cwd = live.s.project) =>
    run(live.bin, ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--approve-for-me', '--color', 'never', '--json', '-C', cwd, prompt], {
      cwd,
      timeoutMs: 120_000,
      env: { ...env, CODEX_HOME: home, HOOKMAP_LIVE_API_KEY: 'sk-live-test-not-a-key', RUST_LOG: 'error' },
    });

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    codexHome = join(live.s.home, '.codex');
    writeConfig(codexHome, live.model.url);
    await live.setup([], { ...live.agentEnv, CODEX_HOME: codexHome });
  }, 90_000);

  afterAll(async () => {
    await live.finish(agent.version);
  }, 30_000);

  it('permission answered with guidance text: the command does not run and the model receives the text', async () => {
    const GUIDANCE = 'Do not create marker.txt; write notes.md instead (codex live guidance 91c2)';
    const taken = new Set<string>();
    const o = await live.play(
      'permission-guidance',
      (p) => codex(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        expect(req.data).toMatchObject({ kind: 'permission', respond_via: ['control'] });
        await live.answer(req.id, ['--text', GUIDANCE]);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    expect(existsSync(join(live.s.project, 'marker.txt'))).toBe(false);
    expect(outText(outputs(o.requests).at(-1))).toContain(GUIDANCE);
    expect(o.sessions).toHaveLength(1);
    const events = await live.checkSession(o.sessions[0]);
    expect(events.map((e) => e.type)).toEqual([
      'session.started',
      'run.started',
      'tool.requested',
      'attention.requested',
      'control.accepted',
      'attention.answered',
      'attention.resolved',
      'run.finished',
      'session.ended',
    ]);
  }, 180_000);

  it('permission answered allow: the command runs and its output reaches the model', async () => {
    const taken = new Set<string>();
    const o = await live.play(
      'permission-allow',
      (p) => codex(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        await live.answer(req.id, ['--allow']);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(true);
    const events = await live.checkSession(o.sessions[0]);
    expect(events.map((e) => e.type)).toEqual([
      'session.started',
      'run.started',
      'tool.requested',
      'attention.requested',
      'control.accepted',
      'attention.answered',
      'attention.resolved',
      'tool.completed',
      'run.finished',
      'session.ended',
    ]);
  }, 180_000);

  it('permission answered deny: the command does not run; the model is told', async () => {
    const taken = new Set<string>();
    const o = await live.play(
      'permission-deny',
      (p) => codex(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        await live.answer(req.id, ['--deny']);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    expect(existsSync(join(live.s.project, 'denied.txt'))).toBe(false);
    expect(outText(outputs(o.requests).at(-1))).toContain('Denied via hookmap attention loop');
    await live.checkSession(o.sessions[0]);
  }, 180_000);

  it('a read-only command raises no permission request', async () => {
    const o = await live.play('read-only', (p) => codex(p));
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    expect(o.hooks.map((h) => h.hook)).not.toContain('PermissionRequest');
    expect(outText(outputs(o.requests).at(-1))).toContain('hello-from-live');
    const events = await live.checkSession(o.sessions[0]);
    expect(events.map((e) => e.type)).toEqual(['session.started', 'run.started', 'tool.requested', 'tool.completed', 'run.finished', 'session.ended']);
  }, 180_000);

  it("no answer: the attention times out (bounded) and Codex's own fallback decides", async () => {
    await live.restartUp(SHORT_TIMEOUT_MS);
    const o = await live.play('permission-timeout', (p) => codex(p));
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    expect(o.run.ms).toBeLessThan(60_000);
    const events = await live.checkSession(o.sessions[0]);
    expect(events.find((e) => e.type === 'attention.timeout').data).toEqual({ after_ms: SHORT_TIMEOUT_MS });
    // exec has no approval dialog: its own fallback rejects the request
    expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(false);
  }, 180_000);

  it('hookmap down (not started): the session completes normally and quickly', async () => {
    const port = await unusedPort();
    const home = join(live.s.root, 'codex-down');
    const project = join(live.s.root, 'project-down');
    mkdirSync(project, { recursive: true });
    writeConfig(home, live.model.url);
    const env = { ...live.agentEnv, HOOKMAP_HOME: join(live.s.root, 'hookmap-down'), HOOKMAP_URL: `http://127.0.0.1:${port}` };
    await live.setup([], { ...env, CODEX_HOME: home });
    live.model.play(live.scenario('read-only'));
    const r0 = live.model.requests.length;
    const r = await codex('Say hello through the shell.', env, home, project);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.ms).toBeLessThan(30_000);
    expect(outText(outputs(live.model.requests.slice(r0)).at(-1))).toContain('hello-from-live');
  }, 120_000);

  // --- control beyond answers (issue 12) ------------------------------------------------

  const requestText = (r: { body: any }) => JSON.stringify(r.body?.input ?? []);

  it('STEER: `hookmap steer` while the turn runs; the next eligible hook reply carries it and the model reads it', async () => {
    await live.restartUp(ANSWER_TIMEOUT_MS, { env: { HOOKMAP_CODEX_INSTRUCT: 'true' } });
    const TEXT = 'Also run the unit tests before you finish (codex live steer 4e8a)';
    let steered: Awaited<ReturnType<typeof command>> | undefined;
    const o = await live.play(
      'steer',
      (p) => codex(p),
      async ({ sessionEvents }) => {
        const started = await until('the run', () => sessionEvents().find((e) => e.type === 'run.started'), 60_000);
        steered = await command(live.up.url, ['steer', started.session, TEXT, '--wait', '30'], live.s);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    expect(steered!.code, steered!.stdout + steered!.stderr).toBe(0);
    expect(steered!.stdout).toMatch(/outcome: x\.codex\.instruction\.delivered/);
    const events = await live.checkSession(o.sessions[0]);
    const delivered = events.find((e) => e.type === 'x.codex.instruction.delivered');
    const after = o.requests.filter((r) => r.step !== undefined && r.at >= Date.parse(delivered.time));
    expect(after.some((r) => requestText(r).includes(TEXT))).toBe(true);
    expect(o.requests.filter((r) => r.step !== undefined && r.at < Date.parse(delivered.time)).some((r) => requestText(r).includes(TEXT))).toBe(false);
  }, 180_000);

  it("STOP CONTINUED: a policy rule continues Codex's Stop once; the model gets the reason and the next Stop ends the turn", async () => {
    const REASON = 'The build is red: fix it before you stop (codex live policy 2a6c)';
    const policy = join(live.s.root, 'policy.yaml');
    writeFileSync(policy, `rules:\n  - { id: build-is-red, on: run.finished, agent: codex, decide: continue, reason: "${REASON}" }\n`);
    await live.restartUp(ANSWER_TIMEOUT_MS, { args: ['--policy', policy] });
    const o = await live.play('stop-continue', (p) => codex(p));
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    const main = o.requests.filter((r) => r.step !== undefined);
    expect(main.length).toBe(2);
    expect(requestText(main[0])).not.toContain(REASON);
    expect(requestText(main[1])).toContain(REASON);
    expect(o.hooks.filter((h) => h.hook === 'Stop')).toHaveLength(2);
    const events = await live.checkSession(o.sessions[0]);
    expect(events.filter((e) => e.type === 'x.codex.policy.applied')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'run.finished')).toHaveLength(1);
  }, 180_000);

  it(
    'ASK_HUMAN: `hookmap setup codex --mcp` adds [mcp_servers.hookmap] to ' +
      '$CODEX_HOME/config.toml; the model calls ask_human; `hookmap answer --text` answers; the ' +
      'model receives the answer',
    async () => {
      const ANSWER = 'Hold the deploy until Monday (codex live ask 7e21)';
      await live.restartUp(ANSWER_TIMEOUT_MS); // no policy, no steering
      const env = { ...live.agentEnv, CODEX_HOME: codexHome };
      const wired = await live.setup(['--mcp'], env);
      const config = join(codexHome, 'config.toml');
      expect(wired).toMatch(new RegExp(`the hookmap MCP server "hookmap" (is )?registered in ${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      const toml = readFileSync(config, 'utf8');
      expect(toml).toContain(
        `[mcp_servers.hookmap]\ntool_timeout_sec = 3600\ncommand = ${JSON.stringify(join(live.s.hookmapHome, 'bin', 'hookmap'))}\nargs ` +
          `= ${JSON.stringify(['mcp', '--agent', 'codex', '--url', live.agentEnv.HOOKMAP_URL]).replace(/,/g, ', ')}\n`,
      );
      expect(toml.startsWith('model = "scripted"\n')).toBe(true);
      const taken = new Set<string>();
      let ask: any;
      const o = await live.play(
        'ask-human-codex',
        (p) => codex(p),
        async ({ sessionEvents }) => {
          // Codex may first ask to approve the MCP tool call (a permission request): allow it
          for (;;) {
            const req = await live.nextAttention(sessionEvents, taken);
            if (req.data?.kind === 'input') {
              ask = req;
              await live.answer(req.id, ['--text', ANSWER]);
              return;
            }
            await live.answer(req.id, ['--allow']);
          }
        },
      );
      expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
      expect(ask.data).toMatchObject({ kind: 'input', prompt: 'Deploy the release to production now?' });
      expect(outText(outputs(o.requests).at(-1))).toContain(ANSWER);
      await live.checkSession(o.sessions[0]);
    },
    180_000,
  );
});
