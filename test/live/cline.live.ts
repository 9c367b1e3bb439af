// Live: the real Cline CLI (`cline --json -t 90 "..."`, stdin closed) against
// the scripted OpenAI Chat Completions API (`cline auth -p openai-compatible
// -b <url>` in the scratch HOME), its hooks wired by `hookmap setup cline
// --user`: one executable per event in ~/.cline/hooks (TaskStart, PreToolUse,
// ...), each exec'ing the sh shim with the typed hook name. Control: a
// cancel rides the next PreToolUse reply ({cancel: true}).
// The first run starts Cline's hub (`cline --cline-hub-daemon`), which runs
// the hooks and outlives the CLI: afterAll stops it (`cline hub stop`) and
// kills any hub left running under the scratch HOME, by pid.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prefixOf, resolveAgent } from './agents.ts';
import { command, run, sleep, until } from './harness.ts';
import { Live, unusedPort, chatToolMessages } from './live.ts';

const ID = 'cline';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] ${ID}: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);

class ClineLive extends Live {
  sessionOf(b: any): string | undefined {
    return b?.taskId;
  }
}

/**
 * Cline's own processes (run from its install prefix) whose environment names this HOME: the hub it left behind,
 * by pid. Never hookmap's (they share the scratch HOME).
 */
function leftovers(home: string, prefix: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
      if (argv0.startsWith(`${prefix}/`) && readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`HOME=${home}`)) out.push(Number(pid));
    } catch {}
  }
  return out;
}

