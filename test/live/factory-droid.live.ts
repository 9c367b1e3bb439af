// Live: the real Factory Droid (`droid exec -m custom:scripted`, the
// @factory/cli-linux-x64 platform binary) with no account: a legacy
// ~/.factory/config.json `custom_models` entry (provider
// generic-chat-completion-api) points at the scripted Chat Completions model.
// Its hooks are wired by `hookmap setup factory-droid` into the scratch
// ~/.factory/settings.json. The PreToolUse gate is opt-in
// (HOOKMAP_FACTORY_DROID_GATE=true in `hookmap up`'s environment): held and
// answered over the relay with `hookmap answer`; a deny (and text, a deny
// with the text as its reason) is Droid's permissionDecision deny, which the
// model reads as the tool's error. `droid exec` fires no UserPromptSubmit:
// no run opens. Droid's Execute tool needs the model's riskLevel and
// riskLevelReason, else it rejects the call before any hook fires.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { run } from './harness.ts';
import { Live, unusedPort, chatToolMessages } from './live.ts';

const ID = 'factory-droid';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] ${ID}: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);

const ANSWER_TIMEOUT_MS = 30_000;
const SHORT_TIMEOUT_MS = 1_500;
const GATE = { HOOKMAP_FACTORY_DROID_GATE: 'true' };

