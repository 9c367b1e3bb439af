// `hookmap new <agent> --like <existing>` (issue 28): a descriptor and a
// fixture folder started from the closest existing agent; the first `hookmap
// check` lists, in order, every placeholder to fill in and every claim no
// fixture proves yet; filled in, the draft checks clean.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listVendors, loadVendor, VENDORS_DIR } from '../../engine/core/descriptor/registry.ts';
import { parse } from 'yaml';
import { closestAgent, FILL_IN, hooksToDrop, SURFACE_KINDS } from '../../engine/tools/scaffold/new-agent.ts';
import { runCli } from '../helpers/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-new-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const env = { PATH: process.env.PATH, HOME: tmp, HOOKMAP_HOME: tmp };

describe('hookmap new', () => {
  it('proposes, for every surface kind, an existing agent of that kind (control first, then the shortest descriptor)', () => {
    const all = listVendors().map(loadVendor);
    const lines = (d: (typeof all)[number]) => readFileSync(join(VENDORS_DIR, `${d.vendor}.yaml`), 'utf8').split('\n').length;
    for (const kind of SURFACE_KINDS) {
      const d = closestAgent(kind, all, lines)!;
      expect(d.surface.kind, kind).toBe(kind);
      const same = all.filter((x) => x.surface.kind === kind);
      if (same.some((x) => x.posture === 'control')) expect(d.posture, kind).toBe('control');
      expect(
        same.filter((x) => x.posture === d.posture).every((x) => lines(x) >= lines(d)),
        kind,
      ).toBe(true);
    }
  });

  it('writes a draft whose first check lists each placeholder in order; filled in, only unproven claims are left; never overwrites', async () => {
    const dir = join(tmp, 'a');
    const made = await runCli(['new', 'demo-cli', '--surface', 'command-hook', '--dir', dir], env);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^hookmap new: starting from \S+ \(.*\), the closest command-hook agent/);
    const path = join(dir, 'demo-cli.yaml');
    const text = readFileSync(path, 'utf8');
    expect(text).toMatch(/^vendor: demo-cli$/m);
    expect(text).not.toMatch(/^provenance:/m); // what was seen live was the other agent's

    const first = await runCli(['check', path], env, 120_000);
    expect(first.code).toBe(1);
    const errors = first.stdout.split('\n').filter((l) => /^\S+:\d+:\d+ [a-z-]+: /.test(l));
    const todo = errors.filter((l) => / to-fill-in: /.test(l));
    expect(todo.length).toBeGreaterThanOrEqual(4);
    expect(todo[0]).toMatch(/demo-cli\.yaml:\d+:\d+ to-fill-in: the agent's display name/);
    // in file and line order: the descriptor first, its lines ascending
    const keys = errors.map((l) => /^(\S+):(\d+):/.exec(l)!).map((m) => [m[1], Number(m[2])] as const);
    expect(keys).toEqual([...keys].sort((a, b) => (a[0] === b[0] ? a[1] - b[1] : a[0] < b[0] ? -1 : 1)));
    expect(
      errors.every((l) => / (to-fill-in|capability-without-evidence): /.test(l)),
      errors.join('\n'),
    ).toBe(true);

    // every placeholder filled in: the claims the copied fixtures do not prove are what is left
    for (const f of [path, ...['decisions', 'deliveries', 'hooks', 'shim'].map((n) => join(dir, 'demo-cli', `${n}.yaml`))]) {
      try {
        writeFileSync(f, readFileSync(f, 'utf8').split(`${FILL_IN}: `).join('filled in: '));
      } catch {
        /* a file the start agent does not have */
      }
    }
    const second = await runCli(['check', path], env, 120_000);
    expect(second.stdout).not.toMatch(/to-fill-in/);
    expect(
      second.stdout
        .split('\n')
        .filter((l) => /^\S+:\d+:\d+ /.test(l))
        .every((l) => / capability-without-evidence: .* add a kind: /.test(l)),
    ).toBe(true);

    const again = await runCli(['new', 'demo-cli', '--dir', dir], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists already: nothing written/);
  }, 240_000);

  it('leaves out the hooks only the existing agent has, or those --hooks does not name, with the fixture cases firing them', async () => {
    const all = listVendors().map(loadVendor);
    // claude-code has hooks no other agent has (MessageDisplay, TeammateIdle ...): left out by default, and said
    const own = hooksToDrop(
      all.find((d) => d.vendor === 'claude-code')!,
      all,
    );
    expect(own).toContain('TeammateIdle');
    expect(own).not.toContain('PreToolUse');
    const dir = join(tmp, 'h');
    const made = await runCli(
      ['new', 'letta-like', '--like', 'codex', '--hooks', 'SessionStart,PreToolUse,PostToolUse,PermissionRequest,Stop', '--dir', dir],
      env,
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain("left out 7 of codex's hooks (not in --hooks): SessionEnd, UserPromptSubmit, Interrupt");
    expect(made.stdout).toMatch(/and the fixture cases firing them: .*hooks\.yaml: interrupt-then-session-end/);
    const d = parse(readFileSync(join(dir, 'letta-like.yaml'), 'utf8'));
    expect(Object.keys(d.hooks).sort()).toEqual(['PermissionRequest', 'PostToolUse', 'PreToolUse', 'SessionStart', 'Stop']);
    const cases = parse(readFileSync(join(dir, 'letta-like', 'hooks.yaml'), 'utf8')).cases.map((c: { name: string }) => c.name);
    expect(cases).not.toContain('interrupt-then-session-end');
    // the draft still reads (aliases of a dropped case became copies) and checks to placeholders, not errors
    const first = await runCli(['check', join(dir, 'letta-like.yaml')], env);
    expect(first.stdout + first.stderr).not.toMatch(/yaml-syntax|unknown-hook|no such hook/);
    const bad = await runCli(['new', 'x-agent', '--like', 'codex', '--hooks', 'Frob', '--dir', join(tmp, 'h2')], env);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--hooks: codex has no hook Frob')]);
  });

  it('refuses a bad id, an unknown --like, an unknown surface (exit 2)', async () => {
    expect((await runCli(['new', 'Bad_Name', '--dir', tmp], env)).code).toBe(2);
    expect((await runCli(['new', 'x', '--like', 'nope', '--dir', tmp], env)).stderr).toMatch(/--like nope: no such agent/);
    expect((await runCli(['new', 'x', '--surface', 'carrier-pigeon', '--dir', tmp], env)).stderr).toMatch(/not a surface kind \(one of command-hook, /);
  });
});
