// Live: the real Gemini CLI (`gemini -p`) against the scripted
// generateContent API (GOOGLE_GEMINI_BASE_URL, accepted for loopback over
// plain HTTP; `gemini-api-key` auth with any GEMINI_API_KEY), its hooks wired
// by `hookmap setup gemini-cli` into the scratch user settings. Gemini CLI is
// observe-only in hookmap (no hook can grant or deny): the stream is checked,
// and the session must complete with hookmap down.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { run } from './harness.ts';
import { Live, unusedPort } from './live.ts';

const ID = 'gemini-cli';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] ${ID}: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);

const responses = (reqs: { body: any; step?: number }[]) =>
  reqs.filter((r) => r.step !== undefined).flatMap((r) => (r.body?.contents ?? []).flatMap((c: any) => c?.parts ?? [])).filter((p: any) => p?.functionResponse).map((p: any) => JSON.stringify(p.functionResponse.response));

function writeSettings(home: string) {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true }, telemetry: { enabled: false } }, null, 2));
}

describe.skipIf(!!skip)(`${agent.pkg}@${agent.version} live`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'run_shell_command', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));

  const gemini = (prompt: string, env: NodeJS.ProcessEnv = live.agentEnv, cwd = live.s.project) =>
    run(live.bin, ['-p', prompt, '--approval-mode', 'yolo', '--output-format', 'json', '-m', 'gemini-2.5-flash'], {
      cwd,
      timeoutMs: 120_000,
      env: { ...env, GEMINI_API_KEY: 'live-test-not-a-key', GOOGLE_GEMINI_BASE_URL: live.model.url, GEMINI_CLI_NO_RELAUNCH: 'true', NO_BROWSER: '1' },
    });

  beforeAll(async () => {
    await live.start(30_000);
    writeSettings(live.s.home);
    await live.setup(['--user']);
  }, 90_000);

  afterAll(async () => {
    await live.finish(agent.version);
  }, 30_000);

  it('a shell tool call: session, run, tool pair on the stream; valid', async () => {
    const o = await live.play('read-only', (p) => gemini(p));
    expect(o.run.code, `${o.run.stdout.slice(-1500)}\n${o.run.stderr.slice(-2500)}`).toBe(0);
    expect(responses(o.requests).at(-1)).toContain('hello-from-live');
    expect(o.sessions).toHaveLength(1);
    const events = await live.checkSession(o.sessions[0]);
    const types = events.map((e) => e.type);
    for (const t of ['session.started', 'run.started', 'tool.requested', 'tool.completed', 'run.finished']) expect(types).toContain(t);
    expect(types.indexOf('tool.requested')).toBeLessThan(types.indexOf('tool.completed'));
    expect(types.indexOf('run.started')).toBeLessThan(types.indexOf('tool.requested'));
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
    const r = await gemini('Say hello through the shell.', env, project);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.ms).toBeLessThan(45_000);
    expect(responses(live.model.requests.slice(r0)).at(-1)).toContain('hello-from-live');
  }, 120_000);
});
