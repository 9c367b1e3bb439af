// Every decision-codec case of every agent, through the daemon's real hold
// machinery (engine/fixtures/run-decisions.ts): exact reply bytes, exit
// code, emitted card, acks, and a valid AEP stream; surface command cases:
// the exact bytes written on the surface and the ack.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { listVendors, loadVendor } from '../../engine/descriptor/registry.ts';
import { FIXTURES_DIR } from '../../engine/descriptor/registry.ts';
import { isCommandCase, runCommandCase, runDecisionCase, type CommandCase, type DecisionCase } from '../../engine/fixtures/run-decisions.ts';

/** This agent's `kind: decisions` files (a malformed file of another kind is not this test's business). */
function decisionFiles(agent: string): { file: string; cases: (DecisionCase | CommandCase)[] }[] {
  const dir = join(FIXTURES_DIR, agent);
  if (!existsSync(dir)) return [];
  const out: { file: string; cases: (DecisionCase | CommandCase)[] }[] = [];
  for (const f of readdirSync(dir).sort()) {
    if (!/\.ya?ml$/.test(f)) continue;
    const text = readFileSync(join(dir, f), 'utf8');
    if (!/^kind:\s*decisions\s*$/m.test(text)) continue;
    out.push({ file: `fixtures/${agent}/${f}`, cases: parse(text).cases ?? [] });
  }
  return out;
}

for (const agent of listVendors()) {
  const files = decisionFiles(agent);
  if (!files.length) continue;
  describe(`decisions/${agent}`, () => {
    for (const f of files) {
      for (const c of f.cases) {
        it(`${f.file} ${c.name}`, async () => {
          const out = isCommandCase(c) ? await runCommandCase(loadVendor(agent), c) : await runDecisionCase(loadVendor(agent), c);
          expect(out.failures).toEqual([]);
        });
      }
    }
  });
}
