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
import { loadVendor, ROOT } from '../../engine/core/descriptor/registry.ts';
import { Recorder } from '../../engine/tools/record/recorder.ts';
import { BIN, command, run, until } from './harness.ts';
import { expectTypes, Live, unusedPort } from './live.ts';

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
    expectTypes(events, [
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
    expectTypes(events, [
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
    expectTypes(events, ['session.started', 'run.started', 'tool.requested', 'tool.completed', 'run.finished', 'session.ended']);
  }, 180_000);

  it(
    'USAGE (issue 27): `hookmap usage --json` totals equal what the model reported, per ' + 'session, across an up restart and the rollout read twice',
    async () => {
      live.model.reportUsage({ input: 2000, output: 45, cache_read: 800, cache_write: 0, reasoning: 12 });
      try {
        type K = 'input' | 'output' | 'cache_read' | 'reasoning';
        const plays: { session: string; reported: Record<K, number>; responses: number }[] = [];
        const play = async (start: (p: string) => ReturnType<typeof codex>) => {
          const r0 = live.model.requests.length;
          const o = await live.play('read-only', start);
          expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
          expect(o.sessions).toHaveLength(1);
          const reported = live.model.requests.slice(r0).filter((q) => q.family === 'responses' && q.usage);
          const sum = (k: K) => reported.reduce((n, q) => n + q.usage![k], 0);
          const p =
            plays.find((x) => x.session === o.sessions[0]) ??
            plays[plays.push({ session: o.sessions[0], reported: { input: 0, output: 0, cache_read: 0, reasoning: 0 }, responses: 0 }) - 1];
          for (const k of ['input', 'output', 'cache_read', 'reasoning'] as K[]) p.reported[k] += sum(k);
          p.responses += reported.length;
          return o;
        };
        const first = await play((p) => codex(p));
        const thread = first.sessions[0];
        // hookmap up (every daemon) restarts; the thread is resumed: its rollout is appended to and read again
        await live.restartUp(ANSWER_TIMEOUT_MS);
        await play((p) =>
          run(
            live.bin,
            [
              'exec',
              '--skip-git-repo-check',
              '--dangerously-bypass-hook-trust',
              '--approve-for-me',
              '--color',
              'never',
              '--json',
              '-C',
              live.s.project,
              'resume',
              thread,
              p,
            ],
            {
              cwd: live.s.project,
              timeoutMs: 120_000,
              env: { ...live.agentEnv, CODEX_HOME: codexHome, HOOKMAP_LIVE_API_KEY: 'sk-live-test-not-a-key', RUST_LOG: 'error' },
            },
          ),
        );
        const env = { ...process.env, HOOKMAP_HOME: live.s.hookmapHome };
        for (const p of plays) {
          const got = await until(
            `the usage of ${p.session}`,
            async () => {
              const r = await run(process.execPath, [BIN, 'usage', '--json'], { env, timeoutMs: 30_000 });
              // the agent's session: hookmap's AEP session, and `<id>~2` when this up saw it end before the resume
              const rows = JSON.parse(r.stdout).sessions.filter((x: any) => x.session === p.session || x.session.startsWith(`${p.session}~`));
              const s = rows.reduce((a: any, x: any) => {
                for (const k of ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens']) a[k] = (a[k] ?? 0) + x[k];
                a.models = [...new Set([...(a.models ?? []), ...x.models])];
                a.cost_usd = a.cost_usd === null || x.cost_usd === null ? null : (a.cost_usd ?? 0) + x.cost_usd;
                a.agent = x.agent;
                a.sessions = (a.sessions ?? 0) + 1;
                return a;
              }, {});
              return rows.length && s.output_tokens >= p.reported.output ? s : undefined;
            },
            30_000,
          );
          console.log(
            `[live] usage ${p.session}: the model reported ${JSON.stringify(p.reported)} over ${p.responses} responses; hookmap usage: ${JSON.stringify(got)}`,
          );
          expect(got).toMatchObject({
            agent: 'codex',
            models: ['scripted'],
            input_tokens: p.reported.input,
            output_tokens: p.reported.output,
            cache_read_tokens: p.reported.cache_read,
            reasoning_tokens: p.reported.reasoning,
            cost_usd: null,
          });
          const events = await live.checkSession(p.session);
          expect(events.some((e) => e.type === 'x.hookmap.usage.reported')).toBe(true);
        }
      } finally {
        live.model.reportUsage(undefined);
      }
    },
    300_000,
  );

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
        `[mcp_servers.hookmap]\ntool_timeout_sec = 3600\ncommand = ` +
          `${JSON.stringify(join(live.s.hookmapHome, 'bin', 'hookmap'))}\nargs = ` +
          `${JSON.stringify(['mcp', '--agent', 'codex', '--url', live.agentEnv.HOOKMAP_URL]).replace(/,/g, ', ')}\n`,
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
  // --- what the hooks cannot see: Codex's own OTel logs (issue 30) -------------------------

  /**
   * One recorded candidate per OTel event name (HOOKMAP_LIVE_SAVE=1, or HOOKMAP_LIVE_SAVE_OTEL=1 for these alone):
   * fixtures/codex-otel/recorded/live-<event>.yaml, strictly redacted.
   */
  const saveOtel = (records: any[]) => {
    if (!process.env.HOOKMAP_LIVE_SAVE && !process.env.HOOKMAP_LIVE_SAVE_OTEL) return;
    const d = loadVendor('codex-otel');
    const rec = new Recorder(d, '', { agentVersion: agent.version });
    const out = join(ROOT, 'fixtures', 'codex-otel', 'recorded');
    mkdirSync(out, { recursive: true });
    const seen = new Set<string>();
    for (const r of records) {
      const name = r.attributes?.['event.name'];
      if (typeof name !== 'string' || seen.has(name)) continue;
      seen.add(name);
      const { text, findings } = rec.render(undefined, Buffer.from(JSON.stringify(r)), name, new Date());
      if (!findings.length)
        writeFileSync(
          join(out, `live-${name.replace(/^codex\./, '')}.yaml`),
          text.replace(/^(provenance: .*?)\n/m, (_m, p: string) => `${p.replace(/"$/, '')}; live suite (test/live)${p.endsWith('"') ? '"' : ''}\n`),
        );
    }
  };

  it(
    'OTEL: `hookmap setup codex --otel` points [otel] at hookmap up; over protobuf a failing ' +
      "command is x.codex.otel.tool_result (its exit code) next to the hook channel's " +
      'tool.completed for the same call; a denied one is a tool_decision with source config and a ' +
      'tool_result success false',
    async () => {
      await live.restartUp(ANSWER_TIMEOUT_MS);
      const env = { ...live.agentEnv, CODEX_HOME: codexHome };
      await live.setup(['--otel', '--uninstall'], env); // a retry starts from nothing
      const wired = await live.setup(['--otel'], env);
      expect(wired).toMatch(/exporter -> http:\/\/127\.0\.0\.1:\d+\/otlp\/codex-otel\/v1\/logs/);
      const config = join(codexHome, 'config.toml');
      expect(readFileSync(config, 'utf8')).toMatch(
        /^# >>> hookmap codex-otel >>>\n[^]*\n\[otel\]\n[^]*protocol = "binary"[^]*# <<< hookmap codex-otel <<<\n$/m,
      );
      const t0 = live.tap.otlp.length;
      const otelOf = (type: string, session: string) => live.stream.events.filter((e) => e.type === type && e.session === session);
      const dump = (session: string) => () => {
        if (process.env.HOOKMAP_LIVE_OTEL_DUMP)
          writeFileSync(
            process.env.HOOKMAP_LIVE_OTEL_DUMP,
            JSON.stringify({ exports: live.tap.otlp.slice(t0), events: live.stream.events.filter((e) => e.session === session) }, null, 1),
          );
      };
      try {
        // 1. a command that exits 2
        const o = await live.play('tool-failure', (p) => codex(p));
        expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
        const session = o.sessions[0];
        const result = await until('the OTel tool_result', () => otelOf('x.codex.otel.tool_result', session)[0], 30_000).finally(dump(session));
        const hooked = o.events.find((e) => e.type === 'tool.completed');
        // the same call on both channels, each on its own source: the join key is (session, call id)
        expect(hooked.source).toMatch(/\/agent\/codex\/session\//);
        expect(result.source).toMatch(/\/agent\/codex\/otel\/session\//);
        expect(result.agent).toBe('codex');
        // the OTel data is the record's own attributes, values as carried (the AEP pins): call_id, tool_name, success "true"
        expect(result.data.call_id).toBe(hooked.data.tool.call_id);
        // Codex 0.169.0 says the call ran (success "true") and the command exited 2: what the hook channel cannot say
        expect(result.data).toMatchObject({ exit_code: 2, success: 'true', tool_name: 'exec_command' });
        expect(otelOf('x.codex.otel.tool_decision', session)[0].data).toMatchObject({ decision: 'approved', source: 'config' });
        expect(otelOf('x.codex.otel.conversation_starts', session)).toHaveLength(1);
        await live.checkSession(session);
        // over protobuf, every export answered 200
        const exports = live.tap.otlp.slice(t0);
        expect(exports.length).toBeGreaterThan(0);
        expect(exports.every((x) => x.contentType.startsWith('application/x-protobuf') && x.status === 200)).toBe(true);

        // 2. a command the human denies
        const taken = new Set<string>();
        const d = await live.play(
          'permission-deny',
          (p) => codex(p),
          async ({ sessionEvents }) => {
            const req = await live.nextAttention(sessionEvents, taken);
            await live.answer(req.id, ['--deny']);
          },
        );
        expect(d.run.code, d.run.stderr.slice(-2000)).toBe(0);
        const denied = d.sessions[0];
        const decision = await until('the OTel tool_decision', () => otelOf('x.codex.otel.tool_decision', denied)[0], 30_000).finally(dump(denied));
        // Codex 0.169.0 labels a deny its PermissionRequest hook returned (hookmap's answer) source Config; the call then fails
        expect(decision.data).toMatchObject({ decision: 'denied', source: 'config' });
        const failed = await until("the denied call's tool_result", () => otelOf('x.codex.otel.tool_result', denied)[0], 30_000);
        expect(failed.data).toMatchObject({ success: 'false', call_id: decision.data.call_id });
        saveOtel(live.tap.otlp.slice(t0).flatMap((x) => x.records));
      } finally {
        await live.setup(['--otel', '--uninstall'], env);
      }
      expect(readFileSync(config, 'utf8')).not.toContain('hookmap codex-otel');
    },
    240_000,
  );

  it('OTEL primary: with primary on (no hooks counted on), the same failing command is tool.failed on the OTel channel', async () => {
    await live.restartUp(ANSWER_TIMEOUT_MS, { env: { HOOKMAP_CODEX_OTEL_PRIMARY: 'true' } });
    const env = { ...live.agentEnv, CODEX_HOME: codexHome };
    await live.setup(['--otel'], env);
    try {
      const o = await live.play('tool-failure', (p) => codex(p));
      expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
      const session = o.sessions[0];
      const failed = await until(
        'tool.failed on the OTel channel',
        () => live.stream.events.find((e) => e.type === 'tool.failed' && e.session === session && /\/otel\//.test(e.source)),
        30_000,
      );
      expect(failed.data).toMatchObject({ tool: { name: 'exec_command' }, error: { type: 'exit_code_2' } });
      expect(live.stream.events.some((e) => e.type === 'session.started' && e.session === session && /\/otel\//.test(e.source))).toBe(true);
    } finally {
      await live.setup(['--otel', '--uninstall'], env);
    }
  }, 180_000);
});
