// A check report as `hookmap capabilities --json` prints it (format
// hookmap.capabilities/1), and the generated copy of every agent's that
// `hookmap docs` writes (engine/tools/check/capabilities-json.ts reads it back).
import { readFileSync } from 'node:fs';
import { formatError } from '../../core/descriptor/errors.ts';
import type { AgentReport } from './check-agent.ts';
import { FORMAT, sha, type AgentJson } from './capabilities-json.ts';
import { vendorFile } from '../../core/descriptor/vendor-files.ts';

export function toJson(r: AgentReport): AgentJson {
  return {
    agent: r.target.agent,
    name: r.descriptor?.name ?? null,
    descriptor: r.target.display,
    fixtures: r.target.fixturesLabel,
    ok: r.errors.length === 0,
    errors: r.errors.map(formatError),
    pins: r.pins ? { file: r.pins.file, passed: r.pins.passed, total: r.pins.total } : null,
    cases: { passed: r.cases.filter((c) => c.passed).length, total: r.cases.length, not_run: r.cases.filter((c) => c.notRun !== undefined).length },
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

/** The generated file's text: every agent's report, each with the hash of the descriptor it was made from. */
export function renderCapabilitiesJson(reports: AgentReport[]): string {
  const agents = reports
    .filter((r) => r.descriptor)
    .map((r) => {
      const file = vendorFile(r.target.agent);
      return { ...toJson(r), descriptor_sha256: file ? sha(readFileSync(file)) : null };
    });
  const generated = 'by `hookmap docs` from vendors/ and fixtures/ (what `hookmap capabilities --json` prints); do not edit';
  return `${JSON.stringify({ generated, format: FORMAT, agents }, null, 2)}\n`;
}