describe.skipIf(!!skip)(`${agent.pkg}@${agent.version} live`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'Execute', args: { command: cmd, riskLevelReason: 'a small local change', riskLevel: 'low' } }));

  /** The custom model in the scratch HOME's legacy config.json (Droid merges it with settings.json's customModels). */
  const modelConfig = (home: string) => {
    mkdirSync(join(home, '.factory'), { recursive: true });
    const entry = { model: 'scripted', model_display_name: 'scripted', base_url: `${live.model.url}/v1`, api_key: 'sk-live-test-not-a-key' };
    const doc = { custom_models: [{ ...entry, provider: 'generic-chat-completion-api', max_tokens: 4096 }] };
    writeFileSync(join(home, '.factory', 'config.json'), `${JSON.stringify(doc, null, 2)}\n`);
  };
  const droid = (prompt: string, o: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}) =>
    run(live.bin, ['exec', '-m', 'custom:scripted', '-o', 'json', prompt], {
      cwd: o.cwd ?? live.s.project,
      env: o.env ?? live.agentEnv,
      timeoutMs: o.timeoutMs ?? 120_000,
    });

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    await live.restartUp(ANSWER_TIMEOUT_MS, { env: GATE });
    modelConfig(live.s.home);
    await live.setup(['--user']);
  }, 90_000);

  afterAll(async () => {
    await live.finish(agent.version);
  }, 30_000);

  const core = (events: any[]) => events.map((e) => e.type).filter((t) => !t.startsWith('x.'));

  it('setup wrote the hooks into ~/.factory/settings.json: command handlers running the sh shim, 60 s', () => {
    const doc = JSON.parse(readFileSync(join(live.s.home, '.factory/settings.json'), 'utf8'));
    expect(Object.keys(doc.hooks).sort()).toEqual(['Notification', 'PostToolUse', 'PreToolUse', 'SessionEnd', 'SessionStart', 'Stop', 'UserPromptSubmit']);
    const h = doc.hooks.PreToolUse[0].hooks[0];
    expect(h).toMatchObject({ type: 'command', timeout: 60 });
    expect(h.command).toContain('shims/factory-droid.sh PreToolUse');
  });

  it('the gate held, answered allow over the relay: the command runs; session and tool pair on the stream', async () => {
    const taken = new Set<string>();
    const o = await live.play(
      'permission-allow',
      (p) => droid(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        expect(req.subject).toBe('Execute');
        expect(req.data).toMatchObject({ kind: 'permission', prompt: 'Tool call: Execute — touch allowed.txt', respond_via: ['control'] });
        await live.answer(req.id, ['--allow']);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-1500)).toBe(0);
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(true);
    expect(o.sessions).toHaveLength(1);
    const events = await live.checkSession(o.sessions[0]);
    expect(core(events)).toEqual([
      'session.started',
      'tool.requested',
      'attention.requested',
      'control.accepted',
      'attention.answered',
      'attention.resolved',
      'tool.completed',
      'session.ended',
    ]);
    expect(events.find((e) => e.type === 'session.started').data.client).toEqual({ name: 'factory-droid' });
    expect(o.hooks.map((h) => h.hook)).toEqual(['SessionStart', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd']);
  }, 180_000);

  it("answered allow on a call Droid itself refuses (rated high): still refused: the gate's allow is no objection, never Droid's allow", async () => {
    const high = { tool: 'Execute', args: { command: 'touch high.txt', riskLevelReason: 'rated high on purpose', riskLevel: 'high' } };
    live.model.play({ name: 'gate-allow-high-risk', steps: [high, { say: 'Refused, as expected.' }] });
    const h0 = live.tap.hooks.length;
    const run = droid('Create the file high.txt.');
    const taken = new Set<string>();
    const sessionEvents = () => live.stream.events.filter((e) => live.tap.hooks.slice(h0).some((h) => live.sessionOf(h.body) === e.session));
    const req = await live.nextAttention(sessionEvents, taken);
    await live.answer(req.id, ['--allow']);
    const h = await run;
    expect(existsSync(join(live.s.project, 'high.txt'))).toBe(false);
    expect(h.code, h.stderr.slice(-1500)).toBe(1);
    expect(h.stdout).toContain('insufficient permission to proceed');
  }, 180_000);

  it('answered deny: the command does not run; the model reads the deny reason as the tool error', async () => {
    const taken = new Set<string>();
    const o = await live.play(
      'permission-deny',
      (p) => droid(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        await live.answer(req.id, ['--deny']);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-1500)).toBe(0);
    expect(existsSync(join(live.s.project, 'denied.txt'))).toBe(false);
    expect(chatToolMessages(o.requests).at(-1)).toBe('Error: Denied via hookmap attention loop');
    const events = await live.checkSession(o.sessions[0]);
    expect(core(events)).not.toContain('tool.completed');
    expect(core(events)).toContain('tool.denied');
  }, 180_000);

  it('answered with guidance text: the command does not run and the model receives the text', async () => {
    const GUIDANCE = 'Do not create marker.txt; write notes.md instead (droid live guidance 7e2a)';
    const taken = new Set<string>();
    const o = await live.play(
      'permission-guidance',
      (p) => droid(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        await live.answer(req.id, ['--text', GUIDANCE]);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-1500)).toBe(0);
    expect(existsSync(join(live.s.project, 'marker.txt'))).toBe(false);
    expect(chatToolMessages(o.requests).at(-1)).toBe(`Error: ${GUIDANCE}`);
    await live.checkSession(o.sessions[0]);
  }, 180_000);

  it("no answer: the attention times out (bounded) and the gate raises no objection: Droid's own autonomy level decides (it runs)", async () => {
    await live.restartUp(SHORT_TIMEOUT_MS, { env: GATE });
    const o = await live.play('permission-timeout', (p) => droid(p));
    expect(o.run.code, o.run.stderr.slice(-1500)).toBe(0);
    expect(o.run.ms).toBeLessThan(60_000);
    const events = await live.checkSession(o.sessions[0]);
    expect(events.find((e) => e.type === 'attention.timeout').data).toEqual({ after_ms: SHORT_TIMEOUT_MS });
    expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(true);
    await live.restartUp(ANSWER_TIMEOUT_MS, { env: GATE });
  }, 180_000);

  it('hookmap down (not started): `droid exec` completes normally and quickly (the neutral reply leaves its own flow)', async () => {
    const port = await unusedPort();
    const home = join(live.s.root, 'home-down');
    const project = join(live.s.root, 'project-down');
    mkdirSync(project, { recursive: true });
    const env = {
      ...live.baseEnv(`http://127.0.0.1:${port}`),
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local/share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local/state'),
      HOOKMAP_HOME: join(live.s.root, 'hookmap-down'),
    };
    modelConfig(home);
    await live.setup(['--user'], env);
    live.model.play(live.scenario('hookmap-down'));
    const r0 = live.model.requests.length;
    const r = await droid('Create the file down.txt and say hello.', { env, cwd: project });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.ms).toBeLessThan(45_000);
    expect(existsSync(join(project, 'down.txt'))).toBe(true);
    expect(chatToolMessages(live.model.requests.slice(r0)).join('\n')).toContain('hello-while-down');
    // a call Droid itself refuses in exec's default autonomy (the model rates it high) stays refused: the neutral reply
    // approves nothing (Droid ends the exec, exit 1, without a second model request)
    const high = { tool: 'Execute', args: { command: 'touch high.txt', riskLevelReason: 'rated high on purpose', riskLevel: 'high' } };
    live.model.play({ name: 'down-high-risk', steps: [high, { say: 'Refused, as expected.' }] });
    const h = await droid('Create the file high.txt.', { env, cwd: project });
    expect(h.ms).toBeLessThan(45_000);
    expect(existsSync(join(project, 'high.txt'))).toBe(false);
    expect(h.code, h.stderr.slice(-1500)).toBe(1);
    expect(h.stdout).toContain('insufficient permission to proceed');
  }, 150_000);
});
