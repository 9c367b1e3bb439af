// Live: the real Gemini CLI (`gemini -p`) against the scripted
// generateContent API (GOOGLE_GEMINI_BASE_URL, accepted for loopback over
// plain HTTP; `gemini-api-key` auth with any GEMINI_API_KEY), its hooks wired
// by `hookmap setup gemini-cli` into the scratch user settings. Gemini CLI is
// observe-only in hookmap (no hook can grant or deny): the stream is checked,
// and the session must complete with hookmap down.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  reqs
    .filter((r) => r.step !== undefined)
    .flatMap((r) => (r.body?.contents ?? []).flatMap((c: any) => c?.parts ?? []))
    .filter((p: any) => p?.functionResponse)
    .map((p: any) => JSON.stringify(p.functionResponse.response));

function writeSettings(home: string) {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify(
      {
        security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        telemetry: { enabled: false },
      },
      null,
      2,
    ),
  );
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

  // Gemini CLI is observe-only: its daemon declares no control.attention.respond, so the
  // ask cannot be answered over the relay (yet); what is proven live here is the wiring:
  // setup --mcp's entry in the same settings.json as the hooks starts the server, the
  // model's call becomes attention.requested in Gemini's own session, and the
  // unanswered ask comes back to the model when its wait ends.
  it(
    'ASK_HUMAN: `hookmap setup gemini-cli --mcp` adds the server to the same settings.json as ' +
      "the hooks; the model's call reaches hookmap as attention.requested in its session; the " +
      'unanswered ask returns to the model',
    async () => {
      const wired = await live.setup(['--user', '--mcp']);
      const settings = join(live.s.home, '.gemini', 'settings.json');
      expect(wired).toMatch(new RegExp(`the hookmap MCP server "hookmap" (is )?registered in ${settings.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      const doc = JSON.parse(readFileSync(settings, 'utf8'));
      expect(doc.mcpServers.hookmap).toEqual({
        timeout: 3600000,
        command: join(live.s.hookmapHome, 'bin', 'hookmap'),
        args: ['mcp', '--agent', 'gemini-cli', '--url', live.agentEnv.HOOKMAP_URL],
        env: { HOOKMAP_HOME: live.s.hookmapHome },
      });
      expect(Object.keys(doc.hooks ?? {}).length).toBeGreaterThan(0);
      expect(doc.security).toEqual({ auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } });
      const taken = new Set<string>();
      let req: any;
      const o = await live.play(
        'ask-human-gemini',
        (p) => gemini(p),
        async ({ sessionEvents }) => {
          req = await live.nextAttention(sessionEvents, taken);
        },
      );
      expect(o.run.code, `${o.run.stdout.slice(-1500)}\n${o.run.stderr.slice(-2500)}`).toBe(0);
      expect(req.data).toMatchObject({ kind: 'input', prompt: 'Deploy the release to production now?' });
      expect(o.sessions).toContain(req.session);
      expect(responses(o.requests).at(-1)).toContain('No human answered');
      const events = await live.checkSession(o.sessions[0]);
      // the ask's own wait (3 s) ends it: attention.timeout for that request, in the same session
      expect(events.filter((e) => e.type.startsWith('attention.')).map((e) => [e.type, e.subject ?? null])).toEqual([
        ['attention.requested', null],
        ['attention.timeout', req.id],
      ]);
    },
    180_000,
  );

  it("ASK_HUMAN answered: the model's ask on an observe-only agent is answered with `hookmap answer --text`; the model receives the text", async () => {
    const ANSWER = 'Hold the deploy until Monday (gemini live ask 3b9c)';
    const taken = new Set<string>();
    let req: any;
    let answered: Awaited<ReturnType<typeof live.answer>> | undefined;
    const o = await live.play(
      'ask-human-gemini-answered',
      (p) => gemini(p),
      async ({ sessionEvents }) => {
        req = await live.nextAttention(sessionEvents, taken);
        answered = await live.answer(req.id, ['--text', ANSWER]);
      },
    );
    expect(o.run.code, `${o.run.stdout.slice(-1500)}\n${o.run.stderr.slice(-2500)}`).toBe(0);
    expect(req.data).toMatchObject({ kind: 'input', prompt: 'Deploy the release to production now?' });
    expect(answered).toBeDefined();
    expect(responses(o.requests).at(-1)).toContain(ANSWER);
    const events = await live.checkSession(o.sessions[0]);
    expect(events.filter((e) => e.type.startsWith('attention.')).map((e) => [e.type, e.subject ?? null])).toEqual([
      ['attention.requested', null],
      ['attention.answered', req.id],
      ['attention.resolved', req.id],
    ]);
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
