// `hookmap capabilities [agent] [--json]`: the compiled, fixture-backed truth
// per agent. Exit 0 when every agent shown checks clean, 1 otherwise, 2 on a
// usage error.
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
import { checkAgents } from '../../check/check-all.ts';
import type { AgentReport } from '../../check/check-agent.ts';
import { formatError } from '../../descriptor/errors.ts';
import { ArgError, parseArgs } from '../args.ts';

export async function run(argv: string[]): Promise<number> {
  let agent: string | undefined;
  let json: boolean;
  try {
    const { flags, positionals } = parseArgs(argv, { json: { type: 'boolean' } });
    if (positionals.length > 1) throw new ArgError('usage: hookmap capabilities [agent] [--json]');
    agent = positionals[0];
    json = !!flags.json;
  } catch (err) {
    process.stderr.write(`hookmap capabilities: ${(err as Error).message}\n`);
    return 2;
  }
  let reports: AgentReport[];
  try {
    reports = await checkAgents(agent);
  } catch (err) {
    process.stderr.write(`hookmap capabilities: ${(err as Error).message}\n`);
    return 2;
  }
  const ok = reports.every((r) => r.errors.length === 0);
  if (json) process.stdout.write(`${JSON.stringify({ format: 'hookmap.capabilities/1', ok, agents: reports.map(toJson) }, null, 2)}\n`);
  else process.stdout.write(reports.map(toText).join('\n'));
  return ok ? 0 : 1;
}

export function toJson(r: AgentReport) {
  return {
    agent: r.target.agent,
    name: r.descriptor?.name ?? null,
    descriptor: r.target.display,
    fixtures: r.target.fixturesLabel,
    ok: r.errors.length === 0,
    errors: r.errors.map(formatError),
    pins: r.pins ? { file: r.pins.file, passed: r.pins.passed, total: r.pins.total } : null,
    cases: { passed: r.cases.filter((c) => c.passed).length, total: r.cases.length },
    capabilities: r.capabilities.map((c) => ({
      id: c.id,
      description: c.description,
      state: c.state,
      proven: c.proven,
      why: c.why ?? null,
      evidence: c.evidence,
      proven_by: c.provenBy,
      live: c.live ?? null,
    })),
  };
}

function toText(r: AgentReport): string {
  const lines = [`${r.target.agent}${r.descriptor ? ` (${r.descriptor.name})` : ''}: ${r.target.display}`];
  for (const e of r.errors) lines.push(`  ${formatError(e)}`);
  for (const c of r.capabilities) {
    if (c.state === 'undeclared') continue;
    const mark = c.state === 'supported' ? (c.proven ? 'supported' : 'supported (NOT PROVEN)') : c.state;
    lines.push(`  ${c.id.padEnd(24)} ${mark}  ${c.description}`);
    if (c.why) lines.push(`    why: ${c.why}`);
    for (const e of c.evidence) lines.push(`    evidence: ${e}`);
    if (c.state === 'supported' && !c.proven) lines.push(`    would be proven by: ${c.provenBy}`);
    if (c.live) lines.push(`    live: ${c.live}`);
  }
  const undeclared = r.capabilities.filter((c) => c.state === 'undeclared').map((c) => c.id);
  if (undeclared.length) lines.push(`  undeclared: ${undeclared.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
