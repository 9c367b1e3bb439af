// Issue 25, "validators warmed": the AEP hot-path validators are kept as
// ajv's standalone code by content hash (engine/core/aep/validator-cache.ts), so a
// start that compiled them once loads them back instead of compiling again.
// The code read back validates exactly as the compiled validator does; an
// entry damaged after it was written is compiled again and rewritten; without
// a folder nothing is kept.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedValidator, cacheValidatorsIn } from '../../../engine/core/aep/validator-cache.ts';
import { ENVELOPE_SCHEMA } from '../../../engine/core/aep/schemas.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-validator-cache-'));
afterAll(() => {
  cacheValidatorsIn(undefined, '');
  rmSync(tmp, { recursive: true, force: true });
});

const load = createRequire(import.meta.url);
const { default: Ajv2020, _ } = load('ajv/dist/2020.js');
const standalone = load('ajv/dist/standalone').default;
const addFormats = load('ajv-formats').default;
const ajv = new Ajv2020({ allErrors: false, strict: false, code: { source: true, formats: _`require("ajv-formats/dist/formats").fastFormats` } });
addFormats(ajv, { mode: 'fast' });
ajv.addKeyword({ keyword: 'x-aep-capture', schemaType: 'string' });

let compiles = 0;
const get = () =>
  cachedValidator(
    ENVELOPE_SCHEMA,
    () => (compiles++, ajv.compile(ENVELOPE_SCHEMA)),
    (v) => standalone(ajv, v),
  );

const good = {
  specversion: '1.0',
  id: '01J0000000000000000000000A',
  source: 'aep://host/claude-code',
  type: 'session.started',
  time: '2026-12-01T00:00:00Z',
  aepversion: '0.1',
  sessionid: 's1',
  seq: 1,
  epoch: 0,
  data: {},
};
const bad = { ...good, time: 'yesterday', seq: -1 };

describe('the validator cache', () => {
  it('keeps the compiled code once and loads it back, validating as the compiled validator does', () => {
    const dir = join(tmp, 'cache');
    cacheValidatorsIn(dir, 'test-1');
    const first = get();
    expect(compiles).toBe(1);
    expect(readdirSync(dir)).toHaveLength(1);
    const again = get();
    expect(compiles).toBe(1);
    expect(again).not.toBe(first);
    expect(first(bad)).toBe(false);
    for (const ev of [good, bad, {}, { ...good, type: 'no such type!' }]) {
      expect(again(ev)).toBe(first(ev));
      expect(again.errors ?? null).toEqual(first.errors ?? null);
    }
    // another hookmap (stamp) does not find the entry
    cacheValidatorsIn(dir, 'test-2');
    get();
    expect(compiles).toBe(2);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it('compiles again (and rewrites) an entry damaged after it was written', () => {
    const dir = join(tmp, 'damaged');
    cacheValidatorsIn(dir, 'test-1');
    const before = compiles;
    get();
    const [name] = readdirSync(dir);
    const entry = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    writeFileSync(join(dir, name), JSON.stringify({ ...entry, code: entry.code.replace('return', 'return true;return') }));
    const v = get();
    expect(compiles).toBe(before + 2);
    expect(v(bad)).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, name), 'utf8')).code).toBe(entry.code);
    writeFileSync(join(dir, name), 'not json');
    expect(get()(good)).toBe(get()(good));
  });

  it('keeps nothing without a folder', () => {
    cacheValidatorsIn(undefined, 'test-1');
    const before = compiles;
    get();
    get();
    expect(compiles).toBe(before + 2);
  });

  it("reads the package's shipped entries (npm run build) when the home has none, and never writes there", () => {
    const shipped = join(tmp, 'shipped');
    cacheValidatorsIn(shipped, 'test-3');
    get();
    const before = compiles;
    const home = join(tmp, 'home-cache');
    cacheValidatorsIn(home, 'test-3', shipped);
    expect(get()(bad)).toBe(false);
    expect(compiles).toBe(before);
    expect(readdirSync(tmp)).not.toContain('home-cache');
    expect(readdirSync(shipped)).toHaveLength(1);
  });
});
