// A small line diff (Myers' O(ND) algorithm) printed in unified format: what
// `hookmap record promote` shows before it copies a candidate into fixtures/,
// `setup --dry-run` before it writes, and `doctor` for a shim setup would change.
// Bounded: past `maxD` differences it falls back to "replace everything".

type Op = { kind: ' ' | '-' | '+'; line: string };

function myers(a: string[], b: string[], maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxD);
  const v = new Map<number, number>([[1, 0]]);
  const trace: Map<number, number>[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v.get(k - 1) ?? -1) < (v.get(k + 1) ?? -1)) ? (v.get(k + 1) ?? 0) : (v.get(k - 1) ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) {
        // walk back
        const ops: Op[] = [];
        let cx = n;
        let cy = m;
        for (let dd = d; dd > 0; dd--) {
          const pv = trace[dd];
          const kk = cx - cy;
          const prevK = kk === -dd || (kk !== dd && (pv.get(kk - 1) ?? -1) < (pv.get(kk + 1) ?? -1)) ? kk + 1 : kk - 1;
          const px = pv.get(prevK) ?? 0;
          const py = px - prevK;
          while (cx > px && cy > py) {
            ops.push({ kind: ' ', line: a[cx - 1] });
            cx--;
            cy--;
          }
          if (cx === px) {
            ops.push({ kind: '+', line: b[cy - 1] });
            cy--;
          } else {
            ops.push({ kind: '-', line: a[cx - 1] });
            cx--;
          }
        }
        while (cx > 0 && cy > 0) {
          ops.push({ kind: ' ', line: a[cx - 1] });
          cx--;
          cy--;
        }
        return ops.reverse();
      }
    }
  }
  return undefined;
}

export function unifiedDiff(before: string, after: string, fromName: string, toName: string, context = 3): string {
  if (before === after) return '';
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after === '' ? [] : after.replace(/\n$/, '').split('\n');
  const ops = myers(a, b, 2000) ?? [...a.map((line) => ({ kind: '-' as const, line })), ...b.map((line) => ({ kind: '+' as const, line }))];
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  // hunks: changed ops with `context` lines around
  let i = 0;
  let ai = 1;
  let bi = 1;
  const pos: { a: number; b: number }[] = [];
  for (const op of ops) {
    pos.push({ a: ai, b: bi });
    if (op.kind !== '+') ai++;
    if (op.kind !== '-') bi++;
  }
  while (i < ops.length) {
    while (i < ops.length && ops[i].kind === ' ') i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    let lastChange = i;
    while (end < ops.length && end - lastChange <= 2 * context) {
      if (ops[end].kind !== ' ') lastChange = end;
      end++;
    }
    end = Math.min(ops.length, lastChange + context + 1);
    const hunk = ops.slice(start, end);
    const aLen = hunk.filter((o) => o.kind !== '+').length;
    const bLen = hunk.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${aLen ? pos[start].a : pos[start].a - 1},${aLen} +${bLen ? pos[start].b : pos[start].b - 1},${bLen} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    i = end;
  }
  return `${out.join('\n')}\n`;
}
