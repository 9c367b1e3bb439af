// Commands that run another command given in their arguments or input
// (issue 22: `command`/`exec`/`env`/`xargs` wrappers, `bash -c '…'`). A rule
// never allows one of them (what it would run is not what the rule names);
// the floor unwraps them and reads the command inside.

/** the shells: `-c STRING` is a script, and so is their standard input */
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'ash', 'busybox']);

/** run the rest of their words as a command, after their own options */
export const WRAPPERS = new Set([
  'env',
  'command',
  'exec',
  'xargs',
  'nohup',
  'builtin',
  'time',
  'nice',
  'ionice',
  'timeout',
  'stdbuf',
  'setsid',
  'chroot',
  'unbuffer',
  'watch',
  'sudo',
  'doas',
  'su',
  'pkexec',
  'run0',
  'flock',
  'caffeinate',
  'coproc',
]);

/** read their arguments (or a file) as shell code; `trap` runs its first argument later */
export const EVALUATORS = new Set(['eval', 'source', '.', 'trap']);

export function runsOtherCommands(name: string): boolean {
  return SHELLS.has(name) || WRAPPERS.has(name) || EVALUATORS.has(name);
}

/** Options of a wrapper that take a value (so the value is not the command). */
const VALUE_OPTIONS: Record<string, Set<string>> = {
  env: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']),
  exec: new Set(['-a']),
  xargs: new Set([
    '-a',
    '-d',
    '-E',
    '-e',
    '-I',
    '-i',
    '-L',
    '-l',
    '-n',
    '-P',
    '-s',
    '--arg-file',
    '--delimiter',
    '--max-args',
    '--max-procs',
    '--max-lines',
    '--max-chars',
    '--replace',
  ]),
  nice: new Set(['-n', '--adjustment']),
  ionice: new Set(['-c', '-n', '-p']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  sudo: new Set([
    '-u',
    '--user',
    '-g',
    '--group',
    '-C',
    '-D',
    '--chdir',
    '-h',
    '--host',
    '-p',
    '--prompt',
    '-r',
    '--role',
    '-t',
    '--type',
    '-U',
    '--other-user',
  ]),
  doas: new Set(['-u', '-C']),
  su: new Set(['-c', '--command', '-s', '--shell', '-g', '--group']),
  pkexec: new Set(['--user']),
  stdbuf: new Set(['-i', '-o', '-e']),
  watch: new Set(['-n', '--interval', '-d']),
  flock: new Set(['-w', '--timeout', '-E', '--conflict-exit-code']),
};

/**
 * Where the command a wrapper runs starts: its words after the wrapper's own
 * options (and `env`'s NAME=value pairs, `timeout`'s duration, `chroot`'s and
 * `flock`'s directory). Undefined when it runs nothing (`env` alone).
 */
export function wrappedStart(words: string[]): number | undefined {
  const name = words[0]!;
  const values = VALUE_OPTIONS[name] ?? new Set<string>();
  let i = 1;
  while (i < words.length) {
    const w = words[i]!;
    if (w === '--') {
      i++;
      break;
    }
    if (name === 'env' && isAssignment(w)) {
      i++;
      continue;
    }
    if (!w.startsWith('-') || w === '-') break;
    i += values.has(w) ? 2 : 1;
  }
  if (name === 'timeout' || name === 'chroot' || name === 'flock') i++;
  return i < words.length ? i : undefined;
}

/** `NAME=value`, as `env` reads its arguments */
function isAssignment(word: string): boolean {
  const eq = word.indexOf('=');
  if (eq <= 0) return false;
  return [...word.slice(0, eq)].every((c, i) => c === '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9'));
}
