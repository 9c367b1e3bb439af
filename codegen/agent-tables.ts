// The README's hand-kept agent tables, checked against vendors/ by `hookmap
// docs` (and its --check): the wiring table and the pin table name every
// agent, the `--mcp` table every agent whose descriptor says where its MCP
// server goes (`setup.mcp`), and no row names an agent vendors/ does not
// have. A new descriptor without its README rows fails the drift gate.
import type { Descriptor } from '../engine/descriptor/types.ts';

/** A table by its header row, and which descriptors it must have a row for. */
const TABLES: { header: string; covers: (d: Descriptor) => boolean }[] = [
  { header: '| agent | surface | wire it | notes |', covers: () => true },
  { header: '| agent | upstream pins reproduced | posture |', covers: () => true },
  { header: '| agent | `--mcp` writes (user / `--project`) |', covers: (d) => d.setup?.mcp !== undefined },
];

/** A name as a README row writes it: no parentheticals, no code, one space. */
const norm = (s: string) =>
  s
    .replace(/\([^)]*\)/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

/** Does a row's agent cell (several names split by commas) name this descriptor? Its name, or the start of it (`Kimi Code` for `Kimi Code CLI`). */
function names(cell: string, d: Descriptor): boolean {
  const name = norm(d.name);
  return cell
    .replace(/\([^)]*\)/g, ' ')
    .split(',')
    .map(norm)
    .some((n) => n !== '' && (n === name || name.startsWith(`${n} `) || n === d.vendor));
}

/** The first cells of the rows of the table under `header`, or undefined when the README has no such table. */
function firstCells(readme: string, header: string): string[] | undefined {
  const lines = readme.split('\n');
  const at = lines.indexOf(header);
  if (at < 0) return undefined;
  const cells: string[] = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    cells.push(line.split('|')[1].trim());
  }
  return cells;
}

/** What is missing or stray, one line each; empty: every table agrees with vendors/. */
export function readmeAgentProblems(readme: string, descriptors: Descriptor[]): string[] {
  const problems: string[] = [];
  for (const t of TABLES) {
    const cells = firstCells(readme, t.header);
    const at = readme.split('\n').findIndex((l) => l.startsWith(t.header));
    const where = at >= 0 ? `README.md:${at + 1}` : 'README.md';
    if (!cells) {
      problems.push(`README.md: the agent table \`${t.header}\` is gone (codegen/readme-agents.ts checks it)`);
      continue;
    }
    for (const d of descriptors.filter(t.covers)) {
      if (!cells.some((c) => names(c, d)))
        problems.push(`${where}: the table \`${t.header}\` has no row for ${d.name} (${d.file}): add one like its neighbours'`);
    }
    for (const c of cells) {
      if (!descriptors.some((d) => names(c, d))) problems.push(`${where}: the table \`${t.header}\` has a row for "${c}", which no descriptor in vendors/ is`);
    }
  }
  return problems;
}
