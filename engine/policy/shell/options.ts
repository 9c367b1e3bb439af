// What a command's options do (issue 40 "the floor reads what options do"):
// the options that write a file or run a program, for the commands agents
// use, are data (option-table.yaml beside this file, with each row's
// examples and its why). readOptions reads one command's words against it,
// in every spelling the program itself accepts (`--output=F`, `--output F`,
// `-oF`, `-o F`, clusters `-uoF`, abbreviated long options, tar's `xzf`),
// and says which paths the command writes, which programs it runs, and which
// options the table does not know though they carry a value. The floor
// (floor-paths.ts, floor-commands.ts) turns those into its rows: a written
// path goes through the same rows as a redirection, a run or an unknown
// option goes to a person.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../io/package-root.ts';
import { yaml } from '../../text/yaml-lazy.ts';
import type { ReadCommand } from './commands.ts';
import type { ShellWord } from './words.ts';

export const OPTION_TABLE_FILE = join(PACKAGE_ROOT, 'engine/policy/shell/option-table.yaml');

export type OptionValue = 'required' | 'optional' | 'rest' | 'none' | 'operand';
export type OptionDoes = 'write' | 'write-operands' | 'run' | 'delete';

export interface OptionRow {
  id: string;
  /** the command the row reads ('' for a row of environment variables) */
  command: string;
  /** `NAME=value` prefixes whose value is a program (any command: `GIT_PAGER=… git log`) */
  env?: string[];
  sub?: string[];
  options: string[];
  value: OptionValue;
  does: OptionDoes;
  keys?: RegExp[];
  with?: string[];
  safe?: RegExp[];
  script?: 'sed' | 'awk';
  why: string;
  hits: string[];
  misses: string[];
}

export interface CommandSpec {
  name: string;
  names: string[];
  style: 'gnu' | 'words';
  subcommand: boolean;
  oldStyle: boolean;
  scriptOperand: boolean;
  values: Set<string>;
  flags: Set<string>;
}

export interface OptionTable {
  commands: Map<string, CommandSpec>;
  rows: OptionRow[];
}

export class OptionTableError extends Error {
  readonly code = 'option-table-invalid';
}

