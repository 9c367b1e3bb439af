// `hookmap setup <agent> --mcp`: registers `hookmap mcp --agent <agent>` (the
// ask_human / emit_event server, engine/person/mcp/server.ts; AEP-0001 §9's
// model-fired path) in the agent's OWN MCP config, from the descriptor's
// `setup.mcp` data (schemas/descriptor.schema.json `setup.mcp`): which file
// per scope, which top-level object/table holds the servers, how an entry
// spells its command. Nothing here names an agent.
//
// Two storage formats, both TextFormats so apply.ts plans them like any
// config (backup before the first write, idempotent, uninstall restores the
// exact bytes when nothing else changed):
//   json  JSON with comments: one member of the `key` object is added,
//         replaced or removed in place (formats/jsonc-members.ts); the
//         user's servers, comments and layout keep their bytes.
//   toml  a `[<key>.<name>]` table in a fenced block at the END of the file
//         (a table header ends the previous table, so appending is safe; a
//         key written below it by hand would join it, the same caveat as the
//         toml-hook-tables format), the rest byte-identical.
// An entry of our name that does not run hookmap's MCP server for this agent
// is the user's: setup refuses (FormatError) instead of overwriting it.
import type { Descriptor } from '../../core/descriptor/types.ts';
import type { Target } from '../../core/io/target.ts';
import type { McpSetupSpec } from '../../core/descriptor/setup-spec.ts';
import type { Handler } from './recognize.ts';
import { canonicalJson, editMember, isObj, parseJsonc } from './formats/jsonc-members.ts';
import { FormatError, type Json, type TextFormat } from './formats/types.ts';

/** The command line of the hookmap MCP server for `agent` (launcher = the node shim's: this Node + this bin/hookmap.mjs). */
export function mcpArgv(agent: string, launcher: string[], t: Pick<Target, 'named'>): string[] {
  const argv = [...launcher, 'mcp', '--agent', agent];
  // a daemon elsewhere than the default, as the hooks are pointed at it (registrations bake the same URL)
  if (t.named.url) argv.push('--url', t.named.url);
  return argv;
}

/** The server entry as the agent's config spells it. */
export function mcpEntry(spec: McpSetupSpec, argv: string[], t: Pick<Target, 'named'>): Json {
  const entry: Json = { ...spec.fields };
  if (spec.command === 'array') entry.command = argv;
  else {
    entry.command = argv[0];
    entry.args = argv.slice(1);
  }
  // where the token lives: an agent may start its MCP servers with a scrubbed environment (a whitelist of variables)
  if (t.named.home) entry[spec.envField] = { HOOKMAP_HOME: t.named.home };
  return entry;
}

/** The argument vector an entry runs, whichever way it spells it (command string + args, or an array). */
export function entryArgv(entry: unknown): string[] | undefined {
  if (!isObj(entry)) return undefined;
  const c = entry.command;
  const argv = Array.isArray(c) ? c : typeof c === 'string' ? [c, ...(Array.isArray(entry.args) ? entry.args : [])] : undefined;
  return argv?.every((a) => typeof a === 'string') ? (argv as string[]) : undefined;
}

/** Does this entry run `hookmap mcp --agent <agent>` (our launcher, `npx hookmap`, a `hookmap` on PATH)? */
export function isHookmapMcp(entry: unknown, agent: string): boolean {
  const argv = entryArgv(entry);
  if (!argv) return false;
  const i = argv.indexOf('mcp');
  if (i < 1 || !argv.slice(0, i).some((a) => /(^|\/)hookmap(\.mjs)?$/.test(a))) return false;
  const rest = argv.slice(i + 1);
  const a = rest.indexOf('--agent');
  return (a >= 0 && rest[a + 1] === agent) || rest.includes(`--agent=${agent}`);
}

const describe = (entry: unknown) => entryArgv(entry)?.join(' ') ?? JSON.stringify(entry).slice(0, 200);

// ---- json -----------------------------------------------------------------

function servers(text: string, key: string): Json {
  if (text.trim() === '') return {};
  const doc = parseJsonc(text);
  if (doc === undefined) return {};
  if (!isObj(doc)) throw new FormatError('the top level is not a JSON object');
  const s = doc[key];
  if (s === undefined) return {};
  if (!isObj(s)) throw new FormatError(`\`${key}\` is not an object; refusing to touch it`);
  return s;
}

