// The options table (option-table.yaml beside this file: issue 40 "the floor
// reads what options do"): its rows, each with its examples and its why,
// checked when it loads; a broken table stops the floor from answering
// anything (every command goes to a person). options.ts reads a command's
// words against it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../../core/io/package-root.mjs';
import { yaml } from '../../../core/text/yaml-lazy.ts';

export const OPTION_TABLE_FILE = join(PACKAGE_ROOT, 'engine/runtime/policy/shell/option-table.yaml');

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
