// Byte-preserving edits of a JSON-with-comments file (trailing commas
// allowed, as editors and agents commonly accept): one named entry of a
// top-level object is added, replaced or removed and every other byte (the
// user's entries, comments, layout) stays. Used by the agent-servers format
// and by `hookmap setup --mcp` (engine/runtime/setup/mcp.ts).
import { FormatError, type Json } from './types.ts';

interface Tok {
  t: 'str' | 'punct' | 'atom';
  s: number;
  e: number;
  v: string;
}

/** Tokens of a JSONC text (comments and whitespace skipped). */
function tokens(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new FormatError('an unterminated /* comment');
      i = end + 2;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw new FormatError('an unterminated string');
      out.push({ t: 'str', s: i, e: j + 1, v: text.slice(i, j + 1) });
      i = j + 1;
      continue;
    }
    if ('{}[]:,'.includes(c)) {
      out.push({ t: 'punct', s: i, e: i + 1, v: c });
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && !' \t\r\n{}[]:,"/'.includes(text[j])) j++;
    if (j === i) throw new FormatError(`unexpected '${c}' at offset ${i}`);
    out.push({ t: 'atom', s: i, e: j, v: text.slice(i, j) });
    i = j;
  }
  return out;
}

/** Parse JSON with comments and trailing commas (what Zed accepts). */
export function parseJsonc(text: string): unknown {
  const toks = tokens(text);
  const plain = toks
    .filter((tk, k) => !(tk.v === ',' && tk.t === 'punct' && (toks[k + 1]?.v === '}' || toks[k + 1]?.v === ']')))
    .map((tk) => tk.v)
    .join('');
  if (plain === '') return undefined;
  try {
    return JSON.parse(plain);
  } catch (e) {
    throw new FormatError(`not JSON even with comments allowed: ${(e as Error).message}`);
  }
}

interface Member {
  key: string;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
  /** the comma after the value, if any */ comma?: Tok;
}
interface Obj {
  open: Tok;
  close: Tok;
  members: Member[];
}

/** The members (with their byte spans) of the object whose `{` is toks[at]. */
function objectAt(toks: Tok[], at: number): Obj {
  if (toks[at]?.v !== '{') throw new FormatError('expected a JSON object');
  const members: Member[] = [];
  let k = at + 1;
  while (k < toks.length) {
    const tk = toks[k];
    if (tk.v === '}') return { open: toks[at], close: tk, members };
    if (tk.t !== 'str' || toks[k + 1]?.v !== ':') throw new FormatError(`unexpected ${tk.v.slice(0, 20)} at offset ${tk.s}`);
    const key = JSON.parse(tk.v) as string;
    const first = toks[k + 2];
    if (!first) throw new FormatError(`no value for "${key}"`);
    let m = k + 2;
    let d = 0;
    let last = first;
    for (; m < toks.length; m++) {
      const x = toks[m];
      if (x.v === '{' || x.v === '[') d++;
      else if (x.v === '}' || x.v === ']') {
        if (d === 0) break;
        d--;
        if (d === 0) {
          last = x;
          m++;
          break;
        }
      } else if (x.v === ',' && d === 0) break;
      last = x;
    }
    const comma = toks[m]?.v === ',' ? toks[m] : undefined;
    members.push({ key, keyStart: tk.s, valueStart: first.s, valueEnd: last.e, comma });
    k = comma ? m + 1 : m;
  }
  throw new FormatError('an object is not closed');
}

/** The top-level object (undefined: the file has no tokens). */
function topLevel(text: string): Obj | undefined {
  const toks = tokens(text);
  if (!toks.length) return undefined;
  if (toks[0].v !== '{') throw new FormatError('the top level is not a JSON object');
  return objectAt(toks, 0);
}

/** The top-level member `container` (an object), with its members' spans. */
function containerObject(text: string, container: string): Obj | undefined {
  const top = topLevel(text);
  const cur = top?.members.find((m) => m.key === container);
  if (!cur) return undefined;
  const toks = tokens(text);
  return objectAt(
    toks,
    toks.findIndex((t) => t.s === cur.valueStart),
  );
}

export const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

