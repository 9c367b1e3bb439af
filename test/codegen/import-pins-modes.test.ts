// codegen/import-pins.ts: pins that give one expectation per mode ({input,
// companion, primary}: the AEP Annex A pins of the OTel channels) become one
// case per mode, each under the descriptor config its mode names in
// pin-setup.yaml (`modes`); a mode the setup does not name, or one a pin
// lacks, fails the import instead of leaving the count.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { importPins, pinsDocument, syncPins, type Setup } from '../../codegen/import-pins.ts';
import { loadVendor } from '../../engine/core/descriptor/registry.ts';
import { runEventCase } from '../../engine/tools/cases/run-events.ts';

const upstream = (agent: string) => JSON.parse(readFileSync(new URL(`../../fixtures/upstream/aep/mappings/${agent}.json`, import.meta.url), 'utf8'));
const MODES: Setup = { modes: { companion: { primary: false }, primary: { primary: true } } };
const rec = (extra: Record<string, unknown>) => ({ input: { attributes: { 'event.name': 'x.y' } }, ...extra });

describe('import-pins: per-mode pins', () => {
  for (const [agent, records] of [
    ['codex-otel', 9],
    ['vscode-otel', 6],
  ] as const) {
    it(`${agent}: every record and the unknown block, once per mode, under that mode's config`, () => {
      const doc = parse(importPins(agent)!);
      const pins = upstream(agent);
      expect(Object.keys(pins.records)).toHaveLength(records);
      const names = [...Object.keys(pins.records).map((k) => `records.${k}`), 'unknown'].flatMap((n) => [`${n}.companion`, `${n}.primary`]);
      expect(doc.cases.map((c: any) => c.name)).toEqual(names);
      for (const c of doc.cases) {
        const [base, mode] = [c.name.replace(/\.(companion|primary)$/, ''), c.name.split('.').at(-1)];
        expect(c.config).toEqual({ primary: mode === 'primary' });
        const pin = base === 'unknown' ? pins.unknown : pins.records[base.slice('records.'.length)];
        expect(c.steps.at(-1).input).toEqual(pin.input);
        expect(c.steps.at(-1).expect.map((e: any) => e.type)).toEqual(pin[mode] === null ? [] : [pin[mode].type]);
        expect(c.provenance).toBe(`aep conformance/fixtures/mappings/${agent}.json#/${base.replace('.', '/')}/${mode}`);
      }
    });

    it(`${agent}: each case passes under its own mode and fails under the other where the pins differ`, async () => {
      const d = loadVendor(agent);
      const doc = parse(importPins(agent)!);
      let differing = 0;
      for (const c of doc.cases) {
        expect((await runEventCase(d, c, doc.capture)).failures, c.name).toEqual([]);
        const other = doc.cases.find((o: any) => o.name !== c.name && o.name.replace(/\.\w+$/, '') === c.name.replace(/\.\w+$/, ''));
        if (JSON.stringify(other.steps.at(-1).expect) === JSON.stringify(c.steps.at(-1).expect)) continue;
        differing++;
        expect((await runEventCase(d, { ...c, config: other.config }, doc.capture)).failures, c.name).not.toEqual([]);
      }
      expect(differing).toBeGreaterThan(0);
    });
  }

  it('the generated pins of codex-otel and vscode-otel are current', () => {
    expect(syncPins(['codex-otel', 'vscode-otel'], true)).toEqual([]);
  });

  it('a null expectation is a case expecting no event; modes merge over the setup config', () => {
    const doc: any = pinsDocument('t', { records: { a: rec({ companion: { type: 'x.t.a' }, primary: null }) } }, { ...MODES, config: { other: 1 } });
    expect(doc.cases.map((c: any) => [c.name, c.config, c.steps[0].expect])).toEqual([
      ['records.a.companion', { other: 1, primary: false }, [{ type: 'x.t.a', subject: null, data: {} }]],
      ['records.a.primary', { other: 1, primary: true }, []],
    ]);
  });

  it('refuses a pin with a mode the setup does not name, one lacking a named mode, and moded pins with no modes set up', () => {
    expect(() => pinsDocument('t', { records: { a: rec({ companion: null, primary: null, shadow: null }) } }, MODES)).toThrow(
      /pin 'records\.a' has no 'expected' and mode\(s\) shadow that fixtures\/t\/pin-setup\.yaml does not name/,
    );
    expect(() => pinsDocument('t', { records: { a: rec({ companion: null }) } }, MODES)).toThrow(/pin 'records\.a' has no 'primary' expectation/);
    expect(() => pinsDocument('t', { unknown: rec({ companion: null, primary: null }) }, {})).toThrow(/pin 'unknown' has no 'expected' and its modes/);
    expect(() => pinsDocument('t', { records: { a: { input: {} } } }, {})).toThrow(/pin 'records\.a' has no 'expected'/);
  });

  it('a pin with `expected` stays one case even when modes are set up', () => {
    const doc: any = pinsDocument('t', { hooks: { A: { input: { x: 1 }, expected: { type: 'x.t.a' } } } }, MODES);
    expect(doc.cases.map((c: any) => c.name)).toEqual(['hooks.A']);
    expect(doc.cases[0].config).toBeUndefined();
  });
});
