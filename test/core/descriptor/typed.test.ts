// The mapper and the descriptor compiler are typed (issue 28): no `any` in
// engine/core/map/ and in the descriptor build (build.ts, emits.ts, compile.ts,
// compile-control.ts take the generated descriptor types). PENDING names the
// files that still walk JSON Schema nodes or ajv output untyped; it may only
// shrink.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../../engine/core/descriptor/registry.ts';

const PENDING = new Map([
  ['engine/core/descriptor/fields.ts', 'walks payload JSON Schema nodes'],
  ['engine/core/descriptor/schema-errors.ts', 'reads ajv errors and schema nodes'],
]);

/** `any` as a type: `: any`, `as any`, `<any>`, `any[]`, `any>`, `, any]` (comments and words like "many" aside). */
const ANY = /(:\s*any\b|\bas any\b|<any\b|\bany\[\]|\bany>|,\s*any\])/;

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`);
}

describe('typed engine units', () => {
  const all = [...files('engine/core/map'), ...files('engine/core/descriptor')];
  const untyped = all.filter((f) =>
    readFileSync(join(ROOT, f), 'utf8')
      .split('\n')
      .some((l) => ANY.test(l.replace(/\/\/.*$/, ''))),
  );
  it('no `any` in engine/core/map/ or the descriptor build', () => {
    expect(untyped.filter((f) => !PENDING.has(f))).toEqual([]);
  });
  it('PENDING only names files that still use it', () => {
    expect([...PENDING.keys()].filter((f) => !untyped.includes(f))).toEqual([]);
  });
});
