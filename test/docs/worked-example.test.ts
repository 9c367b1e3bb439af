// Every agent page's worked example shows a real case (issue 28, a newcomer's report: a decisions
// file holding only command and policy cases gave "fires `its hook`" with an `undefined` payload).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

describe('capability pages: the worked example', () => {
  const dir = join(ROOT, 'capabilities');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.md') && x !== 'README.md')) {
    it(f, () => {
      const text = readFileSync(join(dir, f), 'utf8');
      const example = text.slice(text.indexOf('## Worked example'), text.indexOf('\n## ', text.indexOf('## Worked example') + 5));
      expect(example).toContain('executed when this page was generated');
      expect(example).not.toMatch(/its hook`|```json\nundefined|answers `undefined`|holds it \(undefined\)/);
    });
  }
});
