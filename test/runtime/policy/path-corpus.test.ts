// The path-rule corpus (fixtures/policy/path-corpus.yaml, issue 22: "path
// traversal and symlinks for path rules"): a real folder tree with links in
// and out of the project, each case's request normalised the way the daemon
// normalises one (engine/runtime/policy/subject.ts) and matched by the rule
// (answer-rule.ts); a failure names the case's why.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../../../engine/core/descriptor/registry.ts';
import { compilePolicy } from '../../../engine/runtime/policy/policy.ts';
import { matchAnswerRule, readSubject } from '../../../engine/runtime/policy/answer-rule.ts';
import { subjectOf } from '../../../engine/runtime/policy/subject.ts';

interface Case {
  rule: Record<string, unknown>;
  cwd?: string;
  paths: string[];
  expect: 'match' | 'no-match';
  why: string;
}

const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookmap-paths-')));
const P = join(base, 'project');
const O = join(base, 'outside');
for (const d of [join(P, '.git'), join(P, 'src/deep'), join(P, 'docs'), O, `${P}-evil`]) mkdirSync(d, { recursive: true });
for (const f of [join(P, 'src/a.ts'), join(P, 'src/deep/b.ts'), join(P, 'docs/readme.md'), join(P, '.env'), join(O, 'x.txt')]) writeFileSync(f, '');
symlinkSync(O, join(P, 'out'));
symlinkSync(P, join(P, 'src/up'));
symlinkSync(join(P, 'src'), join(O, 'link-in'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const fill = <T>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll('$P', P).replaceAll('$O', O)) as T;
const cases = (parse(readFileSync(join(ROOT, 'fixtures/policy/path-corpus.yaml'), 'utf8')) as { cases: Case[] }).cases;

describe('path-rule corpus', () => {
  it('is well formed: each case has a rule, the paths, an expectation and why', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    for (const c of cases)
      expect([typeof c.why, Array.isArray(c.paths), ['match', 'no-match'].includes(c.expect)], JSON.stringify(c)).toEqual(['string', true, true]);
  });

  it.each(cases.map((c, i) => [i, c] as const))('case %i', (_i, raw) => {
    const c = fill(raw);
    const r = compilePolicy('corpus.yaml', JSON.stringify({ rules: [{ id: 'r', decide: 'allow', ...c.rule }] }), { learned: true });
    expect(r.errors, c.why).toEqual([]);
    const subject = readSubject(subjectOf({ agent: 'claude-code', session: 's' }, { tool: 'Write', paths: c.paths, cwd: c.cwd }));
    const m = matchAnswerRule(r.policy!.answers[0], subject);
    expect(m.match ? 'match' : 'no-match', `${c.why} (${m.why})`).toBe(c.expect);
  });
});