const VALUES: OptionValue[] = ['required', 'optional', 'rest', 'none', 'operand'];
const DOES: OptionDoes[] = ['write', 'write-operands', 'run', 'delete'];
const COMMAND_KEYS = new Set(['also', 'style', 'subcommand', 'old_style', 'script_operand', 'values', 'flags']);
const ROW_KEYS = new Set(['id', 'command', 'env', 'sub', 'options', 'value', 'does', 'keys', 'with', 'safe', 'script', 'why', 'hits', 'misses']);

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string' && x !== '');
const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** `core.pager`, `diff.*.textconv`: a config key pattern (git's keys are case-insensitive; `*` is any text). */
const keyPattern = (k: string) =>
  new RegExp(
    `^${k
      .toLowerCase()
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );

/** The table from its parsed YAML, checked whole; every problem is listed with where it is. */
export function compileOptionTable(doc: unknown): { table?: OptionTable; errors: string[] } {
  const errors: string[] = [];
  const bad = (where: string, m: string) => errors.push(`${where}: ${m}`);
  if (!isMap(doc) || !isMap(doc.commands) || !Array.isArray(doc.rows))
    return { errors: ['the table is a mapping with `commands` (a mapping) and `rows` (a list)'] };
  const commands = new Map<string, CommandSpec>();
  for (const [name, raw] of Object.entries(doc.commands)) {
    const w = `commands.${name}`;
    if (!isMap(raw)) {
      bad(w, 'is a mapping');
      continue;
    }
    for (const k of Object.keys(raw)) if (!COMMAND_KEYS.has(k)) bad(w, `unknown key ${k}`);
    if (raw.style !== 'gnu' && raw.style !== 'words') bad(w, 'style is gnu or words');
    for (const k of ['also', 'values', 'flags'] as const) if (raw[k] !== undefined && !isStrings(raw[k])) bad(`${w}.${k}`, 'is a list of words');
    for (const k of ['subcommand', 'old_style', 'script_operand'] as const)
      if (raw[k] !== undefined && typeof raw[k] !== 'boolean') bad(`${w}.${k}`, 'is true or false');
    const spec: CommandSpec = {
      name,
      names: [name, ...((raw.also as string[] | undefined) ?? [])],
      style: raw.style === 'words' ? 'words' : 'gnu',
      subcommand: raw.subcommand === true,
      oldStyle: raw.old_style === true,
      scriptOperand: raw.script_operand === true,
      values: new Set(isStrings(raw.values) ? raw.values : []),
      flags: new Set(isStrings(raw.flags) ? raw.flags : []),
    };
    for (const n of spec.names) {
      if (commands.has(n)) bad(w, `${n} is named twice`);
      commands.set(n, spec);
    }
  }
  const rows: OptionRow[] = [];
  const ids = new Set<string>();
  doc.rows.forEach((raw, i) => {
    const w = `rows[${i}]`;
    if (!isMap(raw)) return bad(w, 'is a mapping');
    for (const k of Object.keys(raw)) if (!ROW_KEYS.has(k)) bad(w, `unknown key ${k}`);
    if (typeof raw.id !== 'string' || !/^[a-z0-9-]+$/.test(raw.id)) bad(w, 'id is a lower-case slug');
    else if (ids.has(raw.id)) bad(w, `id ${raw.id} is used twice`);
    else ids.add(raw.id);
    const env = raw.env;
    if (env !== undefined && (!isStrings(env) || raw.command !== undefined || raw.does !== 'run'))
      bad(`${w}.env`, 'is a list of variable names, in a row of its own (no command) that runs');
    const spec = typeof raw.command === 'string' ? commands.get(raw.command) : undefined;
    if (env === undefined && (!spec || spec.name !== raw.command)) bad(w, 'command names one of `commands` (by its first name)');
    if (raw.sub !== undefined && (!isStrings(raw.sub) || !spec?.subcommand)) bad(`${w}.sub`, 'is a list of subcommands of a command with subcommands');
    const script = raw.script;
    if (script !== undefined && script !== 'sed' && script !== 'awk') bad(`${w}.script`, 'is sed or awk');
    if (script === undefined && env === undefined && !isStrings(raw.options) && !(raw.value === 'operand' || raw.value === 'rest'))
      bad(`${w}.options`, 'is a list of option spellings');
    if (script === undefined && env === undefined && !VALUES.includes(raw.value as OptionValue)) bad(`${w}.value`, `is one of ${VALUES.join(', ')}`);
    if (!DOES.includes(raw.does as OptionDoes)) bad(`${w}.does`, `is one of ${DOES.join(', ')}`);
    for (const k of ['keys', 'with', 'safe'] as const) if (raw[k] !== undefined && !isStrings(raw[k])) bad(`${w}.${k}`, 'is a list of words');
    if (raw.value === 'operand' && !isStrings(raw.keys)) bad(`${w}.keys`, 'a row whose value is an operand names its config keys');
    let safe: RegExp[] | undefined;
    try {
      safe = isStrings(raw.safe) ? raw.safe.map((s) => new RegExp(s)) : undefined;
    } catch (e) {
      bad(`${w}.safe`, (e as Error).message);
    }
    if (typeof raw.why !== 'string' || !raw.why.trim()) bad(`${w}.why`, 'says why, in words');
    if (!isStrings(raw.hits) || raw.hits.length < 2) bad(`${w}.hits`, 'at least two commands it keeps for a person');
    if (!isStrings(raw.misses) || raw.misses.length < 1) bad(`${w}.misses`, 'at least one command like it that passes');
    rows.push({
      id: String(raw.id),
      command: typeof raw.command === 'string' ? raw.command : '',
      env: isStrings(env) ? env : undefined,
      sub: isStrings(raw.sub) ? raw.sub : undefined,
      options: isStrings(raw.options) ? raw.options : [],
      value: (raw.value as OptionValue) ?? 'none',
      does: raw.does as OptionDoes,
      keys: isStrings(raw.keys) ? raw.keys.map(keyPattern) : undefined,
      with: isStrings(raw.with) ? raw.with : undefined,
      safe,
      script: script as OptionRow['script'],
      why: String(raw.why),
      hits: isStrings(raw.hits) ? raw.hits : [],
      misses: isStrings(raw.misses) ? raw.misses : [],
    });
  });
  return errors.length ? { errors } : { table: { commands, rows }, errors };
}

let loaded: OptionTable | undefined;

/** The shipped table, read once; throws OptionTableError when it is broken (the floor then keeps every request for a person). */
export function optionTable(): OptionTable {
  if (loaded) return loaded;
  let doc: unknown;
  try {
    doc = yaml().parse(readFileSync(OPTION_TABLE_FILE, 'utf8'));
  } catch (e) {
    throw new OptionTableError(`${OPTION_TABLE_FILE}: ${(e as Error).message}`);
  }
  const r = compileOptionTable(doc);
  if (!r.table) throw new OptionTableError(`${OPTION_TABLE_FILE} is broken:\n  ${r.errors.join('\n  ')}`);
  return (loaded = r.table);
}

export interface OptionEffect {
  row: OptionRow;
  /** the option as written (`--output`, `-o`, `foreach`, `+`) */
  option: string;
  value?: ShellWord;
  /** a `rest` value: the words of the command it runs */
  rest?: ShellWord[];
}

export interface OptionReading {
  /** paths the command writes through its options or its script */
  writes: { word: ShellWord; row: OptionRow }[];
  /** programs it runs through its options or its script: what and why */
  runs: { row: OptionRow; what: string }[];
  /** options the table does not know, written with a value */
  unknown: string[];
}

const NOTHING: OptionReading = { writes: [], runs: [], unknown: [] };
const cache = new WeakMap<ReadCommand, OptionReading>();

/** A word's text from `from` on, as a word of its own (`--output=F` -> `F`). */
const tail = (w: ShellWord, from: number): ShellWord => ({ ...w, text: w.text.slice(from), home: false });

/** What this command's options do (cached per command). */
export function readOptions(cmd: ReadCommand, table: OptionTable = optionTable()): OptionReading {
  const got = cache.get(cmd);
  if (got) return got;
  const spec = table.commands.get(cmd.name);
  const r = spec
    ? read(
        cmd,
        spec,
        table.rows.filter((x) => x.command === spec.name),
      )
    : NOTHING;
  const env = environment(cmd, table.rows);
  const all = env.length ? { ...r, runs: [...env, ...r.runs] } : r;
  cache.set(cmd, all);
  return all;
}

/** `GIT_PAGER='sh -c …' git log`: a prefix whose value some program runs (an `allow_env` rule would otherwise let it through). */
function environment(cmd: ReadCommand, rows: OptionRow[]): OptionReading['runs'] {
  const out: OptionReading['runs'] = [];
  for (const a of cmd.assignments ?? []) {
    const row = rows.find((r) => r.env?.includes(a.name));
    if (!row) continue;
    if (a.value.literal && row.safe?.some((re) => re.test(a.value.text))) continue;
    out.push({ row, what: `${a.name}=${a.value.source} ${cmd.name}`.trim() });
  }
  return out;
}

interface Scan {
  effects: OptionEffect[];
  present: Set<string>;
  operands: ShellWord[];
  sub?: string;
  unknown: string[];
  /** scripts given with -e / --expression, and whether -f named a script file */
  scripts: ShellWord[];
  scriptFile: boolean;
}

function read(cmd: ReadCommand, spec: CommandSpec, rows: OptionRow[]): OptionReading {
  const s = scan(cmd, spec, rows);
  const out: OptionReading = { writes: [], runs: [], unknown: s.unknown };
  for (const e of s.effects) {
    if (e.row.with && !e.row.with.some((w) => s.present.has(w))) continue;
    if (e.row.keys && e.row.value !== 'operand') {
      // -c key=value: only keys whose value git runs
      const key = (e.value?.text ?? '').split('=')[0]!.toLowerCase();
      if (!e.value?.literal || e.row.keys.some((k) => k.test(key)))
        out.runs.push({ row: e.row, what: `${spec.name} ${e.option} ${e.value?.source ?? ''}`.trim() });
      continue;
    }
    if (e.row.safe && e.value?.literal && e.row.safe.some((re) => re.test(e.value!.text))) continue;
    if (e.row.does === 'write' && e.value) {
      if (e.value.text !== '-' && e.value.text !== '') out.writes.push({ word: e.value, row: e.row });
    } else if (e.row.does === 'run') {
      // an optional value not given: the program's own default (git --exec-path only prints it)
      if (e.row.value === 'optional' && e.value === undefined) continue;
      const what = e.rest ? e.rest.map((w) => w.source).join(' ') : (e.value?.source ?? '');
      if (e.row.value === 'rest' && !e.rest?.length) continue;
      out.runs.push({ row: e.row, what: `${spec.name} ${e.option}${what ? ` ${what}` : ''}` });
    } else if (e.row.does === 'write-operands') {
      const files = spec.scriptOperand && !s.scripts.length && !s.scriptFile ? s.operands.slice(1) : s.operands;
      for (const word of files) out.writes.push({ word, row: e.row });
    }
  }
  // rows about the command itself: git config KEY VALUE, xargs CMD
  for (const row of rows) {
    if (row.options.length || row.script) continue;
    if (row.sub && (s.sub === undefined || !row.sub.includes(s.sub))) continue;
    if (row.value === 'operand' && row.keys && s.operands.length >= 2 && s.operands[0]!.literal) {
      const key = s.operands[0]!.text.toLowerCase();
      if (row.keys.some((k) => k.test(key))) out.runs.push({ row, what: `${spec.name} ${s.sub ?? ''} ${s.operands[0]!.source}`.replace(/ +/g, ' ') });
    }
    if (row.value === 'rest' && s.operands.length) out.runs.push({ row, what: `${spec.name} ${s.operands.map((w) => w.source).join(' ')}` });
  }
  for (const row of rows) if (row.script) scriptEffects(row, s, out);
  return out;
}

/** The rows that apply to an option spelled `name` at this point (before or after the subcommand). */
function rowsFor(rows: OptionRow[], spec: CommandSpec, sub: string | undefined, name: string): OptionRow[] {
  return rows.filter((r) => {
    if (!r.options.includes(name)) return false;
    if (!spec.subcommand) return true;
    return r.sub ? sub !== undefined && r.sub.includes(sub) : sub === undefined;
  });
}

/** A long option's rows: its own, or (abbreviated, as getopt_long and git allow) a row option it is a prefix of. */
function longRows(rows: OptionRow[], spec: CommandSpec, sub: string | undefined, name: string): { rows: OptionRow[]; option: string } {
  const own = rowsFor(rows, spec, sub, name);
  if (own.length || spec.values.has(name) || name.length < 4) return { rows: own, option: name };
  const longer = rows.flatMap((r) => r.options.filter((o) => o.startsWith('--') && o.startsWith(name)));
  for (const o of longer) {
    const hit = rowsFor(rows, spec, sub, o);
    if (hit.length) return { rows: hit, option: o };
  }
  return { rows: [], option: name };
}

const takesValue = (r: OptionRow) => r.value === 'required' || r.value === 'rest';

function scan(cmd: ReadCommand, spec: CommandSpec, rows: OptionRow[]): Scan {
  const s: Scan = { effects: [], present: new Set(), operands: [], unknown: [], scripts: [], scriptFile: false };
  const words = cmd.words.slice(1);
  // tar xzf F: a first argument without a dash is a cluster of options
  if (spec.oldStyle && words[0] && !words[0].text.startsWith('-')) words[0] = { ...words[0], text: `-${words[0].text}` };
  const add = (row: OptionRow[], option: string, value?: ShellWord, rest?: ShellWord[]) => {
    for (const r of row) s.effects.push({ row: r, option, value, rest });
  };
  const restFrom = (i: number): { rest: ShellWord[]; next: number } => {
    let end = i;
    while (end < words.length && words[end]!.text !== ';' && words[end]!.text !== '+') end++;
    return { rest: words.slice(i, end), next: end };
  };
  const script = (option: string, value: ShellWord | undefined) => {
    if (!spec.scriptOperand || !value) return;
    if (option === '-e' || option === '--expression') s.scripts.push(value);
    if (option === '-f' || option === '--file') s.scriptFile = true;
  };
  let options = true;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const t = w.text;
    if (options && t === '--') {
      options = false;
      continue;
    }
    // an operand: the subcommand, a word option (`foreach`), or an argument
    if (!options || t === '-' || (!t.startsWith('-') && !(t.startsWith('+') && rows.some((r) => r.options.includes('+'))))) {
      if (spec.subcommand && s.sub === undefined && options) {
        s.sub = t;
        continue;
      }
      const word = rowsFor(rows, spec, s.sub, t);
      if (word.length && word.some((r) => r.value === 'rest')) {
        const { rest, next } = restFrom(i + 1);
        add(word, t, undefined, rest);
        i = next;
        continue;
      }
      s.operands.push(w);
      continue;
    }
    if (t.startsWith('+')) {
      add(rowsFor(rows, spec, s.sub, '+'), '+', tail(w, 1));
      continue;
    }
    if (spec.style === 'words') {
      s.present.add(t);
      const own = rowsFor(rows, spec, s.sub, t);
      if (own.some((r) => r.value === 'rest')) {
        const { rest, next } = restFrom(i + 1);
        add(own, t, undefined, rest);
        i = next;
      } else if (own.some(takesValue)) add(own, t, words[++i]);
      else if (own.length) add(own, t);
      else if (spec.values.has(t)) i++;
      else if (!spec.flags.has(t)) s.unknown.push(`${cmd.name} ${t}`);
      continue;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const name = eq < 0 ? t : t.slice(0, eq);
      const { rows: own, option } = longRows(rows, spec, s.sub, name);
      s.present.add(option);
      if (own.length) {
        const value = eq >= 0 ? tail(w, eq + 1) : own.some(takesValue) ? words[++i] : undefined;
        add(own, option, value);
        script(option, value);
      } else if (spec.values.has(name)) {
        const value = eq >= 0 ? tail(w, eq + 1) : words[++i];
        script(name, value);
      } else if (eq >= 0) s.unknown.push(`${cmd.name} ${name}=…`);
      continue;
    }
    // a cluster of short options: -abc, -oFILE, -uo FILE
    for (let j = 1; j < t.length; j++) {
      const option = `-${t[j]}`;
      s.present.add(option);
      const own = rowsFor(rows, spec, s.sub, option);
      const attached = j + 1 < t.length ? tail(w, j + 1) : undefined;
      if (own.length) {
        const value = attached ?? (own.some(takesValue) ? words[++i] : undefined);
        add(own, option, value);
        script(option, value);
        break;
      }
      if (spec.values.has(option)) {
        const value = attached ?? words[++i];
        script(option, value);
        break;
      }
    }
  }
  return s;
}

// ---- scripts: sed's and awk's own commands ----

const lit = (text: string): ShellWord => ({ text, source: text, literal: true, pattern: false, home: false });

function scriptEffects(row: OptionRow, s: Scan, out: OptionReading): void {
  const scripts = s.scripts.length ? s.scripts : s.scriptFile ? [] : s.operands.slice(0, 1);
  if (s.scriptFile) out.runs.push({ row, what: `${row.command} -f: a script file the line does not show` });
  for (const sc of scripts) {
    if (!sc.literal) {
      out.runs.push({ row, what: `${row.command} runs a script built at run time (${sc.source})` });
      continue;
    }
    const found = row.script === 'sed' ? sedScript(sc.text) : awkProgram(sc.text);
    for (const f of found.writes) out.writes.push({ word: lit(f), row });
    for (const r of found.runs) out.runs.push({ row, what: `${row.command} ${r}` });
  }
}

/**
 * A sed script's commands that run or write: `e`, `s///e`, `w FILE`,
 * `W FILE`, `s///w FILE`. Addresses, labels, text and the parts of `s` and
 * `y` are skipped as sed reads them.
 */
export function sedScript(script: string): { writes: string[]; runs: string[] } {
  const writes: string[] = [];
  const runs: string[] = [];
  let i = 0;
  const n = script.length;
  const restOfLine = () => {
    const end = script.indexOf('\n', i);
    const text = script.slice(i, end < 0 ? n : end);
    i = end < 0 ? n : end + 1;
    return text.trim();
  };
  /** skip a delimited part (`/re/`), backslash escapes included; i is on the opening delimiter */
  const delimited = (d: string) => {
    i++;
    while (i < n && script[i] !== d) i += script[i] === '\\' ? 2 : 1;
    i++;
  };
  while (i < n) {
    const c = script[i]!;
    if (' \t\n;{}!,'.includes(c)) {
      i++;
      continue;
    }
    // addresses: numbers, $, first~step, /re/, \cREc
    if ((c >= '0' && c <= '9') || c === '$' || c === '~' || c === '+') {
      i++;
      continue;
    }
    if (c === '/') {
      delimited('/');
      while (i < n && (script[i] === 'I' || script[i] === 'M')) i++;
      continue;
    }
    if (c === '\\') {
      i++;
      delimited(script[i] ?? '/');
      continue;
    }
    i++;
    if (c === 'e') runs.push(`e ${restOfLine()}`.trim());
    else if (c === 'w' || c === 'W') writes.push(restOfLine());
    else if (c === 's' || c === 'y') {
      const d = script[i] ?? '/';
      delimited(d);
      i--;
      delimited(d);
      if (c === 'y') continue;
      let flags = '';
      while (i < n && !' \t\n;}'.includes(script[i]!) && script[i] !== 'w') flags += script[i++];
      if (flags.includes('e')) runs.push(`s///${flags}`);
      if (script[i] === 'w') {
        i++;
        writes.push(restOfLine());
      }
    } else if ('aic'.includes(c)) {
      // `a\` and its continued lines are text
      while (restOfLine().endsWith('\\') && i < n);
    } else if (':btTrRvlqQ'.includes(c)) restOfLine();
  }
  return { writes, runs };
}

/**
 * An awk program's ways out: system(…), output redirected to a file
 * (`print > F`, `printf … >> F`) or a command (`print | CMD`), and a command
 * read with getline (`CMD | getline`). Read from the program text without
 * its string and regex contents; a comparison `$3 > 100` is not output.
 */
export function awkProgram(program: string): { writes: string[]; runs: string[] } {
  const code = program.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const runs: string[] = [];
  if (/\bsystem\s*\(/.test(code)) runs.push('system()');
  if (/\|\s*getline\b/.test(code) || /\|&/.test(code)) runs.push('a command piped into getline');
  // print/printf statements: up to the end of the statement
  for (const m of code.matchAll(/\bprintf?\b([^;}\n]*)/g)) {
    const stmt = m[1]!;
    if (/\|/.test(stmt)) runs.push('print into a command');
    else if (/>/.test(stmt)) runs.push('print into a file (written where the program says)');
  }
  return { writes: [], runs };
}