function foreign(spec: McpSetupSpec, agent: string, entry: unknown): FormatError {
  return new FormatError(
    `\`${spec.key}\` already has a server named "${spec.name}" that is not hookmap's MCP server ` +
      `for ${agent} (it runs: ${describe(entry)}); hookmap does not overwrite it: remove or ` +
      `rename it, then run again (or wire without --mcp)`,
  );
}

function jsonFormat(spec: McpSetupSpec, agent: string, entry: Json): TextFormat {
  return {
    kind: 'text',
    install(text) {
      const cur = servers(text, spec.key)[spec.name];
      if (cur !== undefined && !isHookmapMcp(cur, agent)) throw foreign(spec, agent, cur);
      // the user's additions to our entry's environment stay (ours win on our own keys)
      const next =
        isObj(cur) && isObj(cur[spec.envField])
          ? { ...entry, [spec.envField]: { ...(cur[spec.envField] as Json), ...((entry[spec.envField] as Json | undefined) ?? {}) } }
          : entry;
      if (cur !== undefined && canonicalJson(cur) === canonicalJson(next)) return text;
      return editMember(text, spec.key, spec.name, next);
    },
    remove(text) {
      const cur = servers(text, spec.key)[spec.name];
      return cur !== undefined && isHookmapMcp(cur, agent) ? editMember(text, spec.key, spec.name, undefined) : text;
    },
    entries(text) {
      return Object.entries(servers(text, spec.key)).map(([name, e]) => ({ hook: name, handler: { type: 'mcp', command: describe(e) } as Handler }));
    },
    canonical: (text) => canonicalJson(text.trim() === '' ? {} : (parseJsonc(text) ?? {})),
    empty: (text) => {
      if (text.trim() === '') return true;
      const doc = parseJsonc(text);
      if (!isObj(doc)) return doc === undefined;
      // nothing but the (now empty) servers object we created
      return Object.keys(doc).every((k) => k === spec.key && isObj(doc[k]) && Object.keys(doc[k] as Json).length === 0);
    },
  };
}

// ---- toml -----------------------------------------------------------------

const fenceStart = (agent: string) => `# >>> hookmap mcp ${agent} >>>`;
const fenceEnd = (agent: string) => `# <<< hookmap mcp ${agent} <<<`;
/** A TOML basic string (JSON's escapes are a subset TOML accepts; DEL escaped too). */
const tomlString = (s: string) => JSON.stringify(s).replace(/\x7f/g, '\\u007f');
const bareKey = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k));

function tomlValue(v: unknown): string {
  if (typeof v === 'string') return tomlString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(', ')}]`;
  if (isObj(v))
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${bareKey(k)} = ${tomlValue(x)}`)
      .join(', ')} }`;
  throw new FormatError(`cannot write ${JSON.stringify(v)} as TOML`);
}

function tomlBlock(spec: McpSetupSpec, agent: string, entry: Json): string {
  const lines = [
    fenceStart(agent),
    `# Generated by \`hookmap setup ${agent} --mcp\`; \`hookmap setup ${agent} --uninstall --mcp\` removes this block. Do not edit inside it.`,
    `[${bareKey(spec.key)}.${bareKey(spec.name)}]`,
    ...Object.entries(entry).map(([k, v]) => `${bareKey(k)} = ${tomlValue(v)}`),
    fenceEnd(agent),
  ];
  return `${lines.join('\n')}\n`;
}

interface Span {
  start: number;
  end: number;
}

/** Index of a line equal to `line` (trailing blanks/CR allowed) at or after `from`, else -1. */
function findLine(text: string, line: string, from: number): number {
  let i = from;
  while (i <= text.length) {
    const at = text.indexOf(line, i);
    if (at < 0) return -1;
    const eol = text.indexOf('\n', at);
    if ((at === 0 || text[at - 1] === '\n') && /^[ \t\r]*$/.test(text.slice(at + line.length, eol < 0 ? text.length : eol))) return at;
    i = at + 1;
  }
  return -1;
}

function tomlBlocks(text: string, agent: string): Span[] {
  const out: Span[] = [];
  let i = 0;
  for (;;) {
    const s = findLine(text, fenceStart(agent), i);
    if (s < 0) return out;
    const e = findLine(text, fenceEnd(agent), s);
    if (e < 0) throw new FormatError(`an unterminated hookmap block (\`${fenceStart(agent)}\` without \`${fenceEnd(agent)}\`); fix it by hand`);
    const nl = text.indexOf('\n', e);
    const end = nl < 0 ? text.length : nl + 1;
    out.push({ start: s, end });
    i = end;
  }
}

