// The options table (engine/runtime/policy/shell/option-table.yaml, issue 40 "the
// floor reads what options do"): it loads and is well formed, every row's
// hits are kept for a person by the whole floor and every row's misses pass
// it, each option spelling a program accepts is read alike, and a table that
// is broken is refused with every problem named.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readShell } from '../../../engine/runtime/policy/shell/commands.ts';
import { EXAMPLE_CONTEXT, floorHit } from '../../../engine/runtime/policy/shell/floor.ts';
import { awkProgram, compileOptionTable, OPTION_TABLE_FILE, optionTable, readOptions, sedScript } from '../../../engine/runtime/policy/shell/options.ts';

const ctx = EXAMPLE_CONTEXT;
const table = optionTable();
const first = (command: string) => readShell(command, ctx.home).commands[0]!;

describe('the options table', () => {
  it('loads, names at least the commands the issue lists, and every row says why with examples both ways', () => {
    for (const c of ['git', 'curl', 'wget', 'sort', 'find', 'rg', 'tar', 'sed', 'awk', 'xargs', 'env', 'vim', 'less', 'man'])
      expect(table.commands.has(c), c).toBe(true);
    expect(table.rows.length).toBeGreaterThanOrEqual(30);
    for (const r of table.rows) {
      expect(r.why, r.id).toMatch(/\S/);
      expect(r.hits.length, r.id).toBeGreaterThanOrEqual(2);
      expect(r.misses.length, r.id).toBeGreaterThanOrEqual(1);
    }
  });

  for (const row of table.rows) {
    describe(`row ${row.id}`, () => {
      it.each(row.hits)(`keeps %j for a person (${row.why})`, (command) => {
        expect(floorHit(command, ctx), `${row.id}: ${command}`).toBeDefined();
      });
      it.each(row.misses)('lets %j through the floor', (command) => {
        expect(floorHit(command, ctx), `${row.id}: ${command}`).toBeUndefined();
      });
    });
  }

  it('refuses a broken table, naming each problem', () => {
    const doc = parse(readFileSync(OPTION_TABLE_FILE, 'utf8'));
    expect(compileOptionTable(doc).errors).toEqual([]);
    expect(compileOptionTable(null).errors).toEqual(['the table is a mapping with `commands` (a mapping) and `rows` (a list)']);
    const broken = structuredClone(doc);
    broken.commands.sort.style = 'posix';
    broken.rows[0].does = 'explode';
    broken.rows[1].id = broken.rows[0].id;
    broken.rows[2].hits = [];
    broken.rows[3].command = 'nosuch';
    broken.rows[4].safe = ['('];
    broken.rows[5].extra = 1;
    const errors = compileOptionTable(broken).errors.join('\n');
    for (const m of [
      'commands.sort: style is gnu or words',
      'rows[0].does: is one of',
      'rows[1]: id',
      'rows[2].hits',
      'rows[3]: command names',
      'rows[4].safe',
      'rows[5]: unknown key extra',
    ])
      expect(errors).toContain(m);
  });
});

describe('option spellings', () => {
  const writes = (command: string) => readOptions(first(command)).writes.map((w) => w.word.text);
  it.each([
    ['sort -o /tmp/x f', '/tmp/x'],
    ['sort -o/tmp/x f', '/tmp/x'],
    ['sort -uo /tmp/x f', '/tmp/x'],
    ['sort -uo/tmp/x f', '/tmp/x'],
    ['sort --output=/tmp/x f', '/tmp/x'],
    ['sort --output /tmp/x f', '/tmp/x'],
    ['sort --outp=/tmp/x f', '/tmp/x'],
    ['curl -fsSLo /tmp/x u', '/tmp/x'],
    ['tar cf /tmp/x src', '/tmp/x'],
    ['tar -c -f /tmp/x src', '/tmp/x'],
    ['git log --output=/tmp/x', '/tmp/x'],
    ['git -C sub -c color.ui=never log --output /tmp/x', '/tmp/x'],
    ['find . -fprint /tmp/x', '/tmp/x'],
    ["sed -n 'w /tmp/x' f", '/tmp/x'],
    ["sed -e 's/a/b/gw /tmp/x' f", '/tmp/x'],
  ])('%s writes %s', (command, path) => {
    expect(writes(command)).toEqual([path]);
  });

  it.each([
    ['sort -k 2 -o', []],
    ['sort -t o f', []],
    ['sort -ko f', []],
    ['curl -H "-o /tmp/x" u', []],
    ['git log -- --output=/tmp/x', []],
    ['tar xf /tmp/a.tar', []],
    ["sed -e 's/w x/y/' f", []],
  ])('%s writes nothing (the word is a value or an operand)', (command, paths) => {
    expect(writes(command)).toEqual(paths);
  });

  it('reads git -c keys case-insensitively, and only the keys whose value git runs', () => {
    const runs = (c: string) => readOptions(first(c)).runs.map((r) => r.row.id);
    expect(runs('git -c CORE.PAGER=x log')).toEqual(['git-config-program']);
    expect(runs('git -c diff.pdf.textConv=x diff')).toEqual(['git-config-program']);
    expect(runs('git -c user.email=x log')).toEqual([]);
    expect(runs('git -c "$K=x" log')).toEqual(['git-config-program']);
  });

  it('sed and awk scripts: only their own commands that run or write count', () => {
    expect(sedScript('s/e/w/;/w/d;y/ew/we/')).toEqual({ writes: [], runs: [] });
    expect(sedScript('1,3{s/a/b/e\n}')).toEqual({ writes: [], runs: ['s///e'] });
    expect(sedScript('$!N;P;D;W out')).toEqual({ writes: ['out'], runs: [] });
    expect(sedScript('a\\\nw not a command')).toEqual({ writes: [], runs: [] });
    expect(awkProgram('{ if ($1 > 2) print $1 }').runs).toEqual([]);
    expect(awkProgram('{ print "a > b" }').runs).toEqual([]);
    expect(awkProgram('{ print $1 >> "log" }').runs).toHaveLength(1);
    expect(awkProgram('{ cmd = "date"; cmd | getline d }').runs).toHaveLength(1);
  });
});
