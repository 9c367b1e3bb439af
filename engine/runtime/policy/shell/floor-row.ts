// One row of the floor (issue 22 "A floor no rule can cross"): a shape of
// command that always goes to a person whatever the rules say, with the
// reason a card shows and examples that test/runtime/policy/shell-floor.test.ts holds
// it to (read with EXAMPLE_CONTEXT). Helpers the rows share live here.
import type { ReadCommand, ShellReading } from './commands.ts';
import { readOptions } from './options.ts';
import type { FloorContext } from './paths.ts';
import type { ShellWord } from './words.ts';

export interface FloorRow {
  id: string;
  /** one line: why a person decides */
  why: string;
  /** commands this row stops */
  hits: string[];
  /** commands that look alike and this row lets through */
  misses: string[];
  /** what in the reading makes it a hit, or undefined */
  check(reading: ShellReading, ctx: FloorContext & { home: string }): string | undefined;
}

/** the context every row's examples are read in */
export const EXAMPLE_CONTEXT = { cwd: '/home/dev/project', home: '/home/dev' } as const;

const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);
/** write their last argument */
const COPIERS = new Set(['cp', 'mv', 'install', 'ln', 'rsync', 'scp']);

/** The files a command writes: redirection targets, `tee`'s files, a copy's destination, what its options write. */
export function writeTargets(cmd: ReadCommand): ShellWord[] {
  const out: ShellWord[] = [];
  for (const r of cmd.redirects) {
    if (!WRITE_OPS.has(r.op) || !r.target) continue;
    // `>&2`, `2>&1`, `>&-`: a descriptor, not a file
    if (r.op === '>&' && (r.target.text === '-' || [...r.target.text].every((c) => c >= '0' && c <= '9'))) continue;
    out.push(r.target);
  }
  const args = operands(cmd);
  if (cmd.name === 'tee') out.push(...args);
  if (cmd.name === 'perl' && hasOption(cmd, ['i'], ['--in-place'])) out.push(...args);
  // `sort -o F`, `curl -o F`, `git log --output=F`, `sed -i F`, `sed 'w F'` ... (option-table.yaml)
  out.push(...readOptions(cmd).writes.map((w) => w.word));
  const targetDir = cmd.words.findIndex((w) => w.text === '-t' || w.text === '--target-directory');
  const targetEq = cmd.words.find((w) => w.text.startsWith('--target-directory='));
  if (COPIERS.has(cmd.name) && targetDir > 0 && cmd.words[targetDir + 1]) out.push(cmd.words[targetDir + 1]!);
  else if (COPIERS.has(cmd.name) && targetEq) out.push(after(targetEq, '--target-directory='));
  else if (COPIERS.has(cmd.name) && args.length >= 2) out.push(args[args.length - 1]!);
  // `dd of=FILE`
  if (cmd.name === 'dd') for (const w of cmd.words) if (w.text.startsWith('of=')) out.push(after(w, 'of='));
  return out;
}

/** The part of a `KEY=value` word after the key, as a word of its own. */
function after(word: ShellWord, key: string): ShellWord {
  return { ...word, text: word.text.slice(key.length) };
}

/** A command's words after its name that are not options (all of them after `--`). */
export function operands(cmd: ReadCommand): ShellWord[] {
  const out: ShellWord[] = [];
  let options = true;
  for (const w of cmd.words.slice(1)) {
    if (options && w.text === '--') options = false;
    else if (options && w.text.startsWith('-') && w.text !== '-') continue;
    else out.push(w);
  }
  return out;
}

/** Options before `--`: `-rf` holds r and f, `--recursive` is itself. */
export function hasOption(cmd: ReadCommand, short: string[], long: string[]): boolean {
  for (const w of cmd.words.slice(1)) {
    const t = w.text;
    if (t === '--') return false;
    if (t.startsWith('--')) {
      if (long.some((l) => t === l || t.startsWith(`${l}=`))) return true;
    } else if (t.startsWith('-') && short.some((s) => t.slice(1).includes(s))) return true;
  }
  return false;
}

/** Every word the command line holds: arguments and redirection targets. */
export function allWords(reading: ShellReading): ShellWord[] {
  return reading.commands.flatMap((c) => [...c.words, ...c.redirects.flatMap((r) => (r.target ? [r.target] : []))]);
}

export function firstHit<T>(items: T[], test: (item: T) => string | undefined): string | undefined {
  for (const item of items) {
    const hit = test(item);
    if (hit !== undefined) return hit;
  }
  return undefined;
}