function indentOf(text: string, offset: number): string {
  const line = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(line))![0];
}

/** `value` as JSON whose continuation lines sit under `indent`. */
function render(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${indent}`);
}

/** The file with a top-level member `container` holding `value` added (the member is absent). */
function addContainer(text: string, container: string, value: Json): string {
  const top = text.trim() === '' ? undefined : topLevel(text);
  if (!top) return `${JSON.stringify({ [container]: value }, null, 2)}\n`;
  const key = JSON.stringify(container);
  const last = top.members.at(-1);
  if (!last) return `${text.slice(0, top.open.e)}\n  ${key}: ${render(value, '  ')}\n${text.slice(top.close.s)}`;
  const indent = indentOf(text, last.keyStart) || '  ';
  if (last.comma) return `${text.slice(0, last.comma.e)}\n${indent}${key}: ${render(value, indent)},${text.slice(last.comma.e)}`;
  return `${text.slice(0, last.valueEnd)},\n${indent}${key}: ${render(value, indent)}${text.slice(last.valueEnd)}`;
}

/**
 * The file with one entry of the top-level object `container` changed, every
 * other byte kept (the user's entries, their comments and layout): `value`
 * undefined removes the entry, else it replaces the entry's value in place or
 * is appended (the container is added when absent).
 */
export function editMember(text: string, container: string, name: string, value: Json | undefined): string {
  const obj = containerObject(text, container);
  if (!obj) return value === undefined ? text : addContainer(text, container, { [name]: value });
  const at = obj.members.findIndex((m) => m.key === name);
  const m = obj.members[at];
  const outer = indentOf(text, obj.open.s);
  const indent = obj.members[0] ? indentOf(text, obj.members[0].keyStart) : `${outer}  `;
  // a container written on one line (`{"a": {...}, "b": {...}}`) gets its new entry on that line too
  const oneLine = !!obj.members[0] && !text.slice(obj.open.e, obj.members[0].keyStart).includes('\n');
  const show = (v: Json) => (oneLine ? JSON.stringify(v) : render(v, indent));
  if (value !== undefined && m) return text.slice(0, m.valueStart) + show(value) + text.slice(m.valueEnd);
  if (value !== undefined) {
    const entry = `${JSON.stringify(name)}: ${show(value)}`;
    const last = obj.members.at(-1);
    const sep = oneLine ? ' ' : `\n${indent}`;
    if (!last) return `${text.slice(0, obj.open.e)}\n${indent}${entry}\n${outer}${text.slice(obj.close.s).replace(/^[ \t]*/, '')}`;
    if (last.comma) return `${text.slice(0, last.comma.e)}${sep}${entry},${text.slice(last.comma.e)}`;
    return `${text.slice(0, last.valueEnd)},${sep}${entry}${text.slice(last.valueEnd)}`;
  }
  if (!m) return text;
  // removal: the member's line(s) when it stands alone on them, with its comma (or the previous one when last)
  const lineStart = text.lastIndexOf('\n', m.keyStart - 1) + 1;
  const from = /^[ \t]*$/.test(text.slice(lineStart, m.keyStart)) ? lineStart : m.keyStart;
  if (m.comma) {
    let to = m.comma.e;
    const eol = text.indexOf('\n', to);
    if (from === lineStart && eol >= 0 && /^[ \t]*$/.test(text.slice(to, eol))) to = eol + 1;
    return text.slice(0, from) + text.slice(to);
  }
  const prev = obj.members[at - 1];
  if (prev?.comma) {
    const gap = text.slice(prev.comma.e, from === lineStart ? lineStart - 1 : from);
    return text.slice(0, prev.comma.s) + (/^[ \t]*$/.test(gap) ? '' : gap) + text.slice(m.valueEnd);
  }
  return text.slice(0, from === lineStart ? lineStart - 1 : from) + text.slice(m.valueEnd);
}

/** The value without the empty objects in it (what "nothing left" compares). */
export function pruned(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pruned);
  if (isObj(v)) {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      const p = pruned(x);
      if (isObj(p) && Object.keys(p).length === 0) continue;
      out[k] = p;
    }
    return out;
  }
  return v;
}

/** Key-order-independent JSON text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
