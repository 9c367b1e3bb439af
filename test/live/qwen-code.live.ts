// Live: the real Qwen Code (`qwen -p`) against the scripted OpenAI Chat
// Completions API (OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL, auth
// type `openai`), its hooks wired by `hookmap setup qwen-code` (native
// `type: "http"` hooks) into the scratch user settings; permission prompts
// answered over the relay with `hookmap answer`.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { command, run, until } from './harness.ts';
import { chatToolMessages, expectTypes, Live, unusedPort } from './live.ts';

const ID = 'qwen-code';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] ${ID}: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);

const ANSWER_TIMEOUT_MS = 30_000;
const SHORT_TIMEOUT_MS = 1_500;
const MODE = process.env.HOOKMAP_LIVE_QWEN_MODE || 'default';

const toolMsgs = chatToolMessages;

function writeSettings(home: string) {
  mkdirSync(join(home, '.qwen'), { recursive: true });
  writeFileSync(
    join(home, '.qwen', 'settings.json'),
    JSON.stringify(
      {
        security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true },
        telemetry: { enabled: false },
      },
      null,
      2,
    ),
  );
}

describe.skipIf(!!skip)(`${agent.pkg}@${agent.version} live`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'run_shell_command', args: { command: cmd, description: `run ${cmd.split(' ')[0]}`, is_background: false } }));

  /** can_use_tool control requests the agent sent its SDK host (the fallback after a neutral hook reply); answered deny. */
  const asked: any[] = [];
  const sdkHost = (line: string, write: (s: string) => void) => {
    let m: any;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m?.type !== 'control_request' || m.request?.subtype !== 'can_use_tool') return;
    asked.push(m);
    write(
      `${JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: m.request_id, response: { behavior: 'deny', message: 'live SDK host: no human here' } } })}\n`,
    );
  };

  // Plain `-p` denies the shell outright ("Matching deny rule"), no hook
  // fires; the SDK's stream-json mode has a permission surface, and
  // PermissionRequest fires there (before PreToolUse).
  const qwen = (prompt: string, env: NodeJS.ProcessEnv = live.agentEnv, cwd = live.s.project, timeoutMs = 120_000, mode = MODE) =>
    run(live.bin, ['--input-format', 'stream-json', '--output-format', 'stream-json', '--approval-mode', mode], {
      cwd,
      timeoutMs,
      input: `${JSON.stringify({ type: 'user', session_id: 'live', message: { role: 'user', content: prompt }, parent_tool_use_id: null })}\n`,
      // a cancelled tool call ends the turn without a result message: the SDK host then hangs up too
      closeStdinWhen: (out) => /"type":"result"/.test(out) || /\[Operation Cancelled\]/.test(out),
      onLine: sdkHost,
      env: { ...env, OPENAI_API_KEY: 'sk-live-test-not-a-key', OPENAI_BASE_URL: `${live.model.url}/v1`, OPENAI_MODEL: 'scripted' },
    });

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    writeSettings(live.s.home);
    await live.setup(['--user']);
  }, 90_000);

  afterAll(async () => {
    await live.finish(agent.version);
  }, 30_000);

  it('permission answered with guidance text: the command does not run and the model receives the text', async () => {
    const GUIDANCE = 'Do not create marker.txt; write notes.md instead (qwen live guidance 5e1b)';
    const taken = new Set<string>();
    const o = await live.play(
      'permission-guidance',
      (p) => qwen(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        expect(req.data).toMatchObject({ kind: 'permission', respond_via: ['control'] });
        await live.answer(req.id, ['--text', GUIDANCE]);
      },
    );
    expect(o.run.code, `${o.run.stdout.slice(-1500)}\n${o.run.stderr.slice(-2500)}`).toBe(0);
    expect(existsSync(join(live.s.project, 'marker.txt'))).toBe(false);
    expect(toolMsgs(o.requests).at(-1)).toContain(GUIDANCE);
    expect(o.sessions).toHaveLength(1);
    const events = await live.checkSession(o.sessions[0]);
    // PermissionRequest comes before PreToolUse in Qwen Code; a denied call never reaches PreToolUse
    expect(o.hooks.map((h) => h.hook)).not.toContain('PreToolUse');
    expectTypes(events, [
      'session.started',
      'run.started',
      'attention.requested',
      'control.accepted',
      'attention.answered',
      'attention.resolved',
      'x.qwen-code.tool.batch',
      'run.finished',
    ]);
  }, 180_000);

  it('permission answered allow: the command runs', async () => {
    const taken = new Set<string>();
    const o = await live.play(
      'permission-allow',
      (p) => qwen(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        await live.answer(req.id, ['--allow']);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(true);
    const events = await live.checkSession(o.sessions[0]);
    expect(events.map((e) => e.type)).toContain('tool.completed');
  }, 180_000);

  it('a read-only command raises no permission request', async () => {
    const o = await live.play('read-only', (p) => qwen(p));
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    expect(o.hooks.map((h) => h.hook)).not.toContain('PermissionRequest');
    expect(toolMsgs(o.requests).at(-1)).toContain('hello-from-live');
    await live.checkSession(o.sessions[0]);
  }, 180_000);

  it("no answer: the attention times out (bounded) and Qwen Code's own fallback decides", async () => {
    await live.restartUp(SHORT_TIMEOUT_MS);
    const before = asked.length;
    // Qwen Code 0.24.4 in stream-json mode does not exit after the cancelled call (stdin closed): bounded at 20 s here
    const o = await live.play('permission-timeout', (p) => qwen(p, live.agentEnv, live.s.project, 20_000));
    if (o.run.timedOut) console.log('[live] qwen-code: after the cancelled call the process did not exit by itself; ended at the 20 s bound');
    expect(o.run.ms).toBeLessThan(30_000);
    // Qwen Code's own fallback after the neutral reply, with no SDK permission callback registered:
    // the call is cancelled ("[Operation Cancelled] ... cancelled by user") and the turn ends
    expect(asked.length).toBe(before);
    expect(o.run.stdout).toContain('[Operation Cancelled]');
    const events = await live.checkSession(o.sessions[0]);
    expect(events.find((e) => e.type === 'attention.timeout').data).toEqual({ after_ms: SHORT_TIMEOUT_MS });
    expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(false);
  }, 180_000);

  it('hookmap down (not started): the session completes normally and quickly', async () => {
    const port = await unusedPort();
    const home = join(live.s.root, 'home-down');
    const project = join(live.s.root, 'project-down');
    mkdirSync(project, { recursive: true });
    writeSettings(home);
    const env = { ...live.baseEnv(`http://127.0.0.1:${port}`), HOME: home, HOOKMAP_HOME: join(live.s.root, 'hookmap-down') };
    await live.setup(['--user'], env);
    live.model.play(live.scenario('read-only'));
    const r0 = live.model.requests.length;
    const r = await qwen('Say hello through the shell.', env, project);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.ms).toBeLessThan(45_000);
    expect(toolMsgs(live.model.requests.slice(r0)).at(-1)).toContain('hello-from-live');
  }, 120_000);

  // --- control beyond answers (issue 12) ------------------------------------------------

  it('STEER: `hookmap steer` while the turn runs; the next eligible hook reply carries it and the model reads it', async () => {
    await live.restartUp(ANSWER_TIMEOUT_MS, { env: { HOOKMAP_QWEN_CODE_INSTRUCT: 'true' } });
    const TEXT = 'Also run the unit tests before you finish (qwen live steer 7d2f)';
    let steered: Awaited<ReturnType<typeof command>> | undefined;
    // yolo: no permission prompt holds the slow command (a held reply never carries an instruction)
    const o = await live.play(
      'steer',
      (p) => qwen(p, live.agentEnv, live.s.project, 120_000, 'yolo'),
      async ({ sessionEvents }) => {
        const started = await until('the run', () => sessionEvents().find((e) => e.type === 'run.started'), 60_000);
        steered = await command(live.up.url, ['steer', started.session, TEXT, '--wait', '30'], live.s);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    expect(steered!.code, steered!.stdout + steered!.stderr).toBe(0);
    expect(steered!.stdout).toMatch(/outcome: x\.qwen-code\.instruction\.delivered/);
    const events = await live.checkSession(o.sessions[0]);
    const delivered = events.find((e) => e.type === 'x.qwen-code.instruction.delivered');
    const main = o.requests.filter((r) => r.step !== undefined);
    const text = (r: { body: any }) => JSON.stringify(r.body?.messages ?? []);
    expect(main.filter((r) => r.at >= Date.parse(delivered.time)).some((r) => text(r).includes(TEXT))).toBe(true);
    expect(main.filter((r) => r.at < Date.parse(delivered.time)).some((r) => text(r).includes(TEXT))).toBe(false);
  }, 180_000);
});
