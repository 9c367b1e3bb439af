// Live: the real Kilo Code CLI (an OpenCode fork; the platform package
// @kilocode/cli-linux-x64 7.7.9, its bin/kilo) against the scripted OpenAI
// Chat Completions API (a custom provider, @ai-sdk/openai-compatible, in the
// scratch ~/.config/kilo/kilo.json), its plugin installed by `hookmap setup
// kilocode` (~/.config/kilo/plugin/hookmap-kilocode.js). The held ask needs a
// real server: Kilo asks on the bus (permission.asked) and takes the reply on
// its server route, which the plugin calls at PluginInput.serverUrl. So the
// control scenarios drive `kilo serve` over its HTTP API (POST /session, POST
// /session/{id}/message); `kilo run` (which auto-rejects every ask itself
// and then exits 1: "pass --auto") is the fallback case, `kilo run --auto`
// the hookmap-down case.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { steerIdle } from './next-turn.ts';
import { sleep, until } from './harness.ts';
import { Live, chatToolMessages, unusedPort } from './live.ts';
import { served } from './serve-session.ts';

const ID = 'kilocode';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] ${ID}: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);

const ANSWER_TIMEOUT_MS = 30_000;
const SHORT_TIMEOUT_MS = 1_500;

class KiloLive extends Live {
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
  const dir = join(home, '.config', 'kilo');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'kilo.json'),
    JSON.stringify(
      {
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

const QUIET = {
  KILO_DISABLE_MODELS_FETCH: '1',
  KILO_DISABLE_AUTOUPDATE: '1',
  KILO_DISABLE_SHARE: '1',
  KILO_DISABLE_LSP_DOWNLOAD: '1',
  KILO_TELEMETRY_DISABLED: '1',
};

describe.skipIf(!!skip)(`${agent.pkg}@${agent.version} live`, () => {
  const live = new KiloLive(ID, (cmd) => ({ tool: 'bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));
  const srv = served(live, 'kilo', QUIET);
  const { api, prompt } = srv;
  const kiloRun = srv.oneShot;

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
        // Kilo's reply enum verbatim: once / always / reject (--allow and --deny are not its options)
        await live.answer(req.id, ['--option', 'once']);
      },
    );
    expect(o.run.code, `${o.run.stdout.slice(-1500)}\n${o.run.stderr}`).toBe(0);
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(true);
    expect(o.sessions).toHaveLength(1);
    const events = await live.checkSession(o.sessions[0]);
    const order = [
      'session.started',
      'run.started',
      'tool.requested',
      'attention.requested',
      'control.accepted',
      'attention.answered',
      'attention.resolved',
      'tool.completed',
      'run.finished',
    ];
    expect(
      core(events)
        .filter((t) => order.includes(t))
        .slice(0, order.length),
    ).toEqual(order);
    const req = events.find((e) => e.type === 'tool.requested');
    expect(events.find((e) => e.type === 'tool.completed').data.tool.call_id).toBe(req.data.tool.call_id);
    expect(events.find((e) => e.type === 'session.started').data.client).toEqual({ name: 'kilocode', version: agent.version });
    expect(o.hooks.map((h) => h.body?.kind)).not.toContain('permission.ask');
  }, 180_000);

  it('answered deny: the command does not run; Kilo halts the loop and the tool part carries the rejection', async () => {
    const taken = new Set<string>();
    const o = await live.play(
      'permission-deny',
      (p) => prompt(p),
      async ({ sessionEvents }) => {
        const req = await live.nextAttention(sessionEvents, taken);
        // Kilo's reply enum verbatim (once / always / reject): --deny is not one of its options
        await live.answer(req.id, ['--option', 'reject']);
      },
    );
    expect(o.run.code, o.run.stdout.slice(-1500)).toBe(0);
    expect(existsSync(join(live.s.project, 'denied.txt'))).toBe(false);
    // a plain reject halts Kilo's loop: the model is not called again; the tool part carries the rejection
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

  it(
    'answered with guidance text: the command does not run; Kilo 7.7.9 applies the reject but ' + 'drops the text (the pinned route takes no message)',
    async () => {
      const GUIDANCE = 'Do not create marker.txt; write notes.md instead (kilo live guidance 7c3a)';
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
      // unlike OpenCode, Kilo halts the loop on this reject: the model is not called again
      expect(o.requests.filter((r) => r.step !== undefined).map((r) => r.step)).toEqual([0]);
      const parts = await api('GET', `/session/${o.sessions[0]}/message`);
      const tool = parts
        .json()
        .flatMap((m: any) => m.parts)
        .find((p: any) => p.type === 'tool');
      expect(tool.state).toMatchObject({ status: 'error', error: 'The user rejected permission to use this specific tool call.' });
      const events = await live.checkSession(o.sessions[0]);
      expect(events.find((e) => e.type === 'attention.answered').data.answer).toEqual({ option: 'reject', text: GUIDANCE });
    },
    180_000,
  );

  it("no answer: the attention times out (bounded); Kilo's own ask stays pending (its prompt decides): aborted here, the tool never runs", async () => {
    await live.restartUp(SHORT_TIMEOUT_MS);
    let sid = '';
    const o = await live.play(
      'permission-timeout',
      (p) => prompt(p, { onSession: (id) => (sid = id), timeoutMs: 60_000 }),
      async ({ sessionEvents }) => {
        await until('attention.timeout', () => sessionEvents().find((e) => e.type === 'attention.timeout'), 30_000);
        // the neutral reply applied nothing: Kilo still waits for its own prompt (no server-side fallback)
        await sleep(1_500);
        expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(false);
        const pending = (await api('GET', '/permission')).json();
        expect(pending.map((p: any) => p.sessionID)).toContain(sid);
        // the person at Kilo's own prompt presses Esc: the session is aborted
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

  it('`kilo run` (its own fallback: every ask auto-rejected at once): bounded, the tool never runs', async () => {
    const o = await live.play('permission-timeout', (p) => kiloRun(p, live.agentEnv, live.s.project));
    // unlike `opencode run`, `kilo run` then exits 1
    expect(o.run.code, o.run.stderr.slice(-2000)).toBe(1);
    expect(o.run.ms).toBeLessThan(60_000);
    expect(o.run.stderr).toContain('auto-rejecting');
    expect(o.run.stderr).toContain('pass --auto');
    expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(false);
  }, 180_000);

  it('hookmap down (not started): `kilo run` (bash allowed) completes normally and quickly', async () => {
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
    const r = await kiloRun('Create the file down.txt and say hello.', env, project);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.ms).toBeLessThan(45_000);
    expect(existsSync(join(project, 'down.txt'))).toBe(true);
    expect(toolMsgs(live.model.requests.slice(r0)).join('\n')).toContain('hello-while-down');
  }, 120_000);
  // issue 29: the plugin's next-turn carrier (client.session.promptAsync) wakes an idle session
  it('NEXT TURN: a session idle after its turn is woken by `hookmap steer`: a new turn whose first model request has the text', async () => {
    await live.restartUp(ANSWER_TIMEOUT_MS, { env: { HOOKMAP_KILOCODE_INSTRUCT: 'true', HOOKMAP_KILOCODE_NEXT_TURN: 'true' } });
    const sc = live.scenario('next-turn-idle');
    live.model.play(sc);
    const first = await prompt(sc.prompt);
    expect(first.code, first.stdout.slice(-1500)).toBe(0);
    const session = first.session;
    const mine = () => live.stream.events.filter((e) => e.session === session);
    // Kilo Code re-publishes the user message after session.idle (the descriptor's first-sight rule keeps it from opening a run)
    const userMsgs = () =>
      live.tap.hooks
        .filter((h) => h.body?.event?.type === 'message.updated' && h.body.event.properties?.info?.role === 'user')
        .filter((h) => h.body.event.properties.info.sessionID === session)
        .map((h) => h.body.event.properties.info.id);
    const diag = () =>
      `events: ${mine()
        .map((e) => e.type)
        .join(' ')}\nuser message.updated moments (ids): ${userMsgs().join(' ')}\nserve: ${first.stderr.slice(-1500)}`;
    const text = 'Now write the release notes (live next-turn, idle kilocode)';
    await steerIdle(live, { agent: 'kilocode', session, text, mine, diag });
    const end = await api('DELETE', `/session/${session}`);
    expect(end.status).toBe(200);
    await until('the waiter released at the session end', () => live.up.stderr().includes(`next-turn waiter of session ${session} released`), 15_000);
  }, 240_000);
});
