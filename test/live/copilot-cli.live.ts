// Live: the real GitHub Copilot CLI (`copilot -p ... --output-format json`)
// with no login: COPILOT_OFFLINE=true and a BYOK provider pointed at the
// scripted OpenAI Chat Completions API (`copilot help providers`). Its hooks
// are wired by `hookmap setup copilot-cli` into the scratch
// ~/.copilot/hooks/hookmap.json (always loaded). permissionRequest is held
// and answered over the relay with `hookmap answer`; its reply decides
// ({behavior: allow | deny, message}). Without --allow-all-tools and
// without an answer, the CLI's own rule refuses in -p mode.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { run } from './harness.ts';
import { Live, unusedPort, chatToolMessages } from './live.ts';

const ID = 'copilot-cli';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] ${ID}: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);

const ANSWER_TIMEOUT_MS = 30_000;
const SHORT_TIMEOUT_MS = 1_500;
const toolMsgs = chatToolMessages;

describe.skipIf(!!skip)(`${agent.pkg}@${agent.version} live`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));

  const offline = (env: NodeJS.ProcessEnv) => ({
    ...env,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${live.model.url}/v1`,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_API_KEY: 'sk-live-test-not-a-key',
    COPILOT_MODEL: 'scripted',
    COPILOT_AUTO_UPDATE: 'false',
  });
  const copilot = (prompt: string, o: { env?: NodeJS.ProcessEnv; cwd?: string; allowAll?: boolean; timeoutMs?: number } = {}) =>
    run(live.bin, ['-p', prompt, '--output-format', 'json', ...(o.allowAll ? ['--allow-all-tools'] : [])], {
      cwd: o.cwd ?? live.s.project,
      env: offline(o.env ?? live.agentEnv),
      timeoutMs: o.timeoutMs ?? 120_000,
    });

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    await live.setup(['--user']);
  }, 60_000);

  afterAll(async () => {
    await live.finish(agent.version);
  }, 30_000);

  const core = (events: any[]) => events.map((e) => e.type).filter((t) => !t.startsWith('x.'));

  it('setup wrote the Copilot CLI hooks file: version 1, bash + powershell, timeoutSec', () => {
    const doc = JSON.parse(readFileSync(join(live.s.home, '.copilot/hooks/hookmap.json'), 'utf8'));
    expect(doc.version).toBe(1);
    expect(Object.keys(doc.hooks).sort()).toEqual([
      'agentStop',
      'permissionRequest',
      'postToolUse',
      'preToolUse',
      'sessionEnd',
      'sessionStart',
      'userPromptSubmitted',
    ]);
    const h = doc.hooks.preToolUse[0];
    expect(h).toMatchObject({ type: 'command', timeoutSec: 60 });
    expect(h.bash).toContain('shims/copilot-cli.sh preToolUse');
    expect(h.powershell).toBe(h.bash);
  });

  it('permissionRequest held, answered allow over the relay: the command runs; session, run, tool pair on the stream', async () => {
    const taken = new Set<string>();
    const o = await live.play(
      'permission-allow',
      (p) => copilot(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        expect(req.subject).toBe('bash');
        expect(req.data).toMatchObject({ kind: 'permission', prompt: 'Permission requested: bash — touch allowed.txt', respond_via: ['control'] });
        await live.answer(req.id, ['--allow']);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-1500)).toBe(0);
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(true);
    expect(o.sessions).toHaveLength(1);
    const events = await live.checkSession(o.sessions[0]);
    expect(core(events)).toEqual([
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
    expect(events.find((e) => e.type === 'session.started').data.client).toEqual({ name: 'copilot-cli' });
    expect(o.hooks.map((h) => h.hook)).toEqual([
      'sessionStart',
      'userPromptSubmitted',
      'preToolUse',
      'permissionRequest',
      'postToolUse',
      'agentStop',
      'sessionEnd',
    ]);
  }, 180_000);

  it('answered deny: the command does not run; the model reads the deny message', async () => {
    const taken = new Set<string>();
    const o = await live.play(
      'permission-deny',
      (p) => copilot(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        await live.answer(req.id, ['--deny']);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-1500)).toBe(0);
    expect(existsSync(join(live.s.project, 'denied.txt'))).toBe(false);
    expect(toolMsgs(o.requests).at(-1)).toBe('Permission denied by a PermissionRequest hook: Denied via hookmap attention loop');
    const events = await live.checkSession(o.sessions[0]);
    expect(core(events)).not.toContain('tool.completed');
    expect(core(events)).toContain('attention.resolved');
  }, 180_000);

  it('answered with guidance text: the command does not run and the model receives the text', async () => {
    const GUIDANCE = 'Do not create marker.txt; write notes.md instead (copilot live guidance 5c1d)';
    const taken = new Set<string>();
    const o = await live.play(
      'permission-guidance',
      (p) => copilot(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        await live.answer(req.id, ['--text', GUIDANCE]);
      },
    );
    expect(o.run.code, o.run.stderr.slice(-1500)).toBe(0);
    expect(existsSync(join(live.s.project, 'marker.txt'))).toBe(false);
    expect(toolMsgs(o.requests).at(-1)).toBe(`Permission denied by a PermissionRequest hook: ${GUIDANCE}`);
    await live.checkSession(o.sessions[0]);
  }, 180_000);

  it("no answer: the attention times out (bounded) and the CLI's own rule decides (-p without --allow-all-tools refuses)", async () => {
    await live.restartUp(SHORT_TIMEOUT_MS);
    const o = await live.play('permission-timeout', (p) => copilot(p));
    expect(o.run.code, o.run.stderr.slice(-1500)).toBe(0);
    expect(o.run.ms).toBeLessThan(60_000);
    expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(false);
    expect(toolMsgs(o.requests).at(-1)).toContain('Permission denied because no interactive user response was available');
    const events = await live.checkSession(o.sessions[0]);
    expect(events.find((e) => e.type === 'attention.timeout').data).toEqual({ after_ms: SHORT_TIMEOUT_MS });
    expect(core(events)).not.toContain('tool.completed');
    await live.restartUp(ANSWER_TIMEOUT_MS);
  }, 180_000);

  it('hookmap down (not started): `copilot -p --allow-all-tools` completes normally and quickly', async () => {
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
    await live.setup(['--user'], env);
    live.model.play(live.scenario('hookmap-down'));
    const r0 = live.model.requests.length;
    const r = await copilot('Create the file down.txt and say hello.', { env, cwd: project, allowAll: true });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.ms).toBeLessThan(45_000);
    expect(existsSync(join(project, 'down.txt'))).toBe(true);
    expect(toolMsgs(live.model.requests.slice(r0)).join('\n')).toContain('hello-while-down');
  }, 120_000);
});
