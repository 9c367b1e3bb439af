// Live: `hookmap run claude-code --tmux` (issue 42), the real Claude Code's
// TUI started by `hookmap up`'s launcher in Debian's tmux, on a private tmux
// server (the up config's launch.tmux_socket: the tests never touch a user's
// tmux), against the scripted Messages API. The TUI is attachable (the printed
// attach line names the socket and the session; capture-pane shows the TUI
// with its first turn's reply), a steer while it sits idle wakes it (the
// next-turn carrier), and `/exit` typed into the pane ends the session: the
// stream shows session.ended and the run is over (GET /launch/:id).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { asksForKey, atPrompt, skipFirstRun, TUI_KEY } from './claude-tui.ts';
import { command, run, until } from './harness.ts';
import { Live } from './live.ts';
import { steerIdle } from './next-turn.ts';

const ID = 'claude-code';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] launch --tmux (${ID}): SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);
const ANSWER_TIMEOUT_MS = 30_000;
const TMUX = '/usr/bin/tmux';

describe.skipIf(!!skip)(`hookmap run --tmux: ${agent.pkg}@${agent.version} live`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'Bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));
  const socket = `hookmap-live-launch-${process.pid}`;
  const tmux = (...args: string[]) => run(TMUX, ['-L', socket, ...args], { timeoutMs: 10_000 });
  const token = () => readFileSync(join(live.s.hookmapHome, 'token'), 'utf8').trim();
  const launched = async (id: string) => (await (await fetch(`${live.up.url}/launch/${id}`, { headers: { authorization: `Bearer ${token()}` } })).json()).run;

  beforeAll(async () => {
    await live.start(ANSWER_TIMEOUT_MS);
    await live.setup(['--project', '--dir', live.s.project]);
    skipFirstRun(live.s.home, live.s.project);
    const config = join(live.s.home, 'up.yaml');
    writeFileSync(config, `launch:\n  tmux: ${TMUX}\n  tmux_socket: ${socket}\n`);
    // the run's tmux server is started by up: up's environment is the TUI's (the scratch HOME, the scripted model, the agent on PATH)
    await live.restartUp(ANSWER_TIMEOUT_MS, {
      args: ['--config', config],
      env: {
        ...live.agentEnv,
        PATH: `${dirname(live.bin)}:${process.env.PATH}`,
        ANTHROPIC_BASE_URL: live.model.url,
        ANTHROPIC_API_KEY: TUI_KEY,
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        HOOKMAP_CLAUDE_CODE_INSTRUCT: 'true',
        HOOKMAP_CLAUDE_CODE_NEXT_TURN: 'true',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid!()}`, socket), { force: true }); // the server leaves its socket file
    await live.finish(agent.version);
  }, 30_000);

  it('the TUI in tmux is attachable, a steer while it is idle wakes it (next-turn), /exit in the pane ends the session', async () => {
    const PROMPT = 'Say hello from the terminal.';
    const REPLY = 'Hello from the terminal (live tmux 9e2b).';
    live.model.play({ name: 'tmux-first', steps: [{ say: REPLY }] });
    const t0 = new Date().toISOString();
    const started = await command(live.up.url, ['run', ID, '--dir', live.s.project, '--tmux', PROMPT], live.s, 90_000);
    expect(started.code, `${started.stdout}${started.stderr}\n${live.up.stderr().slice(-3000)}`).toBe(0);
    const attach = /^attach: (.+ -L (\S+) attach -t (hookmap-claude-code-[0-9a-f]{6}))$/m.exec(started.stdout);
    expect(attach, started.stdout).not.toBeNull();
    expect(attach![1].startsWith(`${TMUX} `)).toBe(true);
    expect(attach![2]).toBe(socket);
    const name = attach![3];
    const launch = /\(launch (l[0-9a-f]{12})/.exec(started.stdout)![1];
    const session = /^session (\S+)$/m.exec(started.stdout)![1];
    const pane = async () => (await tmux('capture-pane', '-p', '-t', name)).stdout;
    const mine = () => live.stream.events.filter((e) => e.session === session && e.time >= t0);
    try {
      // attachable: the session is on the private server and its pane is the TUI with the first turn's reply
      expect((await tmux('has-session', '-t', name)).code).toBe(0);
      await until(
        'the TUI with its reply, at its prompt',
        async () => {
          const p = await pane();
          if (asksForKey(p)) await tmux('send-keys', '-t', name, 'Up', 'Enter');
          return p.includes(REPLY) && atPrompt(p) && p;
        },
        90_000,
      );
      expect(await pane()).toContain(PROMPT);
      await until('the first turn ends', () => mine().find((e) => e.type === 'run.finished'), 60_000);
      expect(mine()[0]?.type).toBe('session.started');

      // idle: a steer wakes it through the next-turn carrier
      const TEXT = 'Now write the release notes (live tmux next-turn)';
      live.model.play({ name: 'tmux-woken', steps: [{ say: 'Release notes written (woken in tmux).' }] });
      const { tSteer, tModel } = await steerIdle(live, { agent: ID, session, text: TEXT, mine, diag: () => '' });
      await until('the woken reply in the pane', async () => (await pane()).includes('Release notes written (woken in tmux).'), 30_000);
      console.log(`[live] launch --tmux: steer answered in ${tSteer} ms, the model asked ${tModel} ms after it`);

      // /exit typed into the pane: the TUI leaves, the session ends on the stream, the run is over
      const exitAt = Date.now();
      await tmux('send-keys', '-t', name, '-l', '/exit');
      await tmux('send-keys', '-t', name, 'Enter');
      await until('the tmux session is gone', async () => (await tmux('has-session', '-t', name)).code !== 0, 30_000);
      await until('session.ended', () => mine().find((e) => e.type === 'session.ended'), 15_000);
      console.log(`[live] launch --tmux: /exit to session.ended in ${Date.now() - exitAt} ms`);
      const over = await until('the run is over', async () => {
        const r = await launched(launch);
        return r.state !== 'running' && r;
      });
      expect(over).toMatchObject({ state: 'exited', session, mode: 'tmux' });
      await live.checkSession(session);
    } catch (e) {
      console.log(
        `[live] launch --tmux: events: ${mine()
          .map((x) => x.type)
          .join(' ')}`,
      );
      console.log(`[live] the pane at the failure:\n${await pane().catch(() => '')}\nup (tail):\n${live.up.stderr().slice(-3000)}`);
      throw e;
    }
  }, 300_000);
});
