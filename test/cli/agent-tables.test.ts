// docs/agents.md's hand-kept agent tables are checked against vendors/ (issue
// 28: a new agent was missing from them and `docs --check` still passed); the
// README's short agent table is generated from vendors/ (issue 45).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTableProblems, readmeAgentsTable, spliceReadmeAgents, wireCommand } from '../../codegen/agent-tables.ts';
import { listVendors, loadVendor, ROOT } from '../../engine/core/descriptor/registry.ts';
import type { Descriptor } from '../../engine/core/descriptor/types.ts';

const readme = readFileSync(join(ROOT, 'docs/agents.md'), 'utf8');
const all = listVendors().map(loadVendor);

describe("docs/agents.md's agent tables", () => {
  it('name every agent of vendors/, and nothing else', () => {
    expect(agentTableProblems(readme, all)).toEqual([]);
  });

  it('a new descriptor without its rows fails, naming each table it is missing from', () => {
    const newcomer = { ...all.find((d) => d.vendor === 'codex')!, vendor: 'newcomer', name: 'Newcomer CLI', file: 'vendors/newcomer.yaml' } as Descriptor;
    // each names the table's line, so an author finds it without a search
    const at = (header: string) => `docs/agents.md:${readme.split('\n').findIndex((l) => l.startsWith(header)) + 1}`;
    expect(agentTableProblems(readme, [...all, newcomer])).toEqual([
      `${at('| agent | surface | wire it | notes |')}: the table \`| agent | surface | wire it | notes |\` has no row for Newcomer CLI (vendors/newcomer.yaml): add one like its neighbours'`,
      `${at('| agent | upstream pins reproduced | posture |')}: the table \`| agent | upstream pins reproduced | posture |\` has no row for Newcomer CLI (vendors/newcomer.yaml): add one like its neighbours'`,
      `${at('| agent | `--mcp` writes')}: the table \`| agent | \`--mcp\` writes (user / \`--project\`) |\` has no row for Newcomer CLI (vendors/newcomer.yaml): add one like its neighbours'`,
    ]);
    expect(at('| agent | surface | wire it | notes |')).not.toBe('docs/agents.md:0');
  });

  it('a removed row and a row for an agent vendors/ does not have both fail', () => {
    const edited = readme
      .replace(/^\| Cline \| 14\/14 \| control \|\n/m, '')
      .replace(/^\| Codex CLI \| 11\/11 \| control \|\n/m, '$&| Nobody | 1/1 | control |\n');
    expect(edited).not.toBe(readme);
    const line = edited.split('\n').findIndex((l) => l.startsWith('| agent | upstream pins reproduced | posture |')) + 1;
    expect(agentTableProblems(edited, all)).toEqual([
      `docs/agents.md:${line}: the table \`| agent | upstream pins reproduced | posture |\` has no row for Cline (vendors/cline.yaml): add one like its neighbours'`,
      `docs/agents.md:${line}: the table \`| agent | upstream pins reproduced | posture |\` has a row for "Nobody", which no descriptor in vendors/ is`,
    ]);
  });
});

describe("the README's agent table", () => {
  const front = readFileSync(join(ROOT, 'README.md'), 'utf8');
  it('is the generated one, a row per descriptor, each linked to its capabilities page', () => {
    expect(front).toContain(readmeAgentsTable(all));
    for (const d of all) expect(front).toContain(`](capabilities/${d.vendor}.md) | ${wireCommand(d)} |`);
  });
  it('a new descriptor gets its row when the docs are regenerated', () => {
    const newcomer = { ...all.find((d) => d.vendor === 'codex')!, vendor: 'newcomer', name: 'Newcomer CLI', file: 'vendors/newcomer.yaml' } as Descriptor;
    const next = spliceReadmeAgents(front, [...all, newcomer])!;
    expect(next).toContain('| [Newcomer CLI](capabilities/newcomer.md) | `hookmap setup newcomer` |');
    expect(next.length).toBeGreaterThan(front.length);
  });
  it('a README without its markers is refused, not rewritten', () => {
    expect(spliceReadmeAgents(front.replace('<!-- /agents -->', ''), all)).toBeUndefined();
    expect(spliceReadmeAgents('# hookmap\n', all)).toBeUndefined();
  });
  it('says how each surface is wired from the descriptor alone', () => {
    const by = (v: string) => wireCommand(all.find((d) => d.vendor === v)!);
    expect(by('codex-otel')).toBe('`hookmap setup codex --otel`');
    expect(by('openhands')).toBe('`agents.openhands.instances` in the `hookmap up --config` file');
    expect(by('acp')).toBe('`hookmap setup acp --wrap "<agent command>"`');
    expect(by('claude-code')).toBe('`hookmap setup claude-code`');
  });
});
