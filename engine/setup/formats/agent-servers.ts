// The `agent-servers` format: an editor's settings file (JSON with comments,
// as Zed writes it) whose `agent_servers` object lists the ACP agents the
// editor can start, by display name:
//   { "agent_servers": { "<name>": { "type": "custom", "command", "args": [...], "env": {} } } }
// For a stdio-tee agent, hookmap's entries are the user's agent commands
// wrapped in `hookmap tee <agent> -- <command...>` (one registration per
// wrapped command, named by `--name`); wrapping another command adds an
// entry, re-wrapping one (same name or same command) replaces it, and
// uninstall removes them all. Only hookmap's own entries are written;
// everything else in the file (the user's entries and comments included)
// keeps its bytes. Entries are recognized as hookmap's by their arguments
// (`tee <agent> --`), never by a marker key the editor would reject.
// Zed: https://zed.dev/docs/ai/external-agents ("Add More Agents").
import type { Handler } from '../recognize.ts';
import { FormatError, type Json, type TextFormat } from './types.ts';

interface Tok { t: 'str' | 'punct' | 'atom'; s: number; e: number; v: string }

/** Tokens of a JSONC text (comments and whitespace skipped). */
function tokens(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    if (c === '/' && text[i + 1] === '/') { while (i < text.length && text[i] !== '\n') i++; continue; }
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
    if ('{}[]:,'.includes(c)) { out.push({ t: 'punct', s: i, e: i + 1, v: c }); i++; continue; }
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
  const plain = toks.filter((tk, k) => !(tk.v === ',' && tk.t === 'punct' && (toks[k + 1]?.v === '}' || toks[k + 1]?.v === ']'))).map((tk) => tk.v).join('');
  if (plain === '') return undefined;
  try {
    return JSON.parse(plain);
  } catch (e) {
    throw new FormatError(`not JSON even with comments allowed: ${(e as Error).message}`);
  }
}

interface Member { key: string; keyStart: number; valueStart: number; valueEnd: number; /** the comma after the value, if any */ comma?: Tok }
interface Obj { open: Tok; close: Tok; members: Member[] }

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
      else if (x.v === '}' || x.v === ']') { if (d === 0) break; d--; if (d === 0) { last = x; m++; break; } }
      else if (x.v === ',' && d === 0) break;
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

/** The `agent_servers` object inside the top level, with its members' spans. */
function serversObject(text: string): Obj | undefined {
  const top = topLevel(text);
  const cur = top?.members.find((m) => m.key === 'agent_servers');
  if (!cur) return undefined;
  const toks = tokens(text);
  return objectAt(toks, toks.findIndex((t) => t.s === cur.valueStart));
}

const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

function indentOf(text: string, offset: number): string {
  const line = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(line))![0];
}

