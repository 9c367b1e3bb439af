// The launch argv (engine/person/launch/argv.ts) and the launcher's own bounds
// (engine/person/launch/launcher.ts): every shipped descriptor's launch block puts the
// prompt in as ONE argument, the options only from its closed list, where
// `{options}` says; a headless run past its wall time is stopped.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { listVendors, loadVendor } from '../../../engine/core/descriptor/registry.ts';
import type { Descriptor, LaunchSpec } from '../../../engine/core/descriptor/types.ts';
import { LaunchError, launchArgv } from '../../../engine/person/launch/argv.ts';
import { GATE_HOOK_MS, Launcher, type StreamEvent } from '../../../engine/person/launch/launcher.ts';
import { recordWiring } from '../../../engine/runtime/setup/wirings.ts';
import { until } from '../../runtime/daemon/helpers.ts';

const PROMPT = '$(touch pwned); rm -rf ~ `x` "y"';
const launchable = listVendors()
  .map((v) => loadVendor(v))
  .filter((d) => d.launch);

describe('launch argv', () => {
  it('the agents the issue names can be started, and continued where they have a resume argv', () => {
    const ids = launchable.map((d) => d.vendor);
    for (const a of ['claude-code', 'codex', 'gemini-cli', 'qwen-code', 'opencode', 'pi', 'copilot-cli']) expect(ids).toContain(a);
    for (const a of ['claude-code', 'codex', 'opencode', 'pi', 'copilot-cli', 'qwen-code']) expect(loadVendor(a).launch!.resume, a).toBeDefined();
  });

  for (const d of launchable)
    it(`${d.vendor}: the prompt is one argument in every mode, the id one argument, the options where the argv says`, () => {
      const spec = d.launch!;
      for (const mode of ['headless', 'tmux', 'resume'] as const) {
        if (mode === 'tmux' && !spec.interactive) continue;
        if (mode === 'resume' && !spec.resume) continue;
        const id = mode === 'resume' || spec.session === 'assigned' ? '0b1c2d3e-0000-4000-8000-000000000001' : undefined;
        const { command, args } = launchArgv(spec, { mode, prompt: PROMPT, dir: '/w/p', id });
        expect(command).toBe(spec.command);
        // an agent hosted over stdin (launch.stdin) gets the prompt there, never in argv (stream-host.test.ts)
        expect(args.filter((a) => a === PROMPT)).toHaveLength(spec.stdin && mode !== 'tmux' ? 0 : 1);
        expect(args.some((a) => /[{}]/.test(a))).toBe(false);
        if (id) expect(args).toContain(id);
      }
      const [name, o] = Object.entries(spec.options ?? {})[0] ?? [];
      if (!name) return;
      const value = o.values?.[0] ?? (new RegExp(`^(?:${o.pattern})$`).test('m1') ? 'm1' : 'p/m1');
      const id = spec.session === 'assigned' ? '0b1c2d3e-0000-4000-8000-000000000001' : undefined;
      const { args } = launchArgv(spec, { mode: 'headless', prompt: 'p', dir: '/w/p', id, options: { [name]: value } });
      if (spec.stdin) expect(args).toContain(value);
      else expect(args.indexOf(value)).toBeLessThan(args.indexOf('p'));
      expect(() => launchArgv(spec, { mode: 'headless', prompt: 'p', dir: '/w/p', id, options: { [name]: 'a b; c' } })).toThrow(LaunchError);
      expect(() => launchArgv(spec, { mode: 'headless', prompt: 'p', dir: '/w/p', id, options: { nope: 'x' } })).toThrow(/no option nope/);
    });

  it('refuses what would read as an option, an empty prompt, a strange id, and options on a continue', () => {
    const spec: LaunchSpec = {
      command: 'a',
      headless: ['{prompt}'],
      resume: ['{id}', '{prompt}'],
      evidence: 'x',
      options: { m: { argv: ['-m', '{value}'], values: ['x'] } },
    };
    const bad = (r: Parameters<typeof launchArgv>[1], re: RegExp) => expect(() => launchArgv(spec, r)).toThrow(re);
    bad({ mode: 'headless', prompt: ' --yolo', dir: '/' }, /may not start with '-'/);
    bad({ mode: 'headless', prompt: '  ', dir: '/' }, /empty/);
    bad({ mode: 'resume', prompt: 'p', dir: '/', id: '--all' }, /not a session id/);
    bad({ mode: 'resume', prompt: 'p', dir: '/', id: 'abc', options: { m: 'x' } }, /keeps its own options/);
    bad({ mode: 'tmux', prompt: 'p', dir: '/' }, /no attachable run/);
    expect(launchArgv(spec, { mode: 'headless', prompt: 'p', dir: '/', options: { m: 'x' } }).args).toEqual(['-m', 'x', 'p']);
  });

  it("a launch's gate: its argv before the options (where `{options}` says), on headless and continued runs, never in a terminal nor when an option replaces it", () => {
    const spec: LaunchSpec = {
      command: 'a',
      headless: ['run', '{options}', '{prompt}'],
      interactive: ['{prompt}'],
      resume: ['run', '{options}', '--session', '{id}', '{prompt}'],
      gate: { argv: ['--auto'], unless: ['mode'], evidence: 'x' },
      evidence: 'x',
      options: { mode: { argv: ['--mode', '{value}'], values: ['plan'] }, m: { argv: ['-m', '{value}'], values: ['x'] } },
    };
    expect(launchArgv(spec, { mode: 'headless', prompt: 'p', dir: '/', options: { m: 'x' } })).toEqual({
      command: 'a',
      args: ['run', '--auto', '-m', 'x', 'p'],
      gated: true,
    });
    expect(launchArgv(spec, { mode: 'resume', prompt: 'p', dir: '/', id: 's1' })).toMatchObject({
      args: ['run', '--auto', '--session', 's1', 'p'],
      gated: true,
    });
    expect(launchArgv(spec, { mode: 'tmux', prompt: 'p', dir: '/' })).toMatchObject({ args: ['p'], gated: false });
    expect(launchArgv(spec, { mode: 'headless', prompt: 'p', dir: '/', options: { mode: 'plan' } })).toMatchObject({
      args: ['run', '--mode', 'plan', 'p'],
      gated: false,
    });
    // a gate is never something a person picks: no option by its name, and its argv is not an option value
    expect(() => launchArgv(spec, { mode: 'headless', prompt: 'p', dir: '/', options: { gate: 'on' } })).toThrow(/no option gate/);
  });
});