describe.skipIf(!!skip)(`${agent.pkg}@${agent.version} live`, () => {
  const live = new ClineLive(ID, (cmd) => ({ tool: 'run_commands', args: { commands: [cmd] } }));
  const homes: string[] = [];

  const auth = (env: NodeJS.ProcessEnv) => {
    const r = spawnSync(live.bin, ['auth', '-p', 'openai-compatible', '-k', 'sk-live-test-not-a-key', '-m', 'scripted', '-b', `${live.model.url}/v1`], {
      env,
      cwd: live.s.project,
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (r.status !== 0) throw new Error(`cline auth exited ${r.status}: ${r.stderr}${r.stdout}`);
    homes.push(env.HOME!);
  };
  const cline = (prompt: string, env: NodeJS.ProcessEnv = live.agentEnv, cwd = live.s.project) =>
    run(live.bin, ['--json', '-t', '90', prompt], { env, cwd, input: '', timeoutMs: 120_000 });

  beforeAll(async () => {
    await live.start(30_000);
    auth(live.agentEnv);
    await live.setup(['--user']);
  }, 90_000);

  /** `cline hub stop`, then kill whatever still runs under each scratch HOME (by pid). */
  const stopHubs = async () => {
    for (const home of homes) {
      // stdio ignored: a pipe held by a process the stop spawns would keep spawnSync waiting past its timeout
      spawnSync(live.bin, ['hub', 'stop'], { env: { ...live.agentEnv, HOME: home }, stdio: 'ignore', timeout: 10_000 });
      await sleep(300);
      for (const pid of leftovers(home, prefixOf(agent))) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
    }
  };

  afterAll(async () => {
    const t0 = Date.now();
    await stopHubs();
    console.log(`[live] cline: hubs stopped in ${Date.now() - t0} ms`);
    await live.finish(agent.version);
  }, 90_000);

  const core = (events: any[]) => events.map((e) => e.type).filter((t) => !t.startsWith('x.'));

  it('setup wired every event: one executable per event name in ~/.cline/hooks', () => {
    const dir = join(live.s.home, '.cline', 'hooks');
    expect(readdirSync(dir).sort()).toEqual([
      'PostToolUse',
      'PreCompact',
      'PreToolUse',
      'SessionShutdown',
      'TaskCancel',
      'TaskComplete',
      'TaskError',
      'TaskResume',
      'TaskStart',
      'UserPromptSubmit',
    ]);
    expect(readFileSync(join(dir, 'PreToolUse'), 'utf8')).toContain('shims/cline.sh tool_call');
  });

  it('a run with a shell call: run boundaries and the tool pair on the stream', async () => {
    const o = await live.play('read-only', (p) => cline(p));
    expect(o.run.code, o.run.stderr.slice(-1500)).toBe(0);
    expect(o.sessions).toHaveLength(1);
    expect(o.hooks.map((h) => h.body?.hookName)).toEqual(['agent_start', 'tool_call', 'tool_result', 'agent_end']);
    const events = await live.checkSession(o.sessions[0]);
    expect(core(events)).toEqual(['run.started', 'tool.requested', 'tool.completed', 'run.finished']);
    const req = events.find((e) => e.type === 'tool.requested');
    expect(req.data.tool).toMatchObject({ name: 'run_commands' });
    expect(events.find((e) => e.type === 'tool.completed').data.tool.call_id).toBe(req.data.tool.call_id);
    expect(chatToolMessages(o.requests).join('\n')).toContain('hello-from-live');
  }, 180_000);

  it('a failing command: tool.failed (the per-command error), not tool.completed', async () => {
    const o = await live.play('tool-failure', (p) => cline(p));
    expect(o.run.code, o.run.stderr.slice(-1500)).toBe(0);
    const events = await live.checkSession(o.sessions[0]);
    expect(core(events)).toEqual(['run.started', 'tool.requested', 'tool.failed', 'run.finished']);
    expect(events.find((e) => e.type === 'tool.failed').data.error.type).toBe('tool_error');
  }, 180_000);

  it('CANCEL: `hookmap cancel` mid-run rides the next tool_call reply as {cancel: true}; Cline ends the task before the second command runs', async () => {
    let cancelled: Awaited<ReturnType<typeof command>> | undefined;
    const o = await live.play(
      'cancel',
      (p) => cline(p),
      async ({ sessionEvents }) => {
        const req = await until('the slow command', () => sessionEvents().find((e) => e.type === 'tool.requested'), 60_000);
        cancelled = await command(live.up.url, ['cancel', req.session, '--run', req.run, '--reason', 'wrong branch (live cancel)', '--wait', '40'], live.s);
      },
    );
    expect(cancelled!.code, cancelled!.stdout + cancelled!.stderr).toBe(0);
    expect(cancelled!.stdout).toMatch(/outcome: run\.cancelled/);
    expect(existsSync(join(live.s.project, 'after-cancel.txt'))).toBe(false);
    const events = await live.checkSession(o.sessions[0]);
    expect(events.find((e) => e.type === 'run.cancelled').data).toMatchObject({ by: 'control' });
    console.log(`[live] cline CANCEL: exit ${o.run.code}, hooks ${o.hooks.map((h) => h.body?.hookName).join(' ')}`);
  }, 180_000);

  it('hookmap down (not started): `cline --json` completes normally and quickly', async () => {
    // the hub listens on one fixed port: the scratch HOME's hub (and its hooks) must not serve this run
    await stopHubs();
    const port = await unusedPort();
    const home = join(live.s.root, 'home-down');
    const project = join(live.s.root, 'project-down');
    mkdirSync(project, { recursive: true });
    mkdirSync(home, { recursive: true });
    const env = {
      ...live.baseEnv(`http://127.0.0.1:${port}`),
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local/share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local/state'),
      HOOKMAP_HOME: join(live.s.root, 'hookmap-down'),
    };
    auth(env);
    await live.setup(['--user'], env);
    live.model.play(live.scenario('hookmap-down'));
    const r0 = live.model.requests.length;
    const r = await cline('Create the file down.txt and say hello.', env, project);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.ms).toBeLessThan(60_000);
    expect(existsSync(join(project, 'down.txt'))).toBe(true);
    expect(chatToolMessages(live.model.requests.slice(r0)).join('\n')).toContain('hello-while-down');
  }, 120_000);
});
