// Live: the real OpenCode against the scripted OpenAI Chat Completions API
// (a custom provider, @ai-sdk/openai-compatible, in the scratch
// ~/.config/opencode/opencode.json), its plugin installed by
// `hookmap setup opencode` (~/.config/opencode/plugins/hookmap-opencode.js).
// The held ask needs a real server: OpenCode 1.18.33 asks on the bus
// (permission.asked; the permission.ask plugin hook is never called) and
// takes the reply on POST /permission/{id}/reply, which the plugin calls at
// PluginInput.serverUrl. So the control scenarios drive `opencode serve`
// over its HTTP API (POST /session, POST /session/{id}/message: a
// non-interactive prompt); `opencode run` (which auto-rejects every ask
// itself) is the fallback case and the hookmap-down case.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { steerIdle } from './next-turn.ts';
import { sleep, until } from './harness.ts';
import { Live, chatToolMessages, unusedPort } from './live.ts';
import { served } from './serve-session.ts';

const ID = 'opencode';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] ${ID}: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);

const ANSWER_TIMEOUT_MS = 30_000;
const SHORT_TIMEOUT_MS = 1_500;

class OpenCodeLive extends Live {
  sessionOf(b: any): string | undefined {
    const p = b?.event?.properties;
    return (
      p?.sessionID ??
      p?.info?.sessionID ??
      (b?.event?.type?.startsWith('session.') ? p?.info?.id : undefined) ??
      b?.permission?.sessionID ??
      b?.input?.sessionID
    );
  }
}

const toolMsgs = chatToolMessages;

function writeConfig(home: string, modelUrl: string, bash: 'ask' | 'allow') {
  const dir = join(home, '.config', 'opencode');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'opencode.json'),
    JSON.stringify(
      {
        $schema: 'https://opencode.ai/config.json',
        autoupdate: false,
        share: 'disabled',
        provider: {
          scripted: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Scripted',
            options: { baseURL: `${modelUrl}/v1`, apiKey: 'sk-live-test-not-a-key' },
            models: { scripted: { name: 'scripted', tool_call: true } },
          },
        },
        model: 'scripted/scripted',
        small_model: 'scripted/scripted',
        permission: { bash, edit: 'ask' },
      },
      null,
      2,
    ),
  );
}

