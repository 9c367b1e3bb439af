// Where a search's words are in an event's text, for the reader to see: a
// short excerpt around the first match, cut into plain-text parts, the
// matched words marked. Parts, never markup: a page renders each part as
// text (an event's text can hold anything, `<script>` too), and a client
// decides how to show a mark. The words are compared the way FTS5's
// unicode61 tokenizer compares them (letters and digits, case and
// diacritics folded), so what is marked is what matched.

/** One piece of an excerpt: text, and whether it is a matched word. */
export interface Part {
  text: string;
  mark?: true;
}

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;
const WIDTH = 160;

const NOT_ASCII = /[^ -~]/;

/** A word as unicode61 compares it (an ASCII word, most of them: only its case). */
export const fold = (w: string): string => (!NOT_ASCII.test(w) ? w.toLowerCase() : w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase());

/** The query's words, folded (what search() asked FTS5 for). */
export function queryTokens(text: string): Set<string> {
  return new Set((text.match(TOKEN) ?? []).map(fold).filter(Boolean));
}

/** An excerpt of `text` (about WIDTH characters) around its first matched word, the matches marked; undefined when none is there. */
export function excerpt(text: string, words: ReadonlySet<string>): Part[] | undefined {
  const flat = text.replace(/\s+/g, ' ');
  const hits: [number, number][] = [];
  let from = 0;
  let to = 0;
  for (const m of flat.matchAll(TOKEN)) {
    if (hits.length && m.index! >= to) break; // past the excerpt: the rest is not shown
    if (!words.has(fold(m[0]))) continue;
    if (!hits.length) {
      to = Math.min(flat.length, Math.max(0, m.index! - WIDTH / 4) + WIDTH);
      from = Math.max(0, to - WIDTH);
    }
    hits.push([m.index!, m.index! + m[0].length]);
  }
  if (!hits.length) return undefined;
  const parts: Part[] = [];
  const plain = (a: number, b: number) => {
    if (b > a) parts.push({ text: flat.slice(a, b) });
  };
  let at = from;
  for (const [a, b] of hits) {
    if (a < from || b > to) continue;
    plain(at, a);
    parts.push({ text: flat.slice(a, b), mark: true });
    at = b;
  }
  plain(at, to);
  if (from > 0) parts.unshift({ text: '…' });
  if (to < flat.length) parts.push({ text: '…' });
  return parts;
}
