// Rule presets (issue 22 "Presets, opt-in"): shown as the rules they are
// before anyone turns them on; `read-only` from each descriptor's
// `read_tools` (data, not code), `tests` from what the project declares
// (package.json, a Makefile target, pytest, Cargo, go); `--enable` adds
// them to the learned rules, attributed, and the floor still applies.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listVendors, loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { presetRules, testCommands } from '../../../engine/runtime/policy/presets.ts';
import { RuleBook } from '../../../engine/runtime/policy/rulebook.ts';
import { subjectOf } from '../../../engine/runtime/policy/subject.ts';
import { runCli } from '../../helpers/cli.ts';

const dir = (files: Record<string, string>) => {
  const d = mkdtempSync(join(tmpdir(), 'hookmap-preset-'));
  for (const [f, t] of Object.entries(files)) writeFileSync(join(d, f), t);
  return d;
};

describe('rule presets', () => {
  it('tests: the test command each kind of project declares, and none where it declares none', () => {
    expect(testCommands(dir({ 'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }) })).map((x) => x.command)).toEqual(['npm test']);
    expect(testCommands(dir({ 'package.json': JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }) }))).toEqual([]);
    expect(testCommands(dir({ Makefile: 'build:\n\tcc x.c\ntest: build\n\t./run\n' })).map((x) => x.command)).toEqual(['make test']);
    expect(testCommands(dir({ Makefile: 'build:\n\tcc x.c\n' }))).toEqual([]);
    expect(testCommands(dir({ 'pyproject.toml': '[tool.pytest.ini_options]\naddopts = "-q"\n' })).map((x) => x.command)).toEqual(['pytest']);
    expect(testCommands(dir({ 'Cargo.toml': '[package]\nname = "x"\n', 'go.mod': 'module x\n' })).map((x) => x.command)).toEqual([
      'cargo test',
      'go test ./...',
    ]);
    expect(testCommands(dir({ 'package.json': '{ not json' }))).toEqual([]);
  });

  it('read-only: each agent that names read tools in its descriptor gets one rule of exactly those tools', () => {
    const agents = listVendors().map((id) => ({ id, readTools: loadVendor(id).readTools }));
    const { rules, notes } = presetRules('read-only', { agents });
    const cc = rules.find((r) => r.agent === 'claude-code')!;
    expect(cc).toMatchObject({ decide: 'allow', tool: loadVendor('claude-code').readTools });
    expect(cc.tool).toContain('Read');
    expect(cc.tool).not.toContain('Bash');
    expect(notes.some((n) => n.startsWith('codex names no read-only tools'))).toBe(true);
  });

  it('the CLI prints a preset before enabling it, then enables it attributed; the floor still holds under it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookmap-preset-home-'));
    const project = dir({ 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }) });
    const env = { ...process.env, HOOKMAP_HOME: home };
    const shown = await runCli(['rules', 'preset', 'tests', '--dir', project], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('"command":{"prefix":"npm test"}');
    expect(() => readFileSync(join(home, 'rules.yaml'))).toThrow();
    const on = await runCli(['rules', 'preset', 'tests', '--dir', project, '--enable'], env);
    expect([on.code, on.stdout]).toEqual([0, expect.stringMatching(/^tests: 1 rule enabled/)]);
    expect(readFileSync(join(home, 'rules.yaml'), 'utf8')).toMatch(/via: cli preset/);
    const book = new RuleBook({ home });
    const s = (command: string) => subjectOf({ agent: 'claude-code', session: 's' }, { tool: 'Bash', command, cwd: project });
    expect((await book.decide(s('npm test -- --coverage'))).verb).toBe('allow');
    expect((await book.decide(s('npm test > ~/.profile'))).verb).toBe('none');
    expect((await book.decide(s('npm test'), undefined)).rule?.id).toMatch(/^preset-tests-/);
    expect((await runCli(['rules', 'preset', 'nope'], env)).code).toBe(2);
  });
});
