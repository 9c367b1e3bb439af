// The one table-driven fixture test: every normalized-event case of every
// agent, through the real descriptor and mapper; every emitted event checked
// against the envelope and payload schemas.
import { describe, expect, it } from 'vitest';
import { formatAjvErrors, validateEnvelope, validatePayload } from '../engine/core/aep/schemas.ts';
import { listVendors, loadVendor } from '../engine/core/descriptor/registry.ts';
import { fixtureFiles } from '../engine/tools/cases/format.ts';
import { runEventCase } from '../engine/tools/cases/run-events.ts';
import { validateStream } from '../engine/core/validate/index.ts';

for (const agent of listVendors()) {
  describe(`fixtures/${agent}`, () => {
    const files = fixtureFiles(agent).filter((f) => f.kind === 'events');
    it('has normalized-event fixtures', () => {
      expect(files.length).toBeGreaterThan(0);
    });
    for (const f of files) {
      for (const c of f.cases) {
        it(`${f.file} ${c.name}`, async () => {
          const out = await runEventCase(loadVendor(agent), c, f.capture);
          expect(out.failures).toEqual([]);
          for (const ev of out.events) {
            expect(formatAjvErrors(validateEnvelope(ev)), `${ev.type} envelope`).toBe('');
            expect(formatAjvErrors(validatePayload(ev.type, ev.data)), `${ev.type} payload`).toBe('');
          }
          // what the engine emits is a stream a conformant consumer accepts
          expect(validateStream(out.events)).toEqual([]);
        });
      }
    }
  });
}
