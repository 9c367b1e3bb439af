// The README's agent tables are checked against vendors/ (issue 28: a new
// agent was missing from them and `docs --check` still passed).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeAgentProblems } from '../../codegen/readme-agents.ts';
import { listVendors, loadVendor, ROOT } from '../../engine/descriptor/registry.ts';
import type { Descriptor } from '../../engine/descriptor/types.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const all = listVendors().map(loadVendor);

describe("the README's agent tables", () => {
  it('name every agent of vendors/, and nothing else', () => {
    expect(readmeAgentProblems(readme, all)).toEqual([]);
  });

  it('a new descriptor without its rows fails, naming each table it is missing from', () => {
    const newcomer = { ...all.find((d) => d.vendor === 'codex')!, vendor: 'newcomer', name: 'Newcomer CLI', file: 'vendors/newcomer.yaml' } as Descriptor;
    // each names the table's line, so an author finds it without a search
    const at = (header: string) => `README.md:${readme.split('\n').findIndex((l) => l.startsWith(header)) + 1}`;
    expect(readmeAgentProblems(readme, [...all, newcomer])).toEqual([
      `${at('| agent | surface | wire it | notes |')}: the table \`| agent | surface | wire it | notes |\` has no row for Newcomer CLI (vendors/newcomer.yaml): add one like its neighbours'`,
      `${at('| agent | upstream pins reproduced | posture |')}: the table \`| agent | upstream pins reproduced | posture |\` has no row for Newcomer CLI (vendors/newcomer.yaml): add one like its neighbours'`,
      `${at('| agent | `--mcp` writes')}: the table \`| agent | \`--mcp\` writes (user / \`--project\`) |\` has no row for Newcomer CLI (vendors/newcomer.yaml): add one like its neighbours'`,
    ]);
    expect(at('| agent | surface | wire it | notes |')).not.toBe('README.md:0');
  });

  it('a removed row and a row for an agent vendors/ does not have both fail', () => {
    const edited = readme
      .replace(/^\| Cline \| 14\/14 \| control \|\n/m, '')
      .replace(/^\| Codex CLI \| 11\/11 \| control \|\n/m, '$&| Nobody | 1/1 | control |\n');
    expect(edited).not.toBe(readme);
    const line = edited.split('\n').findIndex((l) => l.startsWith('| agent | upstream pins reproduced | posture |')) + 1;
    expect(readmeAgentProblems(edited, all)).toEqual([
      `README.md:${line}: the table \`| agent | upstream pins reproduced | posture |\` has no row for Cline (vendors/cline.yaml): add one like its neighbours'`,
      `README.md:${line}: the table \`| agent | upstream pins reproduced | posture |\` has a row for "Nobody", which no descriptor in vendors/ is`,
    ]);
  });
});
