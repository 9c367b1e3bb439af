// "Did you mean": the closest known name to a misspelt one (Damerau-
// Levenshtein distance, bounded by the name's length), for keys, enum
// values, variables, functions, fields, capabilities and agents alike.
// engine/core/text holds plain text helpers below every other layer.

export function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The best candidate within reach (case-insensitive first), or undefined. */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const limit = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  for (const c of candidates) {
    if (c === name) continue;
    const dd = c.toLowerCase() === name.toLowerCase() ? 0.5 : distance(name, c);
    if (dd < bestD || (dd === bestD && best !== undefined && c < best)) {
      best = c;
      bestD = dd;
    }
  }
  return bestD <= limit ? best : undefined;
}

const code = (s: string) => `\`${s}\``;

/** ` Did you mean X?`, or nothing. */
export function didYouMean(name: string, candidates: Iterable<string>, render: (s: string) => string = code): string {
  const s = suggest(name, candidates);
  return s === undefined ? '' : ` Did you mean ${render(s)}?`;
}

/**
 * One message in the house style: the problem, then a did-you-mean, then the
 * valid choices, then a hint: `\`x\` is not bound here. Did you mean \`y\`? Bound here: \`a\`, \`b\`.`
 */
export function explain(
  problem: string,
  o: { name?: string; candidates?: Iterable<string>; label?: string; hint?: string; render?: (s: string) => string } = {},
): string {
  const all = o.candidates ? [...o.candidates] : [];
  const render = o.render ?? code;
  let out = `${problem}.`;
  if (o.name !== undefined && all.length) out += didYouMean(o.name, all, render);
  if (o.label) out += ` ${o.label}: ${all.length ? choices(all, render, 40) : 'none'}.`;
  if (o.hint) out += ` ${o.hint}`;
  return out;
}

/** A list of valid choices for a message: all of them when few, else the first ones and a count. */
export function choices(list: Iterable<string>, render: (s: string) => string = (s) => `\`${s}\``, max = 12): string {
  const all = [...list];
  const shown = all.slice(0, max).map(render).join(', ');
  return all.length > max ? `${shown}, ... (${all.length} in all)` : shown;
}
