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
import { canonicalJson, editMember, isObj, parseJsonc, pruned } from './jsonc-members.ts';
import { FormatError, type Json, type TextFormat } from './types.ts';

export { parseJsonc };
const editServer = (text: string, name: string, value: Json | undefined) => editMember(text, 'agent_servers', name, value);

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

export const agentServersFormat: TextFormat = {
  kind: 'text',
  install(text, regs, _ours, opts) {
    const servers = agentServers(text);
    // each run wraps its commands; other wrapped agents stay (one entry per name, one per command)
    const sameCommand = (e: unknown) =>
      regs.some((r) => isObj(e) && JSON.stringify([e.command, ...(Array.isArray(e.args) ? e.args : [])]) === JSON.stringify(r.argv));
    const replaced = (name: string, e: unknown) => isTeeEntry(e, opts.agent) && (regs.some((r) => r.hook === name) || sameCommand(e));
    const next: Json = {};
    for (const [name, e] of Object.entries(servers)) if (!replaced(name, e)) next[name] = e;
    for (const r of regs) {
      if (!r.argv?.length) throw new FormatError(`registration ${r.hook} has no command to run`);
      if (next[r.hook] !== undefined)
        throw new FormatError(`agent_servers already has an entry named "${r.hook}" that is not hookmap's; choose another --name`);
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
