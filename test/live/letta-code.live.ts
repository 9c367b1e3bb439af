// Live: the real Letta Code TUI (`letta --backend local --new --permission-mode
// standard`) in Debian's tmux, with no account: its local backend connected to
// the scripted Chat Completions API (`letta --backend local connect llama-cpp
// --base-url <model>/v1`). Its hooks are wired by `hookmap setup letta-code`
// into the scratch ~/.letta/settings.json; session and turn hooks fire only in
// the TUI. PermissionRequest is held and answered over the relay with
// `hookmap answer`: Letta reads its exit code only (0 allows, 2 denies with
// stderr as the reason, anything else leaves the call to its own dialog).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { run, sleep, until } from './harness.ts';
import { chatToolMessages, Live, unusedPort } from './live.ts';

const ID = 'letta-code';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] ${ID}: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);

const ANSWER_TIMEOUT_MS = 30_000;
const SHORT_TIMEOUT_MS = 1_500;
const HOOKS = [
  'Notification',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'PreCompact',
  'PreToolUse',
  'SessionEnd',
  'SessionStart',
  'Stop',
  'SubagentStop',
  'UserPromptSubmit',
];
const DIALOG = /Run this command\?/;

describe.skipIf(!!skip)(`${agent.pkg}@${agent.version} live`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'Bash', args: { command: cmd } }));
  const sock = `hookmap-letta-${process.pid}`;
  let n = 0;
  const tmux = (...args: string[]) => run('/usr/bin/tmux', ['-L', sock, ...args], { timeoutMs: 10_000 });
  const q = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

  /** One TUI session in tmux: started at its prompt, SessionStart answered. */
  const startTui = async (env: NodeJS.ProcessEnv = live.agentEnv) => {
    const name = `l${++n}`;
    const script = join(live.s.root, `letta-tui-${name}.sh`);
    // no CI: Ink (Letta's TUI) renders only its last frame when CI is set, so the prompt would never show; unset in the
    // script too, since the tmux server hands the pane the environment of whoever started it (CI=true under .ci/run)
    const { CI: _ci, ...rest } = env;
    const vars = { ...rest, TERM: 'xterm-256color', DISABLE_AUTOUPDATER: '1' };
    writeFileSync(
      script,
      `${Object.entries(vars)
        .map(([k, v]) => `export ${k}=${q(String(v))}`)
        .join(
          '\n',
        )}\nunset CI CONTINUOUS_INTEGRATION BUILD_NUMBER RUN_ID\ncd ${q(live.s.project)}\nexec ${q(live.bin)} --backend local --new --permission-mode standard\n`,
    );
    const started = await tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '50', `sh ${q(script)}`);
    expect(started.code, started.stderr).toBe(0);
    const pane = async () => (await tmux('capture-pane', '-p', '-J', '-t', name, '-S', '-400')).stdout;
    const ready = async () => /\[hook:SessionStart\][^\n]*\n\s*⎿/.test(await pane()) && /request approval/.test(await pane());
    await until('the TUI at its prompt, SessionStart answered', ready, 45_000).catch(async (e) => {
      const p = await pane();
      await tmux('kill-session', '-t', name);
      throw new Error(`${(e as Error).message}\npane:\n${p.split('\n').filter(Boolean).slice(-30).join('\n')}`);
    });
    await sleep(300);
    const send = async (text: string) => {
      if (text) {
        await tmux('send-keys', '-t', name, '-l', text);
        await sleep(300);
      }
      await tmux('send-keys', '-t', name, 'C-m');
    };
    const turnEnded = () => until('the turn ended (Stop answered)', async () => /\[hook:Stop\][^\n]*\n\s*⎿/.test(await pane()), 90_000);
    /** /exit, then the tmux session is gone (SessionEnd ran); killed if it lingers. */
    const exit = async () => {
      await send('/exit');
      const gone = await until('letta exited', async () => (await tmux('has-session', '-t', name)).code !== 0, 20_000).catch(() => false);
      if (!gone) await tmux('kill-session', '-t', name);
      return gone;
    };
    return { name, pane, send, turnEnded, exit };
  };
  type Tui = Awaited<ReturnType<typeof startTui>>;

  /**
   * One TUI session for one scenario: the prompt, `drive` alongside (answers
   * over the relay, keys in Letta's dialog), the turn's end, /exit. Returns the
   * stream's letta-code sessions seen since it started and their events.
   */
  const playTui = async (scenario: string, drive?: (t: Tui, sessionEvents: () => any[]) => Promise<void>, env?: NodeJS.ProcessEnv) => {
    // a retried attempt starts clean: no file the last attempt's command made
    for (const f of ['allowed.txt', 'denied.txt', 'marker.txt', 'unanswered.txt', 'down.txt']) rmSync(join(live.s.project, f), { force: true });
    const sc = live.scenario(scenario);
    live.model.play(sc);
    const r0 = live.model.requests.length;
    const t0 = Date.now();
    // this TUI's sessions: started from now on (a restarted `up` replays the earlier ones to its new tail)
    const mine = () =>
      new Set(
        live.stream.events
          .filter((e) => e.type === 'session.started' && String(e.source).includes(`/agent/${ID}/session/`) && Date.parse(e.time) >= t0 - 1_000)
          .map((e) => e.session),
      );
    const own = () => {
      const ss = mine();
      return live.stream.events.filter((e) => ss.has(e.session));
    };
    const sessionEvents = () => own();
    const t = await startTui(env);
    try {
      await t.send(sc.prompt);
      if (drive) await drive(t, sessionEvents);
      await t.turnEnded();
      const pane = await t.pane();
      const exited = await t.exit();
      const sessions = [...mine()];
      return { pane, exited, sessions, requests: live.model.requests.slice(r0), ms: Date.now() - t0 };
    } catch (e) {
      const p = await t.pane().catch(() => '');
      await tmux('kill-session', '-t', t.name);
      throw Object.assign(new Error(`${(e as Error).message}\npane:\n${p.split('\n').filter(Boolean).slice(-40).join('\n')}`));
    }
  };

  const core = (events: any[]) => events.map((e) => e.type).filter((t) => !t.startsWith('x.') && t !== 'progress.status');

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    await live.setup(['--user']);
    const c = await run(live.bin, ['--backend', 'local', 'connect', 'llama-cpp', '--base-url', `${live.model.url}/v1`], {
      cwd: live.s.project,
      env: live.agentEnv,
      timeoutMs: 60_000,
    });
    if (c.code !== 0) throw new Error(`letta connect exited ${c.code}: ${c.stdout}${c.stderr}`);
  }, 120_000);

  afterAll(async () => {
    await tmux('kill-server');
    await live.finish(agent.version);
  }, 30_000);

  it('setup wrote ~/.letta/settings.json: every Letta hook runs the shim, timeout in ms', () => {
    const doc = JSON.parse(readFileSync(join(live.s.home, '.letta/settings.json'), 'utf8'));
    expect(Object.keys(doc.hooks).sort()).toEqual(HOOKS);
    for (const h of HOOKS) {
      const entry = doc.hooks[h][0].hooks[0];
      expect(entry).toMatchObject({ type: 'command', timeout: 60_000 });
      expect(entry.command).toContain(`shims/letta-code.sh ${h}`);
    }
  });

  it('PermissionRequest held, answered allow over the relay (exit 0): the command runs; session, run, tool pair on the stream', async () => {
    const taken = new Set<string>();
    const o = await playTui('permission-allow', async (_t, sessionEvents) => {
      const req = await live.nextAttention(sessionEvents, taken);
      expect(req.subject).toBe('Bash');
      expect(req.data).toMatchObject({ kind: 'permission', prompt: 'Permission requested: Bash — touch allowed.txt', respond_via: ['control'] });
      await live.answer(req.id, ['--allow']);
    });
    console.log(`[live] ${ID}: allow: ${o.ms} ms`);
    expect(o.exited).toBe(true);
    expect(existsSync(join(live.s.project, 'allowed.txt'))).toBe(true);
    expect(o.pane).not.toMatch(DIALOG);
    expect(o.sessions).toHaveLength(1);
    const events = await live.checkSession(o.sessions[0]);
    expect(core(events)).toEqual([
      'session.started',
      'run.started',
      'attention.requested',
      'control.accepted',
      'attention.answered',
      'attention.resolved',
      'tool.requested',
      'tool.completed',
      'run.finished',
      'session.ended',
    ]);
    expect(events.find((e) => e.type === 'session.started').data.client).toEqual({ name: 'letta-code' });
    // the session is the folder's name and a digest: the scratch path never leaves the engine
    expect(o.sessions[0]).toMatch(/^project-[0-9a-f]{8}/);
    expect(JSON.stringify(events)).not.toContain(live.s.project);
  }, 180_000);

  it('answered deny (exit 2, the reason on stderr): the command does not run; Letta rejects the call with the reason', async () => {
    const taken = new Set<string>();
    const o = await playTui('permission-deny', async (_t, sessionEvents) => {
      const req = await live.nextAttention(sessionEvents, taken);
      await live.answer(req.id, ['--deny']);
    });
    console.log(`[live] ${ID}: deny: ${o.ms} ms`);
    expect(existsSync(join(live.s.project, 'denied.txt'))).toBe(false);
    expect(o.pane).not.toMatch(DIALOG);
    expect(chatToolMessages(o.requests).at(-1)).toContain('Denied via hookmap');
    const events = await live.checkSession(o.sessions[0]);
    expect(core(events)).not.toContain('tool.completed');
    expect(events.find((e) => e.type === 'attention.answered').data.answer).toEqual({ option: 'deny' });
  }, 180_000);

  it('answered with text (exit 2, the text on stderr): the command does not run; Letta shows the text and the model reads it', async () => {
    const GUIDANCE = 'Do not create marker.txt; write notes.md instead (letta live guidance 3e7b)';
    const taken = new Set<string>();
    const o = await playTui('permission-guidance', async (_t, sessionEvents) => {
      const req = await live.nextAttention(sessionEvents, taken);
      await live.answer(req.id, ['--text', GUIDANCE]);
    });
    console.log(`[live] ${ID}: text: ${o.ms} ms`);
    expect(existsSync(join(live.s.project, 'marker.txt'))).toBe(false);
    expect(o.pane).toContain(GUIDANCE);
    expect(chatToolMessages(o.requests).at(-1)).toContain(GUIDANCE);
    const events = await live.checkSession(o.sessions[0]);
    expect(events.find((e) => e.type === 'attention.answered').data.answer).toEqual({ option: 'deny', text: GUIDANCE });
  }, 180_000);

  it("no answer: the hold times out (exit 1) and Letta's own dialog asks; nothing ran before the human chose there", async () => {
    await live.restartUp(SHORT_TIMEOUT_MS);
    try {
      const o = await playTui('permission-timeout', async (t) => {
        await until("Letta's own dialog", async () => DIALOG.test(await t.pane()), 30_000);
        expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(false);
        await t.send(''); // Enter: "1. Yes" in Letta's dialog
      });
      console.log(`[live] ${ID}: no answer: ${o.ms} ms`);
      expect(existsSync(join(live.s.project, 'unanswered.txt'))).toBe(true);
      const events = await live.checkSession(o.sessions[0]);
      expect(events.find((e) => e.type === 'attention.timeout').data).toEqual({ after_ms: SHORT_TIMEOUT_MS });
    } finally {
      await live.restartUp(ANSWER_TIMEOUT_MS);
    }
  }, 180_000);

  it("hookmap down (nothing listening): the shim exits 1, Letta's own dialog asks, never an approval", async () => {
    const port = await unusedPort();
    const env = { ...live.agentEnv, HOOKMAP_URL: `http://127.0.0.1:${port}` };
    const o = await playTui(
      'hookmap-down-letta',
      async (t) => {
        await until("Letta's own dialog", async () => DIALOG.test(await t.pane()), 30_000);
        expect(await t.pane()).toMatch(/\[hook:PermissionRequest\][^\n]*\n\s*⎿ exit 1/);
        expect(existsSync(join(live.s.project, 'down.txt'))).toBe(false);
        await t.send('');
      },
      env,
    );
    console.log(`[live] ${ID}: hookmap down: ${o.ms} ms`);
    expect(existsSync(join(live.s.project, 'down.txt'))).toBe(true);
    expect(o.sessions).toHaveLength(0);
  }, 180_000);
});
