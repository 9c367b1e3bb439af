// What a sed script or an awk program writes and runs (the options table's
// `script` rows: sed's `w`/`e`, awk's `system()` and `>`), read without a
// program of their own.
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
