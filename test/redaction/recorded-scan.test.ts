// Every recorded fixture in the repository passes the secret scanner that
// `hookmap record` applies before it writes (issue 10): the regression input
// of test/recorded.test.ts never carries a credential.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatFindings, SecretScanner } from '../../engine/core/capture/redaction/scanner.ts';
import { FIXTURES_DIR } from '../../engine/core/descriptor/registry.ts';

const scanner = new SecretScanner({ env: {} });

describe('fixtures/*/recorded pass the secret scanner', () => {
  const files: string[] = [];
  for (const agent of readdirSync(FIXTURES_DIR)) {
    const d = join(FIXTURES_DIR, agent, 'recorded');
    if (existsSync(d)) for (const f of readdirSync(d)) if (/\.ya?ml$/.test(f)) files.push(join(d, f));
  }
  it('there are recorded fixtures to scan', () => expect(files.length).toBeGreaterThan(20));
  for (const f of files) {
    it(f.slice(FIXTURES_DIR.length + 1), () => {
      const findings = scanner.scan(readFileSync(f, 'utf8'));
      expect(formatFindings(f, findings)).toBe('');
    });
  }
  it('the scanner does flag a credential (it is not a no-op)', () => {
    expect(scanner.scan('payload:\n  command: curl -u admin:Tr0ub4dor https://x\n').map((x) => x.rule)).toEqual(['curl-user']);
    expect(scanner.scan('k: [REDACTED:secret]\n')).toEqual([]);
  });
});
