// Both directions, for the closed error list: every code in ERROR_CODES is
// documented in docs/errors.md (with the registry's description, word for
// word) and produced by some named invalid fixture (a descriptor's in
// fixtures/_invalid/, an up config's in fixtures/up-config/); nothing is
// documented or expected that the registry does not have.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../engine/core/descriptor/errors.ts';
import { FIXTURES_DIR, ROOT } from '../../../engine/core/descriptor/registry.ts';

const codes = Object.keys(ERROR_CODES).sort();
const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
const documented = new Map([...doc.matchAll(/^## (\S+)\n(.+)$/gm)].map((m) => [m[1], m[2]]));
const dir = join(FIXTURES_DIR, '_invalid');
const configDir = join(FIXTURES_DIR, 'up-config');
const triggered = new Set(
  [dir, configDir].flatMap((d) =>
    readdirSync(d)
      .filter((f) => f.endsWith('.expect.txt'))
      .flatMap((f) => [...readFileSync(join(d, f), 'utf8').matchAll(/^\S+:\d+:\d+ ([a-z-]+):/gm)].map((m) => m[1])),
  ),
);

describe('error codes', () => {
  it('every code is documented with its registry description', () => {
    for (const code of codes) expect(documented.get(code), code).toBe(ERROR_CODES[code as keyof typeof ERROR_CODES]);
  });
  it('every documented code exists', () => {
    expect([...documented.keys()].sort()).toEqual(codes);
  });
  it('every code is produced by some invalid fixture', () => {
    expect(codes.filter((c) => !triggered.has(c))).toEqual([]);
  });
  it('docs/errors.md names every corpus case, and only corpus cases', () => {
    const named = new Set([...doc.matchAll(/Fixtures?:([^#]*?)(?:\n\n|$)/g)].flatMap((m) => [...m[1].matchAll(/`([a-z0-9-]+)`/g)].map((x) => x[1])));
    const corpus = [dir, configDir].flatMap((d) =>
      readdirSync(d)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => f.replace(/\.yaml$/, '')),
    );
    expect([...named].filter((n) => !corpus.includes(n))).toEqual([]);
    expect(corpus.filter((n) => !named.has(n))).toEqual([]);
  });
  it('every code an invalid fixture expects exists', () => {
    expect([...triggered].filter((c) => !codes.includes(c))).toEqual([]);
  });
});
