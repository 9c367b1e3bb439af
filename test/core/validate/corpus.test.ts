// The fixture corpus: every invalid stream must be rejected for exactly the
// rule ids and lines its sidecar names (the RIGHT reason, nothing spurious),
// every valid stream must pass, and together they cover every rule id.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, createReadStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { validateText, validateReadable, RULE_IDS, type Violation } from '../../../engine/core/validate/index.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DIR = join(ROOT, 'fixtures/validate');
const BIN = join(ROOT, 'bin/hookmap.mjs');

interface Expect {
  why: string;
  violations: { line: number; rule: string }[];
}

const invalid = readdirSync(join(DIR, 'invalid'))
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
const valid = readdirSync(join(DIR, 'valid'))
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

function expectationOf(file: string): Expect {
  return JSON.parse(readFileSync(join(DIR, 'invalid', file.replace(/\.jsonl$/, '.expect.json')), 'utf8'));
}

const pairs = (vs: { line: number; rule: string }[]) => vs.map((v) => `${v.line} ${v.rule}`).sort();

function cli(args: string[], input?: string) {
  return spawnSync(process.execPath, [BIN, 'validate', ...args], { cwd: ROOT, input, encoding: 'utf8' });
}

describe('invalid corpus: rejected for the named rule at the named line', () => {
  it.each(invalid)('%s', (file) => {
    const exp = expectationOf(file);
    const got = validateText(readFileSync(join(DIR, 'invalid', file), 'utf8'));
    expect(pairs(got), exp.why).toEqual(pairs(exp.violations));
    // every violation on a parseable line names the event
    for (const v of got) if (!v.rule.startsWith('syntax/')) expect(v.id, `${file}:${v.line}`).toBeTypeOf('string');
  });
});

describe('valid corpus: accepted', () => {
  it.each(valid)('%s', (file) => {
    expect(validateText(readFileSync(join(DIR, 'valid', file), 'utf8'))).toEqual([]);
  });
});

describe('corpus coverage', () => {
  it('every rule id has an invalid fixture, and fixtures name only known rule ids', () => {
    const named = new Set(invalid.flatMap((f) => expectationOf(f).violations.map((v) => v.rule)));
    for (const r of named) expect(RULE_IDS).toContain(r);
    expect(RULE_IDS.filter((r) => !named.has(r))).toEqual([]);
  });

  it('every invalid fixture has a sidecar with a reason', () => {
    for (const f of invalid) expect(expectationOf(f).why.length, f).toBeGreaterThan(0);
  });
});

describe('streaming path agrees with the in-memory path', () => {
  it.each([...invalid.map((f) => `invalid/${f}`), ...valid.map((f) => `valid/${f}`)])('%s', async (rel) => {
    const path = join(DIR, rel);
    const streamed = await validateReadable(createReadStream(path));
    expect(streamed.violations).toEqual(validateText(readFileSync(path, 'utf8')));
  });
});

describe('hookmap validate (subprocess)', () => {
  it('exits 1 and prints one located violation per line', () => {
    const r = cli(['fixtures/validate/invalid/order-seq-regression.jsonl']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('fixtures/validate/invalid/order-seq-regression.jsonl:3 n3 order/seq-regression: seq 3 after 5 in session s1 (epoch 0)\n');
  });

  it('exits 0 on a valid stream, with nothing on stdout', () => {
    const r = cli(['fixtures/validate/valid/full-session.jsonl']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/14 event\(s\), valid/);
  });

  it('reads stdin with -, and --json prints an array of violations', () => {
    const input = readFileSync(join(DIR, 'invalid/lifecycle-attention-dangling.jsonl'), 'utf8');
    const r = cli(['-', '--json'], input);
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout) as (Violation & { file: string })[];
    expect(out.map((v) => [v.file, v.line, v.id, v.rule])).toEqual([
      ['<stdin>', 4, 'n4', 'lifecycle/attention-dangling'],
      ['<stdin>', 4, 'n4', 'lifecycle/attention-dangling'],
    ]);
  });

  it('--json on a valid stream prints []', () => {
    const r = cli(['--json', 'fixtures/validate/valid/form-roundtrip.jsonl']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  it('non-JSON input is a violation, not a crash', () => {
    const r = cli(['-'], 'hello\n{"a":\n');
    expect(r.status).toBe(1);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ').slice(0, 3).join(' ')),
    ).toEqual(['<stdin>:1 - syntax/not-json:', '<stdin>:2 - syntax/not-json:']);
  });

  it('usage and I/O errors exit 2', () => {
    expect(cli([]).status).toBe(2);
    expect(cli(['a.jsonl', 'b.jsonl']).status).toBe(2);
    expect(cli(['--bogus', 'a.jsonl']).status).toBe(2);
    const missing = cli(['fixtures/validate/no-such-file.jsonl']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/cannot read/);
  });
});
