// A small unified line diff for `--dry-run` (config files are small: an LCS
// table is fine). Output: `--- a`/`+++ b` then hunks with 2 lines of context.
export function unifiedDiff(a: string, b: string, nameA: string, nameB: string, context = 2): string {
  if (a === b) return '';
  const x = a === '' ? [] : a.replace(/\n$/, '').split('\n');
  const y = b === '' ? [] : b.replace(/\n$/, '').split('\n');
  const n = x.length;
  const m = y.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops: { op: ' ' | '-' | '+'; line: string; ai: number; bi: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) ops.push({ op: ' ', line: x[i], ai: i++, bi: j++ });
    else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) ops.push({ op: '+', line: y[j], ai: i, bi: j++ });
    else ops.push({ op: '-', line: x[i], ai: i++, bi: j });
  }
  const out = [`--- ${nameA}`, `+++ ${nameB}`];
  let k = 0;
  while (k < ops.length) {
    if (ops[k].op === ' ') {
      k++;
      continue;
    }
    const start = Math.max(0, k - context);
    let end = k;
    // extend the hunk while changes are within 2*context of each other
    while (end < ops.length) {
      if (ops[end].op !== ' ') {
        end++;
        continue;
      }
      let run = end;
      while (run < ops.length && ops[run].op === ' ') run++;
      if (run < ops.length && run - end <= 2 * context) end = run;
      else break;
    }
    const stop = Math.min(ops.length, end + context);
    const hunk = ops.slice(start, stop);
    const aLen = hunk.filter((o) => o.op !== '+').length;
    const bLen = hunk.filter((o) => o.op !== '-').length;
    out.push(`@@ -${hunk[0].ai + (aLen ? 1 : 0)},${aLen} +${hunk[0].bi + (bLen ? 1 : 0)},${bLen} @@`);
    for (const o of hunk) out.push(`${o.op}${o.line}`);
    k = stop;
  }
  return `${out.join('\n')}\n`;
}