/** `value` as JSON whose continuation lines sit under `indent`. */
function render(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${indent}`);
}

/** The file with an `agent_servers` member holding `value` added to the top level (the member is absent). */
function addAgentServers(text: string, value: Json): string {
  const top = text.trim() === '' ? undefined : topLevel(text);
  if (!top) return `${JSON.stringify({ agent_servers: value }, null, 2)}\n`;
  const last = top.members.at(-1);
  if (!last) return `${text.slice(0, top.open.e)}\n  "agent_servers": ${render(value, '  ')}\n${text.slice(top.close.s)}`;
  const indent = indentOf(text, last.keyStart) || '  ';
  if (last.comma) return `${text.slice(0, last.comma.e)}\n${indent}"agent_servers": ${render(value, indent)},${text.slice(last.comma.e)}`;
  return `${text.slice(0, last.valueEnd)},\n${indent}"agent_servers": ${render(value, indent)}${text.slice(last.valueEnd)}`;
}

/**
 * The file with one agent_servers entry changed, every other byte kept (the
 * user's entries, their comments and layout): `value` undefined removes the
 * entry, else it replaces the entry's value in place or is appended.
 */
function editServer(text: string, name: string, value: Json | undefined): string {
  const obj = serversObject(text);
  if (!obj) return value === undefined ? text : addAgentServers(text, { [name]: value });
  const at = obj.members.findIndex((m) => m.key === name);
  const m = obj.members[at];
  const outer = indentOf(text, obj.open.s);
  const indent = obj.members[0] ? indentOf(text, obj.members[0].keyStart) : `${outer}  `;
  if (value !== undefined && m) return text.slice(0, m.valueStart) + render(value, indent) + text.slice(m.valueEnd);
  if (value !== undefined) {
    const entry = `${JSON.stringify(name)}: ${render(value, indent)}`;
    const last = obj.members.at(-1);
    if (!last) return `${text.slice(0, obj.open.e)}\n${indent}${entry}\n${outer}${text.slice(obj.close.s).replace(/^[ \t]*/, '')}`;
    if (last.comma) return `${text.slice(0, last.comma.e)}\n${indent}${entry},${text.slice(last.comma.e)}`;
    return `${text.slice(0, last.valueEnd)},\n${indent}${entry}${text.slice(last.valueEnd)}`;
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
  if (prev?.comma) return text.slice(0, prev.comma.s) + text.slice(prev.comma.e, from === lineStart ? lineStart - 1 : from) + text.slice(m.valueEnd);
  return text.slice(0, from === lineStart ? lineStart - 1 : from) + text.slice(m.valueEnd);
}

function agentServers(text: string): Json {
  const doc = parseJsonc(text);
  if (doc === undefined) return {};
  if (!isObj(doc)) throw new FormatError('the top level is not a JSON object');
  const a = doc.agent_servers;
  if (a === undefined) return {};
  if (!isObj(a)) throw new FormatError('`agent_servers` is not an object; refusing to touch it');
  return a;
}

/** An agent_servers entry that runs `hookmap tee <agent> --`. */
export function isTeeEntry(entry: unknown, agent: string): boolean {
  if (!isObj(entry) || !Array.isArray(entry.args)) return false;
  const args = entry.args as unknown[];
  const i = args.indexOf('tee');
  if (i < 0 || args[i + 1] !== agent || !args.slice(i + 2).includes('--')) return false;
  return /hookmap(\.mjs)?$/.test(String(entry.command ?? '')) || args.slice(0, i).some((a) => typeof a === 'string' && /hookmap(\.mjs)?$/.test(a));
}

function pruned(v: unknown): unknown {
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

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObj(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

export const agentServersFormat: TextFormat = {
  kind: 'text',
  install(text, regs, _ours, opts) {
    const servers = agentServers(text);
    // each run wraps its commands; other wrapped agents stay (one entry per name, one per command)
    const sameCommand = (e: unknown) => regs.some((r) => isObj(e) && JSON.stringify([e.command, ...(Array.isArray(e.args) ? e.args : [])]) === JSON.stringify(r.argv));
    const replaced = (name: string, e: unknown) => isTeeEntry(e, opts.agent) && (regs.some((r) => r.hook === name) || sameCommand(e));
    const next: Json = {};
    for (const [name, e] of Object.entries(servers)) if (!replaced(name, e)) next[name] = e;
    for (const r of regs) {
      if (!r.argv?.length) throw new FormatError(`registration ${r.hook} has no command to run`);
      if (next[r.hook] !== undefined) throw new FormatError(`agent_servers already has an entry named "${r.hook}" that is not hookmap's; choose another --name`);
      const prev = servers[r.hook];
      const env = isObj(prev) && isObj(prev.env) ? prev.env : {};
      next[r.hook] = { type: 'custom', command: r.argv[0], args: r.argv.slice(1), env };
    }
    if (canonicalJson(next) === canonicalJson(servers)) return text;
    // entry by entry: the user's own entries keep their bytes (comments, layout); ours are replaced in place
    let out = text;
    for (const [name, e] of Object.entries(servers)) if (replaced(name, e) && !regs.some((r) => r.hook === name)) out = editServer(out, name, undefined);
    for (const r of regs) if (canonicalJson(next[r.hook]) !== canonicalJson(servers[r.hook])) out = editServer(out, r.hook, next[r.hook] as Json);
    return out;
  },
  remove(text, _ours, opts) {
    if (text.trim() === '') return text;
    let out = text;
    for (const [name, e] of Object.entries(agentServers(text))) if (isTeeEntry(e, opts.agent)) out = editServer(out, name, undefined);
    return out;
  },
  entries(text, opts) {
    if (text.trim() === '') return [];
    const out: { hook: string; handler: Handler }[] = [];
    for (const [name, e] of Object.entries(agentServers(text))) {
      if (!isObj(e)) continue;
      const argv = [e.command, ...(Array.isArray(e.args) ? e.args : [])].map(String);
      out.push({ hook: name, handler: { type: 'command', command: argv.join(' '), tee: isTeeEntry(e, opts.agent) } });
    }
    return out;
  },
  canonical: (text) => canonicalJson(pruned(text.trim() === '' ? {} : parseJsonc(text))),
  empty: (text) => text.trim() === '' || Object.keys(pruned(parseJsonc(text) ?? {}) as Json).length === 0,
};
