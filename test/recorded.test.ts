// Real payloads recorded from live agents (`kind: recorded`, fixtures/<agent>/recorded/)
// are regression input: each must map without an error, into valid events.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatAjvErrors, validateEnvelope, validatePayload } from '../engine/core/aep/schemas.ts';
import { FIXTURES_DIR, listVendors, loadVendor } from '../engine/core/descriptor/registry.ts';
import { Mapper } from '../engine/core/map/mapper.ts';

for (const agent of listVendors()) {
  const dir = join(FIXTURES_DIR, agent, 'recorded');
  if (!existsSync(dir)) continue;
  const files = readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  describe(`recorded payloads of ${agent}`, () => {
    for (const f of files) {
      it(f, async () => {
        const doc = parse(readFileSync(join(dir, f), 'utf8'));
        expect(doc.kind).toBe('recorded');
        const d = loadVendor(agent);
        const r = await new Mapper(d).map(d.hookName ? undefined : doc.hook, doc.payload);
        for (const ev of r.events) {
          expect(ev.type, 'no mapping diagnostics').not.toMatch(/\.error\.mapping_failed$/);
          expect(formatAjvErrors(validateEnvelope(ev)), `${ev.type} envelope`).toBe('');
          expect(formatAjvErrors(validatePayload(ev.type, ev.data)), `${ev.type} payload`).toBe('');
        }
        // a hook the descriptor names maps through its rule, not the fallback
        if (d.hooks.has(doc.hook))
          expect(
            r.events.every((e) => !e.type.startsWith(`x.${agent}.session.`) || d.hooks.get(doc.hook)!.emit.some((x) => x.typeText.startsWith('x.'))),
            'not the fallback',
          ).toBe(true);
      });
    }
  });
}
