// Named invalid descriptors: fixtures/_invalid/<name>.yaml (with fixtures of
// its own in fixtures/_invalid/<name>/ when the error needs them) must produce
// exactly the located, coded error lines of <name>.expect.txt (golden): one
// line each, naming the fix or the valid choices, except the cases that show
// several problems reported in one run.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAgent } from '../../../engine/tools/check/check-agent.ts';
import { checkTarget } from '../../../engine/tools/check/targets.ts';
import { ERROR_CODES, formatError } from '../../../engine/core/descriptor/errors.ts';
import { INVALID_DIR, invalidNames } from './corpus.ts';

/** Cases that show several problems reported in one run; every other case gives exactly one located, coded error. */
const MANY = new Set(['several-errors', 'every-phase']);

describe('fixtures/_invalid', () => {
  it('is a corpus of at least 40 broken descriptors and fixtures', () => {
    expect(invalidNames().length).toBeGreaterThanOrEqual(40);
  });
  for (const name of invalidNames()) {
    it(name, async () => {
      const expectPath = join(INVALID_DIR, `${name}.expect.txt`);
      expect(existsSync(expectPath), `${name}.expect.txt`).toBe(true);
      const report = await checkAgent(checkTarget(join(INVALID_DIR, `${name}.yaml`)));
      if (MANY.has(name)) expect(report.errors.length).toBeGreaterThan(1);
      else expect(report.errors.map(formatError)).toHaveLength(1);
      expect(report.errors.map(formatError).join('\n') + '\n').toBe(readFileSync(expectPath, 'utf8'));
      for (const e of report.errors) expect(Object.keys(ERROR_CODES)).toContain(e.code);
    });
  }

  it('every expect file has its descriptor', () => {
    const expects = readdirSync(INVALID_DIR)
      .filter((f) => f.endsWith('.expect.txt'))
      .map((f) => f.replace(/\.expect\.txt$/, ''));
    expect(expects.sort()).toEqual(invalidNames());
  });
});
