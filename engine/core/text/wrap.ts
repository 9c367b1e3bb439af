// Terminal text within a width (the CLI's help and reports fit 100
// columns): words wrapped with a hanging indent, an option line's
// description wrapped under its own column, a synopsis broken between its
// bracketed groups, never inside one.

/** The width every help line and report line of the CLI fits. */
export const COLUMNS = 100;

/** `words` from `first` on, wrapped to `width`; continuation lines start with `indent`. A word longer than a line stays whole. */
export function wrapWords(first: string, words: string[], indent: string, width = COLUMNS): string[] {
  const lines: string[] = [];
  let line = first;
  let fresh = true;
  for (const w of words) {
    if (!fresh && line.length + 1 + w.length > width) {
      lines.push(line);
      line = indent + w;
    } else line = fresh ? line + w : `${line} ${w}`;
    fresh = false;
  }
  lines.push(line);
  return lines;
}

/** One line of prose wrapped under its own indent. */
export function wrapLine(line: string, width = COLUMNS): string[] {
  if (line.length <= width) return [line];
  const lead = /^\s*/.exec(line)![0];
  return wrapWords(lead, line.trimStart().split(' ').filter(Boolean), lead, width);
}

/** `  --flag V   description` split into the option (indent included) and its description. */
function optionParts(line: string): { opt: string; desc: string } | undefined {
  const m = /^(\s+[-[<a-z]\S*(?: \S+)*?)\s{2,}(\S.*)$/.exec(line);
  return m ? { opt: m[1], desc: m[2] } : undefined;
}

/** The widest option that still shares the description column; a longer one puts its description on the next line. */
const MAX_OPTION = 30;

/**
 * A help text within `width`: every option's description starts in one
 * column (the widest option up to 30 characters, plus two) and wraps under
 * it; a line already broken by hand (indented to about its option's description column)
 * is joined to its option first, so the description wraps as one paragraph;
 * indented prose lines that follow each other are one paragraph too; prose
 * wraps under its own indent.
 */
export function wrapText(text: string, width = COLUMNS): string {
  const logical: string[] = [];
  let col = 0;
  let prose = -1;
  for (const line of text.split('\n')) {
    const lead = /^\s*/.exec(line)![0].length;
    const o = optionParts(line);
    const joins =
      line.trim() && !o && logical.length && (col > 0 ? Math.abs(lead - col) <= 2 && !line.trimStart().startsWith('-') : lead >= 2 && lead === prose);
    if (joins) {
      logical[logical.length - 1] += ` ${line.trim()}`;
      continue;
    }
    col = o ? line.length - o.desc.length : 0;
    prose = !o && line.trim() ? lead : -1;
    logical.push(line);
  }
  const widths = logical.map((l) => optionParts(l)?.opt.length ?? 0).filter((n) => n > 0 && n <= MAX_OPTION);
  const at = widths.length ? Math.max(...widths) + 2 : 0;
  return logical
    .flatMap((l) => {
      const o = optionParts(l);
      if (!o) return wrapLine(l, width);
      const words = o.desc.split(' ').filter(Boolean);
      const indent = ' '.repeat(at);
      if (o.opt.length + 2 > at) return [o.opt, ...wrapWords(indent, words, indent, width)];
      return wrapWords(o.opt.padEnd(at), words, indent, width);
    })
    .join('\n');
}

/** A synopsis after `first`, broken between its top-level words and bracketed groups only; continuation lines under `indent`. */
export function wrapSynopsis(first: string, synopsis: string, indent: string, width = COLUMNS): string[] {
  const groups: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of synopsis) {
    if (ch === ' ' && depth === 0) {
      if (cur) groups.push(cur);
      cur = '';
      continue;
    }
    if (ch === '[' || ch === '<' || ch === '(') depth++;
    if (ch === ']' || ch === '>' || ch === ')') depth = Math.max(0, depth - 1);
    cur += ch;
  }
  if (cur) groups.push(cur);
  return wrapWords(first, groups, indent, width);
}
