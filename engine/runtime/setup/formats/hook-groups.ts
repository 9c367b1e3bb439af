// The `hook-groups` format: a JSON object whose `hooks` maps each hook
// (event) name to a list of matcher groups, each group holding its handlers:
//   { "hooks": { "<Hook>": [ { "matcher"?: "...", "hooks": [ { "type": "command", "command": "...", "timeout"?: n }
//                                                           | { "type": "http", "url": "...", "timeout"?: n } ] } ] } }
// Several agents read exactly this shape (a settings file with other keys
// beside `hooks`, or a file holding only `hooks`); the descriptor's setup
// block cites each agent's docs. hookmap adds one group per hook, without a
// matcher (= every firing) unless the descriptor names one, after the
// user's own groups.
import type { Handler } from '../recognize.ts';
import { canonical, handlerFor, isObj, matched } from './handler.ts';
import { FormatError, type FormatOptions, type Json, type JsonFormat } from './types.ts';

function groupFor(hook: string, h: Handler, o: FormatOptions): Json {
  return matched(hook, o) ? { matcher: o.matcher, hooks: [h] } : { hooks: [h] };
}

function hooksOf(doc: Json): Json | undefined {
  if (doc.hooks === undefined) return undefined;
  if (!isObj(doc.hooks)) throw new FormatError('`hooks` is not an object; refusing to touch it');
  for (const [ev, groups] of Object.entries(doc.hooks)) {
    if (!Array.isArray(groups)) throw new FormatError(`\`hooks.${ev}\` is not a list of groups; refusing to touch it`);
  }
  return doc.hooks;
}

/**
 * Keep, rewrite or drop each of our handlers so that exactly `want` remains (a hook may want several: a next-turn
 * carrier's background waiter beside the firing's handler); prune what we emptied. `placed`: per hook, the wanted
 * handlers now in the file.
 */
function reconcile(doc: Json, want: Map<string, Handler[]>, ours: (h: Handler) => boolean): { doc: Json; placed: Map<string, Set<Handler>> } {
  const out = structuredClone(doc);
  const hooks = hooksOf(out);
  const placed = new Map<string, Set<Handler>>();
  if (!hooks) return { doc: out, placed };
  // a handler already as wanted stays where it is, wherever it comes in the file
  const exact = new Set<Handler>();
  for (const [ev, ws] of want) {
    const seen = new Set<Handler>();
    for (const g of (hooks[ev] as unknown[] | undefined) ?? [])
      if (isObj(g) && Array.isArray(g.hooks))
        for (const h of g.hooks as Handler[]) {
          const w = ws.find((x) => !seen.has(x) && ours(h) && canonical(h) === canonical(x));
          if (!w) continue;
          seen.add(w);
          exact.add(h);
        }
  }
  for (const ev of Object.keys(hooks)) {
    const groups = hooks[ev] as unknown[];
    const keptGroups: unknown[] = [];
    for (const g of groups) {
      if (!isObj(g) || !Array.isArray(g.hooks)) {
        keptGroups.push(g);
        continue;
      }
      const handlers = g.hooks as Handler[];
      const kept: Handler[] = [];
      let touched = false;
      for (const h of handlers) {
        if (!ours(h)) {
          kept.push(h);
          continue;
        }
        const done = placed.get(ev) ?? new Set<Handler>();
        placed.set(ev, done);
        const ws = (want.get(ev) ?? []).filter((x) => !done.has(x));
        const same = exact.has(h) ? ws.find((x) => canonical(h) === canonical(x)) : undefined;
        // an exact one keeps its place; another of ours becomes a wanted handler no exact one already stands for
        const w = same ?? ws.find((x) => ![...exact].some((e) => canonical(e) === canonical(x)));
        if (w) {
          done.add(w);
          kept.push(same ? h : w);
          if (!same) touched = true;
        } else {
          touched = true; // a duplicate, or a hook no longer registered
        }
      }
      if (!touched) keptGroups.push(g);
      else if (kept.length) keptGroups.push({ ...g, hooks: kept });
      // else: the group held only our handlers: it goes with them
    }
    if (keptGroups.length) hooks[ev] = keptGroups;
    else if (groups.length) delete hooks[ev];
  }
  return { doc: out, placed };
}

export const hookGroups: JsonFormat = {
  kind: 'json',
  install(doc, regs, ours, opts) {
    const want = new Map<string, Handler[]>();
    for (const r of regs) want.set(r.hook, [...(want.get(r.hook) ?? []), handlerFor(r, opts)]);
    const { doc: out, placed } = reconcile(doc, want, ours);
    const missing = [...want].flatMap(([ev, ws]) => ws.filter((w) => !placed.get(ev)?.has(w)).map((w) => [ev, w] as const));
    if (!missing.length) return out;
    const hooks = (hooksOf(out) ?? {}) as Record<string, unknown[]>;
    for (const [ev, h] of missing) (hooks[ev] ??= []).push(groupFor(ev, h, opts));
    out.hooks = hooks;
    return out;
  },
  remove(doc, ours) {
    const before = hooksOf(doc);
    const { doc: out } = reconcile(doc, new Map(), ours);
    const after = hooksOf(out);
    // `hooks` goes only if our removal emptied it (a user's own `{}` stays).
    if (before && Object.keys(before).length && after && !Object.keys(after).length) delete out.hooks;
    return out;
  },
  entries(doc) {
    const out: { hook: string; handler: Handler }[] = [];
    for (const [ev, groups] of Object.entries(hooksOf(doc) ?? {})) {
      for (const g of groups as unknown[]) {
        if (!isObj(g) || !Array.isArray(g.hooks)) continue;
        for (const h of g.hooks) if (isObj(h)) out.push({ hook: ev, handler: h as Handler });
      }
    }
    return out;
  },
};
