// The redaction corpus (fixtures/redaction/corpus.yaml, issue 10): every case
// passes through the AEP-0003 §9.4 pipeline as whole text, as a structured
// value, and split into stream fragments at every position (AEP-0007 §6).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Redactor, type RedactionConfig } from '../../engine/core/capture/redact.ts';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

interface Case {
  name: string;
  source: string;
  input: any;
  gone?: string[];
  kept?: string[];
  unchanged?: boolean;
  opts?: RedactionConfig;
}
const corpus = parse(readFileSync(join(ROOT, 'fixtures/redaction/corpus.yaml'), 'utf8')) as { text_cases: Case[]; value_cases: Case[] };

const redactor = (opts: RedactionConfig = {}) => new Redactor({ home: '/home/operator', env: {}, ...opts });

function check(c: Case, out: string, input: string) {
  if (c.unchanged) expect(out, c.name).toBe(input);
  else expect(out, `${c.name}: something is redacted`).not.toBe(input);
  for (const g of c.gone ?? []) expect(out, `${c.name}: '${g}' must be gone`).not.toContain(g);
  for (const k of c.kept ?? []) expect(out, `${c.name}: '${k}' must stay`).toContain(k);
}

describe('redaction corpus', () => {
  it('has at least 150 cases, positive and negative, each with its source', () => {
    const all = [...corpus.text_cases, ...corpus.value_cases];
    expect(all.length).toBeGreaterThanOrEqual(150);
    expect(all.filter((c) => c.unchanged).length).toBeGreaterThanOrEqual(50);
    expect(all.filter((c) => !c.unchanged).length).toBeGreaterThanOrEqual(100);
    for (const c of all) expect(c.source, c.name).toMatch(/\S/);
    expect(new Set(all.map((c) => c.name)).size, 'unique names').toBe(all.length);
  });

  describe('text', () => {
    for (const c of corpus.text_cases) it(c.name, () => check(c, redactor(c.opts).text(c.input), c.input));
  });

  describe('structured values', () => {
    for (const c of corpus.value_cases) {
      it(c.name, () => {
        const out = JSON.stringify(redactor(c.opts).deep(c.input));
        check(c, out, JSON.stringify(c.input));
      });
    }
  });

  it('redaction is idempotent', () => {
    const r = redactor();
    for (const c of corpus.text_cases) {
      const once = redactor(c.opts).text(c.input);
      expect(redactor(c.opts).text(once), c.name).toBe(once);
    }
    expect(r.text('')).toBe('');
  });

  describe('streamed: a secret split over fragments never survives (every split point)', () => {
    for (const c of corpus.text_cases) {
      it(c.name, () => {
        const r = redactor(c.opts);
        const whole = r.text(c.input);
        for (let k = 1; k < c.input.length; k++) {
          const st = r.stream();
          const out = st.push(c.input.slice(0, k)) + st.push(c.input.slice(k)) + st.flush();
          for (const g of c.gone ?? []) expect(out, `${c.name} split at ${k}: '${g}'`).not.toContain(g);
          if (c.unchanged) expect(out, `${c.name} split at ${k}`).toBe(c.input);
          else expect(out, `${c.name} split at ${k}`).toBe(whole);
        }
      });
    }
  });

  it('streamed in many small fragments equals the whole-text result', () => {
    for (const c of corpus.text_cases) {
      const r = redactor(c.opts);
      for (const size of [1, 3, 7]) {
        const st = r.stream();
        let out = '';
        for (let i = 0; i < c.input.length; i += size) out += st.push(c.input.slice(i, i + size));
        out += st.flush();
        expect(out, `${c.name} in ${size}-char fragments`).toBe(r.text(c.input));
      }
    }
  });
});
