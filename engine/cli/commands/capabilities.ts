// `hookmap capabilities [agent] [--evidence] [--json]`: the compiled,
// fixture-backed truth per agent. Exit 0 when every agent shown checks clean,
// 1 otherwise, 2 on a usage error.
//
// The text groups the capabilities by state, each group headed by what its
// state means in words; --evidence adds the fixture cases behind each claim
// and the live runs. Every line fits 100 columns.
//
// --json prints one object (stable shape; absent values are null, lists are
// always present, capabilities follow the vocabulary's order):
//   { "format": "hookmap.capabilities/1", "ok": boolean,
//     "agents": [ { "agent": string, "name": string|null, "descriptor": string,
//       "fixtures": string, "ok": boolean, "errors": string[] (formatted lines),
//       "pins": { "file": string, "passed": number, "total": number } | null,
//       "cases": { "passed": number, "total": number },
//       "capabilities": [ { "id": string, "description": string,
//         "state": "supported"|"unsupported"|"not-implemented"|"unverified"|"undeclared",
//         "proven": boolean, "why": string|null, "evidence": string[] ("file#case"),
//         "proven_by": string, "live": string|null } ] } ] }
import { join } from 'node:path';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { FORMAT, generatedReports, type AgentJson } from '../../tools/check/capabilities-json.ts';
import { keepReport, keptReport, reportKey } from '../../tools/check/capabilities-cache.ts';
import { listVendors } from '../../core/descriptor/vendor-files.ts';
import { runStamp } from '../stamp.ts';
import { ArgError, parseArgs } from '../args.ts';
import { wrapLine, wrapWords } from '../../core/text/wrap.ts';

export async function run(argv: string[], config: RuntimeConfig): Promise<number> {
  let agent: string | undefined;
  let json: boolean;
  let evidence: boolean;
  try {
    const { flags, positionals } = parseArgs(argv, { json: { type: 'boolean' }, evidence: { type: 'boolean' } });
    if (positionals.length > 1) throw new ArgError('usage: hookmap capabilities [agent] [--evidence] [--json]');
    agent = positionals[0];
    json = !!flags.json;
    evidence = !!flags.evidence;
  } catch (err) {
    process.stderr.write(`hookmap capabilities: ${(err as Error).message}\n`);
    return 2;
  }
  // an installed package has no fixtures to run: it reads what `hookmap docs` generated from them; a clone runs them, or
  // reads back what this hookmap found for the same descriptor and fixtures before (check/capabilities-cache.ts)
  let reports = generatedReports(agent);
  if (!reports) {
    const kept = join(config.home, 'cache', 'capabilities');
    reports = [];
    try {
      for (const a of agent === undefined ? listVendors() : [agent]) {
        const key = reportKey(runStamp(), a);
        let r = key ? keptReport(kept, key) : undefined;
        if (!r) {
          const { checkAgents } = await import('../../tools/check/check-all.ts');
          const { toJson } = await import('../../tools/check/capabilities-report.ts');
          [r] = (await checkAgents(a)).map(toJson);
          if (key) keepReport(kept, key, r);
        }
        reports.push(r);
      }
    } catch (err) {
      process.stderr.write(`hookmap capabilities: ${(err as Error).message}\n`);
      return 2;
    }
  }
  const ok = reports.every((r) => r.errors.length === 0);
  if (json) process.stdout.write(`${JSON.stringify({ format: FORMAT, ok, agents: reports }, null, 2)}\n`);
  else
    process.stdout.write(
      reports.map((r) => toText(r, evidence)).join('\n') + (evidence ? '' : '\n--evidence: the fixture cases behind each claim; --json: all of it, as JSON.\n'),
    );
  return ok ? 0 : 1;
}

type Capability = AgentJson['capabilities'][number];

/** The groups, in the order shown, each with what its state means (one line of words). */
const GROUPS: { title: string; means: string; has: (c: Capability) => boolean }[] = [
  { title: 'supported', means: 'the descriptor claims it and a fixture case proves it', has: (c) => c.state === 'supported' && c.proven },
  {
    title: 'supported, NOT PROVEN',
    means: 'claimed, but no fixture case shows it yet (hookmap check fails)',
    has: (c) => c.state === 'supported' && !c.proven,
  },
  { title: 'unsupported', means: 'the agent offers no way to do it (why: what it lacks)', has: (c) => c.state === 'unsupported' },
  { title: 'not implemented', means: 'the agent could, hookmap does not do it yet', has: (c) => c.state === 'not-implemented' },
  { title: 'unverified', means: "not known either way: the agent's sources do not pin it down yet", has: (c) => c.state === 'unverified' },
  { title: 'not declared', means: 'the descriptor says nothing about it, so nothing is promised either way', has: (c) => c.state === 'undeclared' },
];

function toText(r: AgentJson, evidence: boolean): string {
  const lines = [`${r.agent}${r.name ? ` (${r.name})` : ''}: ${r.descriptor}`];
  for (const e of r.errors) lines.push(...wrapLine(`  ${e}`));
  const w = Math.max(0, ...r.capabilities.map((c) => c.id.length));
  const runs = [...new Set(r.capabilities.map((c) => c.live).filter(Boolean))];
  for (const g of GROUPS) {
    const caps = r.capabilities.filter(g.has);
    if (!caps.length) continue;
    lines.push(...wrapLine(`  ${g.title} (${caps.length}): ${g.means}`));
    const live = caps.some((c) => c.live);
    if (live) lines.push(...wrapLine(`    live = also seen with the real agent${runs.length === 1 ? ` (${runs[0]})` : ' (--evidence: which run)'}`));
    for (const c of caps) {
      const mark = live ? (c.live ? 'live  ' : '      ') : '';
      lines.push(...wrapWords(`    ${c.id.padEnd(w)}  ${mark}`, c.description.split(' '), ' '.repeat(w + 6 + mark.length)));
      if (c.why) lines.push(...wrapWords('      why: ', c.why.split(' '), '           '));
      if (c.state === 'supported' && !c.proven) lines.push(...wrapWords('      proven by: ', c.proven_by.split(' '), '                 '));
      if (!evidence) continue;
      for (const e of c.evidence) lines.push(...wrapLine(`      evidence: ${e}`));
      if (c.live) lines.push(...wrapLine(`      live: ${c.live}`));
    }
  }
  return `${lines.join('\n')}\n`;
}
