// The `named-hook-groups` format: a JSON object of NAMED top-level entries,
// each mapping hook (event) names to matcher groups, plus an optional
// `enabled` switch:
//   { "<entry>": { "enabled"?: bool, "<Hook>": [ { "matcher"?: "...", "hooks": [ { "type": "command", "command", "timeout"? } ] } ] } }
// hookmap owns exactly one entry (setup.entry, default "hookmap") and
// rewrites only that one; every other entry stays as it was. A user's
// `enabled` on hookmap's entry is kept.
import type { Handler } from '../recognize.ts';
import { canonical, handlerFor, isObj, matched } from './handler.ts';
import { FormatError, type Json, type JsonFormat } from './types.ts';

function entryOf(doc: Json, name: string): Json | undefined {
  const e = doc[name];
  if (e === undefined) return undefined;
  if (!isObj(e)) throw new FormatError(`the \`${name}\` entry is not an object; refusing to touch it`);
  return e;
}

export const namedHookGroups: JsonFormat = {
  kind: 'json',
  install(doc, regs, _ours, opts) {
    const out = structuredClone(doc);
    const prev = entryOf(out, opts.entry);
    const entry: Json = prev && typeof prev.enabled === 'boolean' ? { enabled: prev.enabled } : {};
    for (const r of regs) {
      const h = handlerFor(r, opts);
      entry[r.hook] = [matched(r.hook, opts) ? { matcher: opts.matcher, hooks: [h] } : { hooks: [h] }];
    }
    if (prev && canonical(prev) === canonical(entry)) return out;
    out[opts.entry] = entry;
    return out;
  },
  remove(doc, _ours, opts) {
    const out = structuredClone(doc);
    if (entryOf(out, opts.entry) !== undefined) delete out[opts.entry];
    return out;
  },
  entries(doc) {
    const out: { hook: string; handler: Handler }[] = [];
    for (const entry of Object.values(doc)) {
      if (!isObj(entry)) continue;
      for (const [ev, groups] of Object.entries(entry)) {
        if (!Array.isArray(groups)) continue;
        for (const g of groups) {
          if (!isObj(g)) continue;
          // A group holds `hooks: [...]`; a bare handler in the list is accepted too.
          const handlers = Array.isArray(g.hooks) ? g.hooks : [g];
          for (const h of handlers) if (isObj(h)) out.push({ hook: ev, handler: h as Handler });
        }
      }
    }
    return out;
  },
};
