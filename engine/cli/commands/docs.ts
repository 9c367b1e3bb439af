// `hookmap docs [--check]`: regenerates capabilities/ from the descriptors and
// their fixture evidence, docs/reference/ from the schemas and the expression
// tables, docs/cli.md's command tables from the command table
// (engine/cli/usage.ts), the README's agent table from the descriptors,
// docs/performance.md from the benches' results (bench/results/*.json,
// codegen/performance.ts), and checks docs/agents.md's hand-kept agent tables
// against vendors/ (codegen/agent-tables.ts). A results file that does not
// parse is named (bad-bench-result, exit 1) and the page renders the others.
// --check writes nothing and exits 1 on drift
// (changed, missing, stray, or generated but untracked files) printing the
// command that fixes it. A descriptor that does not load is an error (exit 1)
// in both modes; the other agents' pages are still written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { planDocs, GENERATED_DIRS } from '../../../codegen/docs.ts';
import { AGENT_TABLES_FILE, agentTableProblems, README_AGENTS_BEGIN, spliceReadmeAgents } from '../../../codegen/agent-tables.ts';
import { PERFORMANCE_FILE, performanceDoc, readBenchResults } from '../../../codegen/performance.ts';
import { formatDrift, syncFiles, untracked } from '../../../codegen/drift.ts';
import { checkAgents } from '../../tools/check/check-all.ts';
import { formatError } from '../../core/descriptor/errors.ts';
import { ROOT } from '../../core/descriptor/registry.ts';
import { parseArgs } from '../args.ts';
import { CLI_BEGIN, CLI_DOC, spliceCliDoc } from '../usage-doc.ts';

export async function run(argv: string[]): Promise<number> {
  let check: boolean;
  try {
    const { flags, positionals } = parseArgs(argv, { check: { type: 'boolean' } });
    if (positionals.length) throw new Error('usage: hookmap docs [--check]');
    check = !!flags.check;
  } catch (err) {
    process.stderr.write(`hookmap docs: ${(err as Error).message}\n`);
    return 2;
  }
  const reports = await checkAgents();
  const broken = reports.filter((r) => !r.descriptor);
  for (const r of broken) for (const e of r.errors) process.stderr.write(`${formatError(e)}\n`);
  const plan = await planDocs(reports);
  const descriptors = reports.flatMap((r) => (r.descriptor ? [r.descriptor] : []));
  // the generated parts of hand-kept pages, between their markers
  const spliced: [string, string | undefined, string][] = [
    ['README.md', spliceReadmeAgents(readFileSync(join(ROOT, 'README.md'), 'utf8'), descriptors), README_AGENTS_BEGIN],
    [CLI_DOC, spliceCliDoc(readFileSync(join(ROOT, CLI_DOC), 'utf8')), CLI_BEGIN],
  ];
  for (const [file, text, marker] of spliced) {
    if (text === undefined) {
      process.stderr.write(`hookmap docs: ${file} lost its generated section's markers (${marker} ... )\n`);
      return 1;
    }
    plan.files.set(file, text);
  }
  const bench = readBenchResults(ROOT);
  for (const p of bench.problems) process.stderr.write(`hookmap docs: ${p.file}: ${p.code}: ${p.message} (left out of ${PERFORMANCE_FILE})\n`);
  plan.files.set(PERFORMANCE_FILE, performanceDoc(bench.results));
  // docs/agents.md's hand-kept agent tables must name every agent vendors/ has (and none it has not)
  const tables = agentTableProblems(readFileSync(join(ROOT, AGENT_TABLES_FILE), 'utf8'), descriptors);
  for (const p of tables) process.stderr.write(`hookmap docs: ${p}\n`);
  const drift = syncFiles(plan.files, check, plan.stray);
  const seen = new Set(drift.map((d) => d.path));
  const fresh = untracked(GENERATED_DIRS).filter((p) => !seen.has(p));
  if (check) {
    for (const path of fresh) drift.push({ path, why: 'untracked' });
    if (drift.length)
      process.stdout.write(`hookmap docs: generated docs drifted:\n${drift.map(formatDrift).join('\n')}\nrun \`npx hookmap docs\` and commit\n`);
    else process.stdout.write(`hookmap docs: ${plan.files.size} files up to date\n`);
    return drift.length || broken.length || tables.length || bench.problems.length ? 1 : 0;
  }
  process.stdout.write(
    `hookmap docs: ${drift.length ? drift.map((d) => `${d.why === 'stray' ? 'removed' : 'wrote'} ${d.path}`).join(', ') : 'nothing changed'}\n`,
  );
  const uncommitted = [...fresh, ...drift.filter((d) => d.why === 'missing').map((d) => d.path)];
  if (uncommitted.length) process.stdout.write(`new files to commit: ${uncommitted.join(', ')}\n`);
  return broken.length || tables.length || bench.problems.length ? 1 : 0;
}