describe('the launcher', () => {
  const home = mkdtempSync(join(tmpdir(), 'hookmap-launcher-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('stops a headless run at its wall time (its process group), and audits the end', async () => {
    const dir = join(home, 'p');
    mkdirSync(dir);
    recordWiring(home, { agent: 'stand-in', scope: 'project', path: join(dir, 'x'), dir });
    const launch: LaunchSpec = { command: process.execPath, headless: ['-e', 'setInterval(() => {}, 1000)', '{prompt}'], evidence: 'test' };
    const audit: [string, Record<string, unknown>][] = [];
    const l = new Launcher({
      descriptor: (a) => (a === 'stand-in' ? ({ vendor: 'stand-in', name: 'Stand-in', launch } as unknown as Descriptor) : undefined),
      home,
      env: { PATH: process.env.PATH },
      config: { timeoutMs: 300 },
      subscribe: (_on: (ev: StreamEvent) => void) => ({ close() {} }),
      audit: (type, data) => audit.push([type, data]),
    });
    const run = l.start({ agent: 'stand-in', project: dir, prompt: 'wait' }, { principal: 'owner', surface: 'test' });
    expect(run).toMatchObject({ state: 'running', dir: realpathSync(dir), by: 'owner', via: 'test' });
    await until('the wall time', () => (l.get(run.id)!.ended ? true : undefined), 10_000);
    expect(l.get(run.id)).toMatchObject({ state: 'timed-out', signal: 'SIGTERM' });
    expect(audit.map(([t]) => t)).toEqual(['started', 'ended']);
    expect(() => l.start({ agent: 'other', project: dir, prompt: 'x' }, { principal: 'owner', surface: 'test' })).toThrow(/not an agent/);
    expect(audit.at(-1)).toEqual(['refused', expect.objectContaining({ code: 'no-such-agent', by: 'owner', via: 'test' })]);
    l.close();
  });

  it("a gated run gets HOOKMAP_GATE=1, this up's HOOKMAP_URL and HOOKMAP_HOME and the gate's argv, and is stopped when none of its hooks arrives in time (its hooks off)", async () => {
    const dir = join(home, 'g');
    mkdirSync(dir);
    recordWiring(home, { agent: 'stand-in', scope: 'project', path: join(dir, 'x'), dir });
    const out = join(dir, 'seen.json');
    const script = `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ gate: process.env.HOOKMAP_GATE, url: process.env.HOOKMAP_URL, home: process.env.HOOKMAP_HOME, argv: process.argv.slice(1) })); setInterval(() => {}, 1000)`;
    const launch: LaunchSpec = {
      command: process.execPath,
      headless: ['-e', script, '--', '{options}', '{prompt}'],
      gate: { argv: ['--yolo-ish'], evidence: 't' },
      evidence: 't',
    };
    const audit: [string, Record<string, unknown>][] = [];
    vi.useFakeTimers({ toFake: ['setTimeout'], shouldAdvanceTime: true });
    try {
      const l = new Launcher({
        descriptor: (a) => (a === 'stand-in' ? ({ vendor: 'stand-in', name: 'Stand-in', launch } as unknown as Descriptor) : undefined),
        home,
        env: { PATH: process.env.PATH, HOOKMAP_GATE: '0' },
        url: () => 'http://127.0.0.1:48787',
        subscribe: (_on: (ev: StreamEvent) => void) => ({ close() {} }),
        audit: (type, data) => audit.push([type, data]),
      });
      const run = l.start({ agent: 'stand-in', project: dir, prompt: 'go' }, { principal: 'owner', surface: 'test' });
      await until('the child started', () => (existsSync(out) ? true : undefined), 10_000);
      // hookmap's own variables are set (a project's env file cannot fill them): this up's address and home
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ gate: '1', url: 'http://127.0.0.1:48787', home, argv: ['--yolo-ish', 'go'] });
      expect(audit[0]).toEqual(['started', expect.objectContaining({ gate: true })]);
      vi.advanceTimersByTime(GATE_HOOK_MS);
      await until('stopped', () => (l.get(run.id)!.ended ? true : undefined), 10_000);
      expect(l.get(run.id)).toMatchObject({ state: 'failed', error: 'no hook arrived under the gate' });
      l.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("up's own address for its runs", () => {
  it('is the address it listens on (loopback for every interface), none before it listens', async () => {
    const { default: Fastify } = await import('fastify');
    const { ownUrl } = await import('../../../engine/app/up-launch.ts');
    for (const host of ['127.0.0.1', '0.0.0.0']) {
      const app = Fastify();
      expect(ownUrl(app)).toBeUndefined();
      await app.listen({ host, port: 0 });
      try {
        const port = (app.server.address() as { port: number }).port;
        expect(ownUrl(app)).toBe(`http://127.0.0.1:${port}`);
      } finally {
        await app.close();
      }
    }
  });
});
