// The `yaml-hook-list` format: a YAML config the agent reads whole, with
//   hooks:
//     <hook>:
//       - matcher: "..."     (optional)
//         command: "..."
//         timeout: n         (optional)
// flat handler lists per hook. Edited through the `yaml` Document API, so
// the user's comments, key order and other keys survive; keys under
// `hooks:` that are not hook lists (anything not a sequence) are never
// touched. hookmap's handler is appended after the user's own in each list.
import { isMap, isSeq, parseDocument, YAMLMap, YAMLSeq, type Document } from 'yaml';
import type { Handler } from '../recognize.ts';
import { canonical, handlerFor, isObj, matched } from './handler.ts';
import { FormatError, type FormatOptions, type TextFormat } from './types.ts';

function parse(text: string): Document.Parsed {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length) throw new FormatError(`not valid YAML (${doc.errors[0].message.split('\n')[0]}); fix it first`);
  if (doc.contents !== null && !isMap(doc.contents)) throw new FormatError('the top level is not a YAML mapping; refusing to touch it');
  return doc;
}

function hooksMap(doc: Document.Parsed, create: boolean): YAMLMap | undefined {
  const h = doc.get('hooks', true);
  if (h === undefined || h === null || (h as { value?: unknown }).value === null) {
    if (!create) return undefined;
    const m = doc.createNode({}) as YAMLMap;
    if (doc.contents === null) doc.contents = doc.createNode({}) as never;
    doc.set('hooks', m);
    return m;
  }
  if (!isMap(h)) throw new FormatError('`hooks` is not a mapping; refusing to touch it');
  return h;
}

const keyOf = (k: unknown) => String((k as { value?: unknown })?.value ?? k);

function want(r: Parameters<typeof handlerFor>[0], o: FormatOptions): Handler {
  const { command, timeout } = handlerFor(r, o, false);
  return { ...(matched(r.hook, o) ? { matcher: o.matcher } : {}), command, ...(timeout !== undefined ? { timeout } : {}) };
}

/** Make hookmap's handler per hook exactly `wanted` (none when absent); returns whether the document changed. */
function reconcile(doc: Document.Parsed, wanted: Map<string, Handler>, ours: (h: Handler) => boolean): boolean {
  const hooks = hooksMap(doc, false);
  const placed = new Set<string>();
  let changed = false;
  if (hooks) {
    for (const pair of [...hooks.items]) {
      const ev = keyOf(pair.key);
      const seq = pair.value;
      if (!isSeq(seq)) continue;
      for (const item of [...seq.items]) {
        const js = isMap(item) ? item.toJSON() : undefined;
        if (!isObj(js) || !ours(js as Handler)) continue;
        const w = wanted.get(ev);
        if (w && !placed.has(ev)) {
          placed.add(ev);
          if (canonical(js) !== canonical(w)) {
            seq.items[seq.items.indexOf(item)] = doc.createNode(w);
            changed = true;
          }
        } else {
          seq.items.splice(seq.items.indexOf(item), 1);
          changed = true;
          if (!seq.items.length) hooks.items.splice(hooks.items.indexOf(pair), 1);
        }
      }
    }
  }
  const missing = [...wanted].filter(([ev]) => !placed.has(ev));
  if (missing.length) {
    const map = hooksMap(doc, true)!;
    map.flow = false;
    for (const [ev, h] of missing) {
      const cur = map.get(ev, true);
      if (cur !== undefined && cur !== null && !isSeq(cur) && (cur as { value?: unknown }).value !== null)
        throw new FormatError(`\`hooks.${ev}\` is not a list; refusing to touch it`);
      if (isSeq(cur)) {
        cur.flow = false;
        cur.items.push(doc.createNode(h));
      } else {
        const seq = new YAMLSeq();
        seq.items.push(doc.createNode(h));
        map.set(ev, seq);
      }
    }
    changed = true;
  }
  return changed;
}

export const yamlHookList: TextFormat = {
  kind: 'text',
  install(text, regs, ours, opts) {
    const doc = parse(text);
    for (const r of regs) if (r.kind !== 'command') throw new FormatError(`${r.hook}: this format registers commands only`);
    return reconcile(doc, new Map(regs.map((r) => [r.hook, want(r, opts)])), ours) ? doc.toString() : text;
  },
  remove(text, ours) {
    const doc = parse(text);
    if (!reconcile(doc, new Map(), ours)) return text;
    const hooks = hooksMap(doc, false);
    // `hooks` goes only when our removal emptied it.
    if (hooks && !hooks.items.length) doc.delete('hooks');
    return doc.contents === null || (isMap(doc.contents) && !doc.contents.items.length && !doc.commentBefore && !doc.comment) ? '' : doc.toString();
  },
  canonical(text) {
    return text.trim() === '' ? '' : parseDocument(text).toString();
  },
  empty(text) {
    return text.trim() === '';
  },
  entries(text) {
    const js = parse(text).toJS() as { hooks?: unknown } | null;
    const out: { hook: string; handler: Handler }[] = [];
    if (!js || !isObj(js.hooks)) return out;
    for (const [ev, list] of Object.entries(js.hooks))
      if (Array.isArray(list)) for (const h of list) if (isObj(h)) out.push({ hook: ev, handler: h as Handler });
    return out;
  },
};