function withoutBlocks(text: string, spans: Span[]): string {
  let out = '';
  let i = 0;
  for (const sp of spans) {
    let head = text.slice(i, sp.start);
    if (head.endsWith('\n\n')) head = head.slice(0, -1); // the blank line install put before the block goes with it
    out += head;
    i = sp.end;
  }
  return out + text.slice(i);
}

/** A bare, "quoted" or 'literal' TOML key (schema: [A-Za-z0-9_-]+, nothing to escape). */
const keyPattern = (k: string) => `(?:${k}|"${k}"|'${k}')`;

/**
 * Why our table cannot be appended: a definition of `<key>.<name>` outside our block (a table header, a dotted
 * key), or `<key>` as an inline table (closed to additions); undefined: none.
 */
function tomlClash(text: string, spec: McpSetupSpec): string | undefined {
  const k = keyPattern(spec.key);
  const n = keyPattern(spec.name);
  const header = new RegExp(`^\\s*\\[\\s*${k}\\s*\\.\\s*${n}\\s*[\\].]`);
  const dotted = new RegExp(`^\\s*${k}\\s*\\.\\s*${n}\\s*[.=]`);
  const inline = new RegExp(`^\\s*${k}\\s*=`);
  const inKey = new RegExp(`^\\s*\\[\\s*${k}\\s*\\]`);
  const member = new RegExp(`^\\s*${n}\\s*[.=]`);
  let table: 'key' | 'other' | undefined;
  for (const line of text.split('\n')) {
    if (/^\s*\[/.test(line)) table = inKey.test(line) ? 'key' : 'other';
    if (table === undefined && inline.test(line))
      return (
        `\`${spec.key}\` is an inline table (\`${line.trim()}\`), which TOML closes to additions: ` +
        `write it as [${spec.key}.<name>] tables, then run again (or wire without --mcp)`
      );
    if (header.test(line) || (table === undefined && dotted.test(line)) || (table === 'key' && member.test(line))) {
      return (
        `the file already defines the server "${spec.name}" outside hookmap's block (\`${line.trim()}\`); ` +
        `hookmap does not overwrite it: remove it, then run again (or wire without --mcp)`
      );
    }
  }
  return undefined;
}

function tomlFormat(spec: McpSetupSpec, agent: string, entry: Json): TextFormat {
  return {
    kind: 'text',
    install(text) {
      const spans = tomlBlocks(text, agent);
      const clash = tomlClash(withoutBlocks(text, spans), spec);
      if (clash !== undefined) throw new FormatError(clash);
      const next = tomlBlock(spec, agent, entry);
      if (spans.length === 1 && text.slice(spans[0].start, spans[0].end) === next) return text;
      if (spans.length) return text.slice(0, spans[0].start) + next + withoutBlocks(text.slice(spans[0].end), tomlBlocks(text.slice(spans[0].end), agent));
      const sep = text === '' ? '' : text.endsWith('\n') ? '\n' : '\n\n';
      return text + sep + next;
    },
    remove(text) {
      return withoutBlocks(text, tomlBlocks(text, agent));
    },
    entries(text) {
      return tomlBlocks(text, agent).length ? [{ hook: spec.name, handler: { type: 'mcp', command: describe(entry) } as Handler }] : [];
    },
    empty: (text) => text.trim() === '',
  };
}

/**
 * The argument vector hookmap's registered server runs in an MCP config's
 * text (json: the `<key>.<name>` entry; toml: the `command`/`args` lines of
 * our fenced block, written as JSON-compatible values); undefined when there
 * is none or it cannot be read. For `hookmap doctor`.
 */
export function registeredArgv(spec: McpSetupSpec, agent: string, text: string): string[] | undefined {
  try {
    if (spec.format === 'json') return entryArgv(servers(text, spec.key)[spec.name]);
    const span = tomlBlocks(text, agent)[0];
    if (!span) return undefined;
    const fields: Record<string, unknown> = {};
    for (const line of text.slice(span.start, span.end).split('\n')) {
      const m = /^(command|args)\s*=\s*(.+)$/.exec(line.trim());
      if (m) fields[m[1]] = JSON.parse(m[2]);
    }
    return entryArgv(fields);
  } catch {
    return undefined;
  }
}

/** The MCP config format of a descriptor's `setup.mcp`, writing `entry` as hookmap's server. */
export function mcpFormat(d: Descriptor, spec: McpSetupSpec, entry: Json): TextFormat {
  return spec.format === 'toml' ? tomlFormat(spec, d.vendor, entry) : jsonFormat(spec, d.vendor, entry);
}
