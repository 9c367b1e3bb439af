// Named invalid descriptors: fixtures/_invalid/<name>.yaml (with fixtures of
// its own in fixtures/_invalid/<name>/ when the error needs them) must produce
// exactly the located, coded error lines of <name>.expect.txt.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAgent } from '../../engine/check/check-agent.ts';
import { checkTarget } from '../../engine/check/targets.ts';
import { ERROR_CODES, formatError } from '../../engine/descriptor/errors.ts';
import { FIXTURES_DIR } from '../../engine/descriptor/registry.ts';

export const INVALID_DIR = join(FIXTURES_DIR, '_invalid');
export const invalidNames = () => readdirSync(INVALID_DIR).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, '')).sort();

describe('fixtures/_invalid', () => {
  for (const name of invalidNames()) {
    it(name, async () => {
      const expectPath = join(INVALID_DIR, `${name}.expect.txt`);
      expect(existsSync(expectPath), `${name}.expect.txt`).toBe(true);
      const report = await checkAgent(checkTarget(join(INVALID_DIR, `${name}.yaml`)));
      expect(report.errors.length).toBeGreaterThan(0);
      expect(report.errors.map(formatError).join('\n') + '\n').toBe(readFileSync(expectPath, 'utf8'));
      for (const e of report.errors) expect(Object.keys(ERROR_CODES)).toContain(e.code);
    });
  }

  it('every expect file has its descriptor', () => {
    const expects = readdirSync(INVALID_DIR).filter((f) => f.endsWith('.expect.txt')).map((f) => f.replace(/\.expect\.txt$/, ''));
    expect(expects.sort()).toEqual(invalidNames());
  });
});
