// `hookmap check`'s one line per agent (engine/tools/check/check-agent.ts makes the report).
import type { AgentReport } from './check-agent.ts';

/** One line per agent: `<agent>: 11/11 pin cases, 11/11 fixture cases, 1 fixture file, 7 capabilities supported` */
export function summaryLine(r: AgentReport): string {
  if (!r.descriptor) return `${r.target.agent}: descriptor does not load (${r.errors.length} error${r.errors.length === 1 ? '' : 's'})`;
  const parts: string[] = [];
  if (r.pins) {
    const k = Object.keys(r.pins.known).length;
    const partial = Object.keys(r.pins.notReproducible).length;
    const notes = [k ? `${k} known not reproduced` : '', partial ? `${partial} with a pinned field not reproducible, stated` : ''].filter(Boolean);
    parts.push(`${r.pins.passed}/${r.pins.total} pin cases${notes.length ? ` (${notes.join('; ')})` : ''}`);
  }
  const passed = r.cases.filter((c) => c.passed).length;
  const notRun = new Map<string, number>();
  for (const c of r.cases) if (c.notRun !== undefined) notRun.set(c.notRun, (notRun.get(c.notRun) ?? 0) + 1);
  const unrun = [...notRun].map(([why, n]) => `${n} not run: ${why}`).join('; ');
  parts.push(`${passed}/${r.cases.length} fixture cases${unrun ? ` (${unrun})` : ''}`);
  parts.push(`${r.fixtureFiles.length} fixture file${r.fixtureFiles.length === 1 ? '' : 's'}`);
  if (r.recorded) parts.push(`${r.recorded.passed}/${r.recorded.total} recorded payloads`);
  const sup = r.capabilities.filter((c) => c.state === 'supported');
  parts.push(`${sup.filter((c) => c.proven).length}${sup.length !== sup.filter((c) => c.proven).length ? `/${sup.length}` : ''} capabilities supported`);
  if (r.errors.length) parts.push(`${r.errors.length} error${r.errors.length === 1 ? '' : 's'}`);
  return `${r.target.agent}: ${parts.join(', ')}`;
}
