// Every decision-codec case of every agent, through the daemon's real hold
// machinery (engine/tools/cases/run-decisions.ts): exact reply bytes, exit
// code, emitted card, acks, and a valid AEP stream; surface command cases:
// the exact bytes written on the surface and the ack; delivery cases
// (engine/tools/cases/run-deliveries.ts): what a hook reply carries besides its
// neutral bytes (steering, cancel, policy decisions).
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { listVendors, loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { FIXTURES_DIR } from '../../../engine/core/descriptor/registry.ts';
import { isCommandCase, runCommandCase, runDecisionCase, type CommandCase, type DecisionCase } from '../../../engine/tools/cases/run-decisions.ts';
import { isDeliveryCase, runDeliveryCase, type DeliveryCase } from '../../../engine/tools/cases/run-deliveries.ts';

/** This agent's `kind: decisions` files (a malformed file of another kind is not this test's business). */
function decisionFiles(agent: string): { file: string; cases: (DecisionCase | CommandCase | DeliveryCase)[] }[] {
  const dir = join(FIXTURES_DIR, agent);
  if (!existsSync(dir)) return [];
  const out: { file: string; cases: (DecisionCase | CommandCase | DeliveryCase)[] }[] = [];
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
          const d = loadVendor(agent);
          const out = isDeliveryCase(c)
            ? await runDeliveryCase(d, c)
            : isCommandCase(c)
              ? await runCommandCase(d, c)
              : await runDecisionCase(d, c as DecisionCase);
          expect(out.failures).toEqual([]);
        });
      }
    }
  });
}
