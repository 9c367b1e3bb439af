// The shell-command corpus (fixtures/policy/shell-corpus.yaml, issue 22
// acceptance "a rule-matching corpus ... passing 100%, each case with the
// reason it must or must not match"): every case runs through matchCommand
// (rule cases) or floorHit (floor cases), and a failure names the case's why.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../../../engine/core/descriptor/registry.ts';
import { FLOOR, floorHit, UNREADABLE } from '../../../engine/runtime/policy/shell/floor.ts';
import { matchCommand, type CommandRule } from '../../../engine/runtime/policy/shell/match.ts';

interface Case {
  rule?: CommandRule;
  floor?: true;
  command: string;
  cwd?: string;
  expect: 'match' | 'no-match' | 'floor' | 'no-floor';
  /** the floor row a `floor` case must hit */
  row?: string;
  why: string;
}

const HOME = '/home/dev';
const FILE = join(ROOT, 'fixtures/policy/shell-corpus.yaml');
const cases = (parse(readFileSync(FILE, 'utf8')) as { cases: Case[] }).cases;
const KEYS = new Set(['rule', 'floor', 'command', 'cwd', 'expect', 'row', 'why']);
const ROWS = new Set([...FLOOR.map((r) => r.id), UNREADABLE.id]);

describe('shell-command corpus', () => {
  it('is well formed: at least 200 cases, each a rule case or a floor case with its expectation and why', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
    for (const c of cases) {
      const label = JSON.stringify(c);
      expect(
        Object.keys(c).filter((k) => !KEYS.has(k)),
        label,
      ).toEqual([]);
      expect(typeof c.command, label).toBe('string');
      expect(c.why, label).toMatch(/\S/);
      if (c.rule) expect(['match', 'no-match'], label).toContain(c.expect);
      else expect([c.floor, c.expect === 'floor' || c.expect === 'no-floor'], label).toEqual([true, true]);
      // a floor case names its row; a row that does not exist is a typo
      if (c.expect === 'floor') expect(ROWS.has(c.row ?? ''), label).toBe(true);
      else expect(c.row, label).toBeUndefined();
    }
  });

  it('holds both outcomes for rules and for the floor, and a case for every floor row', () => {
    const expects = new Set(cases.map((c) => c.expect));
    expect([...expects].sort()).toEqual(['floor', 'match', 'no-floor', 'no-match']);
    expect([...new Set(cases.map((c) => c.row).filter(Boolean))].sort()).toEqual([...ROWS].sort());
  });

  it.each(cases.map((c) => [JSON.stringify(c.command), c] as const))('%s', (_, c) => {
    if (c.rule) {
      const got = matchCommand(c.rule, c.command);
      expect(got.match ? 'match' : 'no-match', `${c.why} (rule ${JSON.stringify(c.rule)}; matcher said: ${got.why})`).toBe(c.expect);
    } else {
      const hit = floorHit(c.command, { cwd: c.cwd, home: HOME });
      const said = `${c.why} (floor said: ${hit ? `${hit.row}: ${hit.why}` : 'no row'})`;
      expect(hit ? 'floor' : 'no-floor', said).toBe(c.expect);
      if (hit) expect(hit.row, said).toBe(c.row);
    }
  });
});
