// Rule presets (docs/rules.md), opt-in and shown as the rules they are before
// anyone turns them on:
//   read-only  each agent's read, search and list tools (its descriptor's `read_tools`)
//   tests      the project's test command, found in package.json, a Makefile,
//              pyproject.toml / setup.cfg / pytest.ini, Cargo.toml or go.mod
// Each becomes ordinary learned rules (`hookmap rules preset NAME --enable`),
// revocable one by one, and the floor still applies to every one of them.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export const PRESETS = {
  'read-only': "each agent's own read, search and list tools, everywhere",
  tests: "the project's test command (npm test, make test, pytest, cargo test, go test ./...), in that project",
} as const;

export type PresetName = keyof typeof PRESETS;
export const isPreset = (n: string): n is PresetName => Object.hasOwn(PRESETS, n);

/** The test commands a project declares, most specific first; empty when it declares none. */
export function testCommands(dir: string): { command: string; from: string }[] {
  const out: { command: string; from: string }[] = [];
  const read = (f: string) => {
    try {
      return readFileSync(join(dir, f), 'utf8');
    } catch {
      return undefined;
    }
  };
  const pkg = read('package.json');
  if (pkg) {
    try {
      const j = JSON.parse(pkg) as { scripts?: Record<string, unknown> };
      if (typeof j.scripts?.test === 'string' && !/no test specified/.test(j.scripts.test))
        out.push({ command: 'npm test', from: 'package.json scripts.test' });
    } catch {
      /* not JSON: no npm test */
    }
  }
  const make = read('Makefile') ?? read('makefile') ?? read('GNUmakefile');
  if (make && /^test\s*:/m.test(make)) out.push({ command: 'make test', from: 'Makefile target test' });
  const py = read('pyproject.toml');
  if ((py && /\[tool\.pytest/.test(py)) || read('pytest.ini') !== undefined || /\[tool:pytest\]/.test(read('setup.cfg') ?? ''))
    out.push({ command: 'pytest', from: 'pytest configuration' });
  if (existsSync(join(dir, 'Cargo.toml'))) out.push({ command: 'cargo test', from: 'Cargo.toml' });
  if (existsSync(join(dir, 'go.mod'))) out.push({ command: 'go test ./...', from: 'go.mod' });
  return out;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** A preset's rules, in the policy format (learned-file documents without `added`). */
export function presetRules(
  name: PresetName,
  o: { agents: { id: string; readTools: string[] }[]; dir?: string },
): { rules: Record<string, unknown>[]; notes: string[] } {
  const notes: string[] = [];
  if (name === 'read-only') {
    const rules = o.agents
      .filter((a) => a.readTools.length)
      .map((a) => ({
        id: `preset-read-only-${a.id}`,
        decide: 'allow',
        agent: a.id,
        tool: a.readTools,
        summary: `read-only preset: ${a.id}'s read, search and list tools`,
      }));
    for (const a of o.agents) if (!a.readTools.length) notes.push(`${a.id} names no read-only tools in its descriptor: nothing for it`);
    return { rules, notes };
  }
  const dir = o.dir!;
  const found = testCommands(dir);
  if (!found.length) notes.push(`${dir} declares no test command (package.json scripts.test, a Makefile test target, pytest, Cargo.toml, go.mod)`);
  const rules = found.map((f) => ({
    id: `preset-tests-${slug(basename(dir))}-${slug(f.command)}`,
    decide: 'allow',
    command: { prefix: f.command },
    project: dir,
    summary: `tests preset: ${f.command} (from ${f.from})`,
  }));
  return { rules, notes };
}
