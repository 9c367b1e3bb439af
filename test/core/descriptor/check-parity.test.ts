// `hookmap check` is what CI checks (issue 16): over the broken corpus
// (fixtures/_invalid) and every real agent, whatever `npm test` would fail on
// (the descriptor loading, every normalized-event case with its envelope,
// payload and stream validation as test/fixtures.test.ts runs it, every
// decision and delivery case as test/runtime/daemon/decisions.test.ts runs it) `hookmap check`
// fails on too. Both verdicts are computed here, side by side.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { formatAjvErrors, validateEnvelope, validatePayload } from '../../../engine/core/aep/schemas.ts';
import { checkTarget } from '../../../engine/tools/check/targets.ts';
import { run as check } from '../../../engine/cli/commands/check.ts';
import { loadDescriptorFile } from '../../../engine/core/descriptor/compile.ts';
import { listVendors } from '../../../engine/core/descriptor/registry.ts';
import type { Descriptor } from '../../../engine/core/descriptor/types.ts';
import { isCommandCase, runCommandCase, runDecisionCase } from '../../../engine/tools/cases/run-decisions.ts';
import { isDeliveryCase, runDeliveryCase } from '../../../engine/tools/cases/run-deliveries.ts';
import { runEventCase } from '../../../engine/tools/cases/run-events.ts';
import { validateStream } from '../../../engine/core/validate/index.ts';
import { INVALID_DIR, invalidNames } from './corpus.ts';

/** What the CI tests would report for one descriptor and its fixture folder (empty: they pass). */
async function ciFailures(path: string): Promise<string[]> {
  const t = checkTarget(path);
  const loaded = loadDescriptorFile(t.path, { displayPath: t.display });
  if (!loaded.descriptor) return ['the descriptor does not load'];
  const d = loaded.descriptor;
  const files = existsSync(t.fixturesDir) ? readdirSync(t.fixturesDir).filter((f) => /\.ya?ml$/.test(f) && !f.startsWith('_') && f !== 'pin-setup.yaml') : [];
  const docs = files.map((f) => parse(readFileSync(join(t.fixturesDir, f), 'utf8')) ?? {});
  const out: string[] = [];
  if (!docs.some((doc) => doc.kind === 'events')) out.push('no normalized-event fixtures');
  for (const doc of docs) {
    for (const c of doc.cases ?? []) {
      try {
        await ciCase(d, doc, c, out);
      } catch (err) {
        out.push(`crash: ${(err as Error).message}`); // a test that throws fails too
      }
    }
  }
  return out;
}

async function ciCase(d: Descriptor, doc: any, c: any, out: string[]): Promise<void> {
  {
    {
      if (doc.kind === 'events') {
        if (c.known) return; // a known-not-reproduced pin is expected to fail
        const r = await runEventCase(d, c, doc.capture);
        out.push(...r.failures);
        for (const ev of r.events) {
          const bad = formatAjvErrors(validateEnvelope(ev)) || formatAjvErrors(validatePayload(ev.type, ev.data));
          if (bad) out.push(`${ev.type}: ${bad}`);
        }
        out.push(...validateStream(r.events).map((v) => v.rule));
      } else if (doc.kind === 'decisions') {
        const r = isDeliveryCase(c) ? await runDeliveryCase(d, c) : isCommandCase(c) ? await runCommandCase(d, c) : await runDecisionCase(d, c);
        out.push(...r.failures);
      }
    }
  }
}

/** `hookmap check <path>`'s exit status (its output swallowed). */
async function checkStatus(path: string): Promise<number> {
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    return await check([path]);
  } finally {
    write.mockRestore();
    err.mockRestore();
  }
}

describe('hookmap check fails wherever npm test fails', () => {
  for (const name of invalidNames()) {
    it(`broken: ${name}`, async () => {
      const path = join(INVALID_DIR, `${name}.yaml`);
      const ci = await ciFailures(path);
      const status = await checkStatus(path);
      // every corpus case is broken: check says so, whether or not the CI tests notice
      expect(status, `check passes ${name} (CI: ${ci.join('; ') || 'passes too'})`).toBe(1);
    });
  }
  for (const agent of listVendors()) {
    it(`agent: ${agent}`, async () => {
      const ci = await ciFailures(agent);
      const status = await checkStatus(agent);
      expect(ci).toEqual([]);
      expect(status).toBe(0);
    });
  }
});
