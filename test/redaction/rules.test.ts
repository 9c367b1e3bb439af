// The rule table (engine/core/capture/redaction/): every row names its source and
// carries positive and negative examples, which hold; the key-name and
// entropy classifiers behave on the names and values that matter.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { Redactor, ruleTable } from '../../engine/core/capture/redact.ts';
import { looksRandom } from '../../engine/core/capture/redaction/entropy.ts';
import { classifyKey } from '../../engine/core/capture/redaction/keys.ts';

const r = new Redactor({ home: '/home/operator', env: {} });

describe('redaction rule table', () => {
  const rows = ruleTable();
  it('has unique ids, a source, positives, negatives and adversarial seeds per row', () => {
    expect(new Set(rows.map((x) => x.id)).size).toBe(rows.length);
    expect(rows.length).toBeGreaterThanOrEqual(50);
    for (const row of rows) {
      expect(row.source, row.id).toMatch(/gitleaks|secretlint|AEP-0003|RFC|documented|format|manual|\(1\)|Stripe|Google|Azure|MySQL/);
      expect(row.positive.length, `${row.id} positives`).toBeGreaterThan(0);
      expect(row.negative.length, `${row.id} negatives`).toBeGreaterThan(0);
      expect(row.adversarial.length, `${row.id} adversarial seeds`).toBeGreaterThan(0);
    }
  });
  it('docs/redaction.md lists every row with its source', () => {
    const doc = readFileSync(join(ROOT, 'docs/redaction.md'), 'utf8');
    for (const row of rows)
      expect(doc, row.id).toContain(`| \`${row.id}\` | ${row.stage} | ${row.description.replace(/\|/g, '\\|')} | ${row.source.replace(/\|/g, '\\|')} |`);
  });
  for (const row of rows) {
    it(`${row.id}: positives redacted, negatives untouched`, () => {
      for (const p of row.positive) {
        const ex = typeof p === 'string' ? { input: p } : p;
        const out = r.text(ex.input);
        expect(out, ex.input).not.toBe(ex.input);
        for (const g of ex.gone ?? []) expect(out, ex.input).not.toContain(g);
        for (const k of ex.kept ?? []) expect(out, ex.input).toContain(k);
      }
      for (const n of row.negative) expect(r.text(n)).toBe(n);
    });
  }
});

describe('secret-looking names', () => {
  it.each([
    ['password', 'secret'],
    ['DB_PASSWORD', 'secret'],
    ['Password', 'secret'],
    ['api_key', 'secret'],
    ['API_KEY', 'secret'],
    ['x-api-key', 'secret'],
    ['clientSecret', 'secret'],
    ['_authToken', 'secret'],
    ['AWS_SECRET_ACCESS_KEY', 'secret'],
    ['authorization', 'secret'],
    ['token', 'secret'],
    ['mytoken', 'secret'],
    ['password_value', 'secret'],
    ['DB_PASS', 'secret'],
    ['credentials', 'secret'],
    ['Cookie', 'secret'],
    ['STRIPE_KEY', 'maybe'],
    ['sig', 'maybe'],
    ['key', 'maybe'],
    ['SECRET_KEY_BASE', 'maybe'],
    ['max_tokens', undefined],
    ['input_tokens', undefined],
    ['token_count', undefined],
    ['password_hash', undefined],
    ['secret_name', undefined],
    ['api_key_id', undefined],
    ['public_key', undefined],
    ['primary_key', undefined],
    ['PWD', undefined],
    ['OLDPWD', undefined],
    ['session_id', undefined],
    ['tool_use_id', undefined],
    ['passwordless', undefined],
    ['tokenizer', undefined],
    ['keyboard', undefined],
    ['commit_sha', undefined],
  ])('%s -> %s', (name, cls) => {
    expect(classifyKey(name)).toBe(cls);
  });
});

describe('random-looking values (next to maybe-secret names)', () => {
  it.each([
    ['9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c', true],
    ['q8Wz2LmN4pRt6VxY', true],
    ['key-801f72b002729fbc2f36b3c9def8249a', true],
    ['550e8400-e29b-41d4-a716-446655440000', false],
    ['2fd4e1c67a2d28fced849ee1bb76e7391b93eb12', false],
    ['v1-build-cache-linux', false],
    ['created_at', false],
    ['abcdefghijklmnop', false],
    ['/usr/local/bin/node', false],
    ['release-2026-11-29', false],
  ])('%s -> %s', (v, want) => {
    expect(looksRandom(v)).toBe(want);
  });
});

describe('home paths keep their shape (issue 28: record turned <home>/.factory/sessions/x into ~/sessions/x)', () => {
  it.each([
    // the operator's home, wherever it is, is the prefix replaced; the folders below it stay
    ['/tmp/scratch/home', '/tmp/scratch/home/.factory/sessions/x.jsonl', '~/.factory/sessions/x.jsonl'],
    ['/tmp/scratch/home', '{"transcript_path":"/tmp/scratch/home/.claude/projects/-p/a.jsonl"}', '{"transcript_path":"~/.claude/projects/-p/a.jsonl"}'],
    ['/home/operator', '/home/operator/.factory/sessions/x', '~/.factory/sessions/x'],
    // another user's home: its user name goes, the rest stays
    ['/home/operator', 'cat /home/bob/.ssh/config', 'cat ~/.ssh/config'],
    ['/home/operator', '/Users/bob/.config/x', '~/.config/x'],
    // a folder named home deeper in a path is not a home, and /home/.x is a folder, not a user
    ['/home/operator', '/srv/data/home/alice/x', '/srv/data/home/alice/x'],
    ['/home/operator', '/home/.shared/x', '/home/.shared/x'],
  ])('home %s: %s -> %s', (home, input, want) => {
    expect(new Redactor({ home, env: {}, strict: true }).text(input)).toBe(want);
  });
});

describe('recorded fixtures carry home paths in their shape', () => {
  it('no fixtures/*/recorded payload has a home placeholder in the middle of a path (the 2026-11-29 recorder cut the agent folder)', () => {
    const dir = join(ROOT, 'fixtures');
    const cut: string[] = [];
    for (const agent of readdirSync(dir)) {
      const rec = join(dir, agent, 'recorded');
      if (!existsSync(rec)) continue;
      for (const f of readdirSync(rec)) {
        const body = readFileSync(join(rec, f), 'utf8');
        for (const m of body.matchAll(/[\w.-]~\/\S*/g)) cut.push(`${agent}/recorded/${f}: ${m[0]}`);
      }
    }
    expect(cut).toEqual([]);
  });
});
