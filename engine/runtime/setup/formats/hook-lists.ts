// The `hook-lists` format: a JSON object whose `hooks` maps each hook
// (event) name to a FLAT list of handlers, no matcher groups:
//   { ...defaults, "hooks": { "<Hook>": [ { ...fields, "command": "...", "timeout"?: n, "matcher"?: "..." } ] } }
// The descriptor's `fields` are written on every hookmap handler (a
// `type: "command"` where the agent requires it) and its `defaults` at the
// top level when the file lacks them (a `version`). hookmap's handler is
// appended after the user's own in each list; a matcher, when the
// descriptor names one, sits on the handler itself.
import type { Handler } from '../recognize.ts';
import { canonical, handlerFor, isObj, matched } from './handler.ts';
import { FormatError, type FormatOptions, type Json, type JsonFormat } from './types.ts';

function hooksOf(doc: Json): Record<string, unknown[]> | undefined {
  if (doc.hooks === undefined) return undefined;
  if (!isObj(doc.hooks)) throw new FormatError('`hooks` is not an object; refusing to touch it');
  for (const [ev, list] of Object.entries(doc.hooks)) {
    if (!Array.isArray(list)) throw new FormatError(`\`hooks.${ev}\` is not a list of handlers; refusing to touch it`);
  }
  return doc.hooks as Record<string, unknown[]>;
}

function want(r: Parameters<typeof handlerFor>[0], o: FormatOptions): Handler {
  const h = handlerFor(r, o, false);
  return matched(r.hook, o) ? { ...h, matcher: o.matcher } : h;
}

/** Keep one up-to-date handler per wanted hook in place; drop duplicates and unwanted ones; prune lists we emptied. */
function reconcile(doc: Json, wanted: Map<string, Handler>, ours: (h: Handler) => boolean): { doc: Json; placed: Set<string> } {
  const out = structuredClone(doc);
  const hooks = hooksOf(out);
  const placed = new Set<string>();
  if (!hooks) return { doc: out, placed };
  for (const ev of Object.keys(hooks)) {
    const list = hooks[ev];
    const kept: unknown[] = [];
    let touched = false;
    for (const h of list) {
      if (!isObj(h) || !ours(h as Handler)) {
        kept.push(h);
        continue;
      }
      const w = wanted.get(ev);
      if (w && !placed.has(ev)) {
        placed.add(ev);
        kept.push(canonical(h) === canonical(w) ? h : w);
      } else touched = true;
    }
    if (kept.length) hooks[ev] = kept;
    else if (touched || list.length) delete hooks[ev];
  }
  return { doc: out, placed };
}

const onlyDefaults = (doc: Json, o: FormatOptions) =>
  Object.keys(doc).every((k) => Object.hasOwn(o.defaults, k) && canonical(doc[k]) === canonical(o.defaults[k]));

export const hookLists: JsonFormat = {
  kind: 'json',
  install(doc, regs, ours, opts) {
    const wanted = new Map(regs.map((r) => [r.hook, want(r, opts)]));
    const { doc: out, placed } = reconcile(doc, wanted, ours);
    for (const [k, v] of Object.entries(opts.defaults)) if (!Object.hasOwn(out, k)) out[k] = structuredClone(v);
    const missing = [...wanted].filter(([ev]) => !placed.has(ev));
    if (!missing.length) return out;
    const hooks = hooksOf(out) ?? {};
    for (const [ev, h] of missing) (hooks[ev] ??= []).push(h);
    out.hooks = hooks;
    return out;
  },
  remove(doc, ours, opts) {
    const before = hooksOf(doc);
    const { doc: out } = reconcile(doc, new Map(), ours);
    const after = hooksOf(out);
    if (before && Object.keys(before).length && after && !Object.keys(after).length) {
      delete out.hooks;
      // Nothing of the user's left but the defaults we would have written: nothing at all.
      if (onlyDefaults(out, opts)) return {};
    }
    return out;
  },
  entries(doc) {
    const out: { hook: string; handler: Handler }[] = [];
    for (const [ev, list] of Object.entries(hooksOf(doc) ?? {})) for (const h of list) if (isObj(h)) out.push({ hook: ev, handler: h as Handler });
    return out;
  },
};
