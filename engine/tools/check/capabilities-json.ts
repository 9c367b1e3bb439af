// `hookmap capabilities --json`'s shape (format hookmap.capabilities/1), and
// the generated copy of every agent's
// (capabilities/capabilities.json, written by `hookmap docs`, drift-checked by
// `hookmap docs --check`). An installed package ships no fixtures, so there
// `capabilities` reads that copy (for a descriptor whose bytes it was made
// from) instead of running the fixtures; a clone always runs them.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// not the registry: importing it would load the descriptor compiler, which reading this file never needs
import { FIXTURES_DIR, ROOT, vendorFile } from '../../core/descriptor/vendor-files.ts';

export const CAPABILITIES_JSON = 'capabilities/capabilities.json';
export const FORMAT = 'hookmap.capabilities/1';

/** One agent as `hookmap capabilities --json` prints it. */
export interface AgentJson {
  agent: string;
  name: string | null;
  descriptor: string;
  fixtures: string;
  ok: boolean;
  errors: string[];
  pins: { file: string; passed: number; total: number } | null;
  cases: { passed: number; total: number; not_run?: number };
  capabilities: {
    id: string;
    description: string;
    state: string;
    proven: boolean;
    why: string | null;
    evidence: string[];
    proven_by: string;
    live: string | null;
  }[];
}

export const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The generated reports of these agents (all when none is named), or
 * undefined when they must be computed: in a clone (fixtures present), for
 * an agent named by path or not in the file, or a descriptor changed since.
 */
export function generatedReports(agent: string | undefined): AgentJson[] | undefined {
  if (existsSync(FIXTURES_DIR)) return undefined;
  let doc: { format?: string; agents?: (AgentJson & { descriptor_sha256: string | null })[] };
  try {
    doc = JSON.parse(readFileSync(join(ROOT, CAPABILITIES_JSON), 'utf8'));
  } catch {
    return undefined;
  }
  if (doc.format !== FORMAT || !Array.isArray(doc.agents)) return undefined;
  const chosen = agent === undefined ? doc.agents : doc.agents.filter((a) => a.agent === agent);
  if (!chosen.length) return undefined;
  for (const a of chosen) {
    const file = vendorFile(a.agent);
    if (!file || sha(readFileSync(file)) !== a.descriptor_sha256) return undefined;
  }
  return chosen.map(({ descriptor_sha256: _, ...a }) => a);
}
