// The help a newcomer scans (issue 31, item 11): `hookmap --help` lists the
// commands in groups, the daily ones first; every line of it and of every
// command's --help fits 100 columns; `hookmap capabilities <agent>` shows
// the states first, each explained in words, the fixture paths only under
// --evidence. The real CLI, spawned.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../engine/cli/usage.ts';
import { BIN } from '../runtime/shim/helpers.ts';

function hookmap(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c) => (stdout += c));
    p.stderr.on('data', (c) => (stderr += c));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const tooWide = (text: string) => text.split('\n').filter((l) => l.length > 100);

describe('hookmap --help', () => {
  it('groups the commands, the daily ones first, every command once, every line within 100 columns', async () => {
    const r = await hookmap(['--help']);
    expect(r.code).toBe(0);
    expect(tooWide(r.stdout)).toEqual([]);
    const groups: [string, string[]][] = [];
    for (const l of r.stdout.split('\n')) {
      if (/^\S.*:$/.test(l)) groups.push([l.slice(0, -1), []]);
      else if (/^ {2}[a-z]/.test(l) && groups.length) groups.at(-1)![1].push(l.trim().split(' ')[0]);
    }
    expect(groups.map(([g]) => g)).toEqual([
      'Every day',
      'Agents, sessions and access',
      'Writing descriptors and fixtures',
      'Plumbing: the pieces up runs, and the stream in and out',
    ]);
    expect(groups[0][1]).toEqual([
      'up',
      'setup',
      'tail',
      'answer',
      'steer',
      'open',
      'sessions',
      'search',
      'usage',
      'budgets',
      'doctor',
      'service',
      'push',
      'channels',
      'rules',
    ]);
    expect(groups[1][1]).toEqual(['run', 'attach', 'capabilities', 'timeline', 'history', 'cancel', 'policy', 'config', 'tokens', 'mcp']);
    expect(groups[2][1]).toEqual(['check', 'map', 'docs', 'codegen', 'new', 'record']);
    expect(groups[3][1]).toEqual(['relay', 'serve', 'hook', 'autostart', 'tee', 'bridge', 'sink', 'replay', 'validate']);
    expect(groups.flatMap(([, c]) => c).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  }, 30_000);

  it("every command's --help (hook and tee too) answers its usage, exit 0, every line within 100 columns", async () => {
    const names = COMMANDS.map((c) => c.name);
    const results: [string, Awaited<ReturnType<typeof hookmap>>][] = [];
    // a few at a time: each is a Node start-up
    for (let i = 0; i < names.length; i += 4)
      results.push(
        ...(await Promise.all(names.slice(i, i + 4).map(async (n) => [n, await hookmap([n, '--help'])] as [string, Awaited<ReturnType<typeof hookmap>>]))),
      );
    for (const [name, r] of results) {
      expect({ name, code: r.code, stderr: r.stderr }).toEqual({ name, code: 0, stderr: '' });
      expect(r.stdout, name).toMatch(new RegExp(`^usage: hookmap ${name}\\b`));
      expect(tooWide(r.stdout), name).toEqual([]);
    }
  }, 120_000);
});

describe('hookmap capabilities <agent>', () => {
  it('shows each state first, explained in words, no fixture paths; the undeclared ones by name and meaning', async () => {
    const r = await hookmap(['capabilities', 'claude-code']);
    expect(r.code).toBe(0);
    expect(tooWide(r.stdout)).toEqual([]);
    expect(r.stdout).not.toMatch(/fixtures\/|^ +evidence: /m);
    const lines = r.stdout.split('\n');
    expect(lines.length).toBeLessThan(50);
    expect(lines).toContain('  supported (27): the descriptor claims it and a fixture case proves it');
    // the live claims name more than one run (2026-11-29, and the next-turn TUI run of 2026-12-01): --evidence says which
    expect(lines).toContain('    live = also seen with the real agent (--evidence: which run)');
    expect(r.stdout).toMatch(/^ {4}observe\.sessions +live {2}sessions are observed/m);
    // what used to be the bare `undeclared: observe.steps, decide.toolGate`
    expect(r.stdout).not.toMatch(/undeclared:/);
    const at = lines.indexOf('  not declared (2): the descriptor says nothing about it, so nothing is promised either way');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 3)).toEqual([
      expect.stringMatching(/^ {4}observe\.steps +sub-run steps \(model invocations, loop turns\)$/),
      expect.stringMatching(/^ {4}decide\.toolGate +an opt-in pre-tool gate is held and answered over the relay$/),
    ]);
    expect(lines.at(-2)).toBe('--evidence: the fixture cases behind each claim; --json: all of it, as JSON.');
  }, 60_000);

  it('--evidence adds the fixture cases and the live runs; --json keeps its shape', async () => {
    const r = await hookmap(['capabilities', 'gemini-cli', '--evidence']);
    expect(r.code).toBe(0);
    expect(tooWide(r.stdout)).toEqual([]);
    expect(r.stdout).toMatch(/^ {6}evidence: fixtures\/gemini-cli\/[^#]+#/m);
    expect(r.stdout).toMatch(/^ {6}live: Gemini CLI 0\.61\.0, 2026-11-29$/m);
    expect(r.stdout).toMatch(/^ {2}unsupported \(\d+\): the agent offers no way to do it \(why: what it lacks\)$/m);
    expect(r.stdout).toMatch(/^ {2}not implemented \(\d+\): the agent could, hookmap does not do it yet$/m);
    const j = JSON.parse((await hookmap(['capabilities', 'claude-code', '--json'])).stdout);
    expect(Object.keys(j)).toEqual(['format', 'ok', 'agents']);
    expect(Object.keys(j.agents[0].capabilities[0])).toEqual(['id', 'description', 'state', 'proven', 'why', 'evidence', 'proven_by', 'live']);
    expect(j.agents[0].capabilities.filter((c: { state: string }) => c.state === 'undeclared').map((c: { id: string }) => c.id)).toEqual([
      'observe.steps',
      'decide.toolGate',
    ]);
  }, 60_000);
});
