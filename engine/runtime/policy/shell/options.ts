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
import { optionTable, type CommandSpec, type OptionRow, type OptionTable } from './option-table.ts';
import { awkProgram, sedScript } from './option-scripts.ts';
import type { ReadCommand } from './commands.ts';
import type { ShellWord } from './words.ts';

export { OPTION_TABLE_FILE, OptionTableError, compileOptionTable, optionTable, type OptionRow, type OptionTable, type CommandSpec } from './option-table.ts';
export { awkProgram, sedScript } from './option-scripts.ts';

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
  /**
   * programs it runs through its options or its script: what and why; `read` when the shell reader takes the program
   * and its arguments as a command of its own (find -exec with plain words), which the floor's rows and the rules meet
   */
  runs: { row: OptionRow; what: string; read?: boolean }[];
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
      const read = spec.name === 'find' && e.rest !== undefined && e.rest.every((w) => w.literal && !w.pattern);
      out.runs.push({ row: e.row, what: `${spec.name} ${e.option}${what ? ` ${what}` : ''}`, ...(read ? { read } : {}) });
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