const QUIET = { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' };

describe.skipIf(!!skip)(`${agent.pkg}@${agent.version} live`, () => {
  const live = new OpenCodeLive(ID, (cmd) => ({ tool: 'bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));
  const srv = served(live, 'opencode', QUIET);
  const { api, prompt } = srv;
  const opencodeRun = srv.oneShot;

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    live.agentEnv = { ...live.agentEnv, ...QUIET };
    writeConfig(live.s.home, live.model.url, 'ask');
    await live.setup(['--user']);
    await srv.start();
  }, 90_000);

  afterAll(async () => {
    await srv.stop();
    await live.finish(agent.version);
  }, 30_000);

  const core = (events: any[]) => events.map((e) => e.type).filter((t) => !t.startsWith('x.') && t !== 'progress.status');

  it('permission (bus permission.asked, held) answered allow over the relay: the command runs; the session stream', async () => {
    const taken = new Set<string>();
    const o = await live.play(
      'permission-allow',
      (p) => prompt(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        expect(req.subject).toBe('bash');
        expect(req.data).toMatchObject({ kind: 'permission', prompt: 'Permission requested: bash — touch allowed.txt', respond_via: ['control'] });
        await live.answer(req.id, ['--allow']);
      },
    );
    expect(o.run.code, `${o.run.stdout.slice(-1500)}\n${o.run.stderr}`).toBe(0);
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
    ]);
    const req = events.find((e) => e.type === 'tool.requested');
    expect(events.find((e) => e.type === 'tool.completed').data.tool.call_id).toBe(req.data.tool.call_id);
    expect(events.find((e) => e.type === 'session.started').data.client).toEqual({ name: 'opencode', version: agent.version });
    expect(o.hooks.map((h) => h.body?.kind)).not.toContain('permission.ask');
  }, 180_000);

  it('answered deny: the command does not run; OpenCode halts the loop and the tool part carries the rejection', async () => {
    const taken = new Set<string>();
    const o = await live.play(
      'permission-deny',
      (p) => prompt(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        await live.answer(req.id, ['--deny']);
      },
    );
    expect(o.run.code, o.run.stdout.slice(-1500)).toBe(0);
    expect(existsSync(join(live.s.project, 'denied.txt'))).toBe(false);
    // a plain reject halts OpenCode's loop: the model is not called again; the tool part carries the rejection
    expect(o.requests.filter((r) => r.step !== undefined).map((r) => r.step)).toEqual([0]);
    const parts = await api('GET', `/session/${o.sessions[0]}/message`);
    const tool = parts
      .json()
      .flatMap((m: any) => m.parts)
      .find((p: any) => p.type === 'tool');
    expect(tool.state).toMatchObject({ status: 'error', error: 'The user rejected permission to use this specific tool call.' });
    const events = await live.checkSession(o.sessions[0]);
    expect(core(events)).not.toContain('tool.completed');
    expect(core(events)).toContain('attention.resolved');
  }, 180_000);

  it('answered with guidance text: the command does not run and the model receives the text as the rejection feedback', async () => {
    const GUIDANCE = 'Do not create marker.txt; write notes.md instead (opencode live guidance 2b7e)';
    const taken = new Set<string>();
    const o = await live.play(
      'permission-guidance',
      (p) => prompt(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        await live.answer(req.id, ['--text', GUIDANCE]);
      },
    );
    expect(o.run.code, o.run.stdout.slice(-1500)).toBe(0);
    expect(existsSync(join(live.s.project, 'marker.txt'))).toBe(false);
    expect(toolMsgs(o.requests).at(-1)).toBe(`The user rejected permission to use this specific tool call with the following feedback: ${GUIDANCE}`);
    await live.checkSession(o.sessions[0]);
  }, 180_000);

  it("no answer: the attention times out (bounded); OpenCode's own ask stays pending (its prompt decides): aborted here, the tool never runs", async () => {
    await live.restartUp(SHORT_TIMEOUT_MS);
    let sid = '';
    const o = await live.play(
      'permission-timeout',
      (p) => prompt(p, { onSession: (id) => (sid = id), timeoutMs: 60_000 }),
      async ({ sessionEvents }) => {
        await until('attention.timeout', () => sessionEvents().find((e) => e.type === 'attention.timeout'), 30_000);
        // the neutral reply applied nothing: OpenCode still waits for its own prompt (no server-side fallback)
        await sleep(1_500);
        expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(false);
        const pending = (await api('GET', '/permission')).json();
        expect(pending.map((p: any) => p.sessionID)).toContain(sid);
        // the person at OpenCode's own prompt presses Esc: the session is aborted
        expect((await api('POST', `/session/${sid}/abort`)).status).toBe(200);
      },
    );
    expect(o.run.ms).toBeLessThan(60_000);
    expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(false);
    const events = await live.checkSession(o.sessions[0]);
    expect(events.find((e) => e.type === 'attention.timeout').data).toEqual({ after_ms: SHORT_TIMEOUT_MS });
    expect(core(events)).not.toContain('tool.completed');
    await live.restartUp(ANSWER_TIMEOUT_MS);
  }, 180_000);

  it('`opencode run` (its own fallback: every ask auto-rejected at once): bounded, the tool never runs', async () => {
    const o = await live.play('permission-timeout', (p) => opencodeRun(p, live.agentEnv, live.s.project));
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(0);
    expect(o.run.ms).toBeLessThan(60_000);
    expect(o.run.stderr).toContain('auto-rejecting');
    expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(false);
  }, 180_000);

  it('hookmap down (not started): `opencode run` completes normally and quickly', async () => {
    const port = await unusedPort();
    const home = join(live.s.root, 'home-down');
    const project = join(live.s.root, 'project-down');
    mkdirSync(project, { recursive: true });
    writeConfig(home, live.model.url, 'allow');
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
    const r = await opencodeRun('Create the file down.txt and say hello.', env, project);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.ms).toBeLessThan(45_000);
    expect(existsSync(join(project, 'down.txt'))).toBe(true);
    expect(toolMsgs(live.model.requests.slice(r0)).join('\n')).toContain('hello-while-down');
  }, 120_000);

  // issue 29: the plugin's next-turn carrier (client.session.promptAsync) wakes an idle session
  it('NEXT TURN: a session idle after its turn is woken by `hookmap steer`: a new turn whose first model request has the text', async () => {
    await live.restartUp(ANSWER_TIMEOUT_MS, { env: { HOOKMAP_OPENCODE_INSTRUCT: 'true', HOOKMAP_OPENCODE_NEXT_TURN: 'true' } });
    const sc = live.scenario('next-turn-idle');
    live.model.play(sc);
    const first = await prompt(sc.prompt);
    expect(first.code, first.stdout.slice(-1500)).toBe(0);
    const session = first.session;
    const mine = () => live.stream.events.filter((e) => e.session === session);
    const text = 'Now write the release notes (live next-turn, idle opencode)';
    await steerIdle(live, { agent: 'opencode', session, text, mine, diag: () => `serve: ${first.stderr.slice(-1500)}` });
    const end = await api('DELETE', `/session/${session}`);
    expect(end.status).toBe(200);
    await until('the waiter released at the session end', () => live.up.stderr().includes(`next-turn waiter of session ${session} released`), 15_000);
  }, 240_000);

  it('NEXT TURN on: `opencode run` still exits at its end (as fast as with the carrier off)', async () => {
    const once = async (on: boolean) => {
      await live.restartUp(ANSWER_TIMEOUT_MS, { env: on ? { HOOKMAP_OPENCODE_INSTRUCT: 'true', HOOKMAP_OPENCODE_NEXT_TURN: 'true' } : {} });
      live.model.play(live.scenario('next-turn-idle'));
      const h0 = live.tap.hooks.length;
      const r = await opencodeRun('Say hello, then wait for my next message.', live.agentEnv, live.s.project, 60_000);
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      const idle = live.tap.hooks.slice(h0).find((h) => h.body?.event?.type === 'session.idle');
      const session = idle?.body.event.properties.sessionID;
      await sleep(2_000);
      const said = (w: string) => !!session && live.up.stderr().includes(`next-turn waiter of session ${session} ${w}`);
      console.log(
        `[live] opencode run, carrier ${on ? 'on' : 'off'}: exit ${r.code} after ${r.ms} ms; session.idle reached the daemon: ${!!idle}; ` +
          `a waiter waited there: ${said('waiting')}; released: ${said('released')}`,
      );
      return r.ms;
    };
    const off = await once(false);
    const on = await once(true);
    expect(on).toBeLessThan(Math.max(45_000, off * 2));
  }, 180_000);
});
