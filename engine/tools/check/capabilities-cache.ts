// `hookmap capabilities` in a clone runs every fixture of the agents it shows
// (seconds: the AEP schemas compiled, every case mapped and replied). A report
// depends only on the descriptor's bytes, the agent's fixture folder and the
// hookmap that checked them (the CLI's stamp: the bundle's source digest, or
// the sources' change times), so it is kept in the home under a hash of all
// three and read back while none of them changed. Agents named by a path (a
// draft) are always checked afresh.
import { createHash, type Hash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentJson } from './capabilities-json.ts';
import { FIXTURES_DIR, vendorFile } from '../../core/descriptor/vendor-files.ts';

/** Bumped when the kept report's shape or what it covers changes. */
const FORMAT = 'capabilities-report/1';

function addTree(h: Hash, dir: string, rel: string): void {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return; // no fixtures: the check says so, and that is what is kept
  }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) addTree(h, p, `${rel}${n}/`);
    else h.update(`${rel}${n}\0`).update(readFileSync(p)).update('\0');
  }
}

/** The key of a vendor's report, or undefined for what is not a vendor id (a path, an unknown name). */
export function reportKey(stamp: string, agent: string, fixturesRoot = FIXTURES_DIR): string | undefined {
  if (agent.includes('/') || /\.ya?ml$/.test(agent)) return undefined;
  const file = vendorFile(agent);
  if (!file) return undefined;
  const h = createHash('sha256').update(FORMAT).update('\0').update(stamp).update('\0').update(readFileSync(file)).update('\0');
  addTree(h, join(fixturesRoot, agent), '');
  return h.digest('hex');
}

export function keptReport(folder: string, key: string): AgentJson | undefined {
  try {
    const e = JSON.parse(readFileSync(join(folder, `${key}.json`), 'utf8')) as { format?: unknown; key?: unknown; report?: AgentJson };
    if (e.format === FORMAT && e.key === key && e.report && typeof e.report.agent === 'string') return e.report;
  } catch {
    // not kept yet, or not an entry
  }
  return undefined;
}

/** Best effort: a report that cannot be kept is computed again next time. */
export function keepReport(folder: string, key: string, report: AgentJson): void {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const file = join(folder, `${key}.json`);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ format: FORMAT, key, report }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // a cache is best effort
  }
}
