// ONE-OFF CODEMOD (issue 16, "literals are literal"): rewrites descriptors from
// the old convention (every string in an expression position is JSONata) to
// the new one (plain scalars are literal, `=` marks an expression). Edits the
// YAML text in place, so comments and layout survive:
//   - expression-only positions (keys, when, identity, ...): `=` inserted;
//   - value positions (data, subject, vars, decisions, ...): a JSONata literal
//     ('"user"', '{}', '{ "status": "allow" }') becomes the YAML value itself;
//     a one-line object/array constructor becomes a YAML flow collection whose
//     members are literals or `=expr`; anything else gets `=`.
// Every rewritten position is verified: the JSONata the new text compiles to
// has the same AST as the old text's. Usage: tsx codegen/codemod-literals.ts FILE...
// Deleted after it ran (the commit that removes it says so).
import { readFileSync, writeFileSync } from 'node:fs';
import jsonata from 'jsonata';
import { isMap, isPair, isScalar, isSeq, parse, parseDocument, type Node, type Scalar } from 'yaml';
import { templateSource } from '../engine/expr/compile.ts';
import { exprText, isMarked, readsAsExpression } from '../engine/expr/marked.ts';

type Kind = 'E' | 'V';
type Seg = string | number;
interface Edit { start: number; end: number; text: string }

const EMIT_E = new Set(['when', 'cause']);
const EMIT_V = new Set(['subject', 'step', 'data', 'standins']);

/** The kind of a descriptor position, by its path. */
function kindOf(p: Seg[]): Kind | undefined {
  const s = p.map(String).join('/');
  if (s === 'surface/hook_name' || s === 'identity/session' || s === 'identity/run') return 'E';
  if (/^defer\/\d+\/when$/.test(s)) return 'E';
  if (/^vars\/[^/]+$/.test(s)) return 'V';
  if (/^fallback\/(type|data|subject)$/.test(s)) return 'V';
  const emit = /^(?:identity\/first_sight\/emit\/\d+|hooks\/[^/]+\/emit\/\d+|hooks\/[^/]+\/snapshot\/emit\/\d+|hooks\/[^/]+\/hold(?:\/\d+)?\/outcome\/\d+)\/([^/]+)$/.exec(s);
  if (emit) return EMIT_E.has(emit[1]) ? 'E' : EMIT_V.has(emit[1]) ? 'V' : undefined;
  if (/^hooks\/[^/]+\/store\/\d+\/(key|when)$/.test(s)) return 'E';
  if (/^hooks\/[^/]+\/store\/\d+\/value$/.test(s)) return 'V';
  if (/^hooks\/[^/]+\/lookup\/\d+\/key$/.test(s)) return 'E';
  if (/^hooks\/[^/]+\/snapshot\/(items|id)$/.test(s)) return 'E';
  if (/^hooks\/[^/]+\/suppress\/(key|when)$/.test(s)) return 'E';
  if (/^hooks\/[^/]+\/hold(?:\/\d+)?\/(when|key)$/.test(s)) return 'E';
  if (/^hooks\/[^/]+\/hold(?:\/\d+)?\/decisions\/[^/]+$/.test(s)) return 'V';
  if (/^hooks\/[^/]+\/settle\/key$/.test(s)) return 'E';
  return undefined;
}

// --- JSONata ASTs ---------------------------------------------------------------

function norm(n: any): any {
  if (Array.isArray(n)) return n.map(norm);
  if (!n || typeof n !== 'object') return n;
  if (n.type === 'block' && n.expressions?.length === 1) return norm(n.expressions[0]);
  const o: any = {};
  for (const [k, v] of Object.entries(n)) if (k !== 'position') o[k] = norm(v);
  return o;
}

function astOf(src: string): string | undefined {
  try { return JSON.stringify(norm(jsonata(src).ast())); } catch { return undefined; }
}

const NONE = Symbol('not a literal');
/** The plain value a JSONata literal stands for, or NONE. */
function literalOf(n: any): unknown {
  if (n.type === 'string' || n.type === 'number') return n.value;
  if (n.type === 'value') return n.value;
  if (n.type === 'unary' && n.value === '{') {
    const o: Record<string, unknown> = {};
    for (const [k, v] of n.lhs) {
      if (k.type !== 'string' || k.value in o) return NONE;
      const x = literalOf(v);
      if (x === NONE) return NONE;
      o[k.value] = x;
    }
    return o;
  }
  if (n.type === 'unary' && n.value === '[') {
    const out: unknown[] = [];
    for (const e of n.expressions) {
      const x = literalOf(e);
      // an item array not written as a constructor would be flattened: not a plain literal
      if (x === NONE || (Array.isArray(x) && !(e.type === 'unary' && e.value === '['))) return NONE;
      out.push(x);
    }
    return out;
  }
  return NONE;
}

/** Split the top-level members of a one-line constructor source (`{...}` or `[...]`) by commas. */
function members(src: string): string[] | undefined {
  const t = src.trim();
  const open = t[0];
  const close = open === '{' ? '}' : open === '[' ? ']' : undefined;
  if (!close || t[t.length - 1] !== close) return undefined;
  const body = t.slice(1, -1);
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < body.length && body[j] !== c) j += body[j] === '\\' ? 2 : 1;
      cur += body.slice(i, j + 1);
      i = j;
      continue;
    }
    if (c === '/' && body[i + 1] === '*') return undefined;
    if ('{[('.includes(c)) depth++;
    if ('}])'.includes(c)) depth--;
    if (c === ',' && depth === 0) { out.push(cur.trim()); cur = ''; continue; }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

// --- YAML rendering ---------------------------------------------------------------

function reparses(text: string, want: unknown): boolean {
  try { return JSON.stringify(parse(`k: [${text}]`)?.k?.[0]) === JSON.stringify(want); } catch { return false; }
}

function scalarText(v: unknown): string {
  if (typeof v !== 'string') return JSON.stringify(v);
  if (v !== '' && !/^\s|\s$|[\n,\[\]{}#]|: /.test(v) && reparses(v, v)) return v;
  if (!v.includes('\n')) {
    const q = `'${v.replace(/'/g, "''")}'`;
    if (reparses(q, v)) return q;
  }
  return JSON.stringify(v);
}

/** A YAML flow rendering of a template value (strings as given: `=expr` or literal). */
function flow(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (v && typeof v === 'object') {
    const parts = Object.entries(v).map(([k, x]) => `${scalarText(k)}: ${flow(x)}`);
    return parts.length ? `{ ${parts.join(', ')} }` : '{}';
  }
  return scalarText(v);
}

/** Is this value safe as a new-convention template (no literal that would be read as an expression)? */
function safeLiteral(v: unknown): boolean {
  if (typeof v === 'string') return isMarked(v) || !readsAsExpression(v);
  if (Array.isArray(v)) return v.every(safeLiteral);
  if (v && typeof v === 'object') return Object.values(v).every(safeLiteral);
  return true;
}

/** The new template value for an old expression string in a value position. */
function valueFor(src: string): unknown {
  if (src.includes('\n')) return `=${src}`;
  let ast: any;
  try { ast = jsonata(src).ast(); } catch { return `=${src}`; }
  const lit = literalOf(ast);
  if (lit !== NONE && safeLiteral(lit)) return lit;
  const parts = (ast.type === 'unary' && (ast.value === '{' || ast.value === '[')) ? members(src) : undefined;
  if (parts && ast.value === '{' && parts.length === ast.lhs.length && ast.lhs.every(([k]: any) => k.type === 'string')) {
    const o: Record<string, unknown> = {};
    for (const [i, [k]] of ast.lhs.entries()) {
      const m = /^("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*:\s*([\s\S]+)$/.exec(parts[i]);
      if (!m || k.value in o) return `=${src}`;
      o[k.value] = valueFor(m[2]);
    }
    return o;
  }
  if (parts && ast.value === '[' && parts.length === ast.expressions.length) {
    // only constructor items keep their nesting the same way in a YAML sequence
    return parts.map((p) => valueFor(p));
  }
  return `=${src}`;
}

const oldSource = (v: unknown): string => {
  if (typeof v === 'string') return `(${v}\n)`;
  if (Array.isArray(v)) return `[${v.map(oldSource).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${oldSource(x)}`).join(', ')}}`;
  return JSON.stringify(v);
};

// --- the rewrite -------------------------------------------------------------------

function markEdit(text: string, node: Scalar): Edit {
  const [start] = node.range!;
  if (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') return { start: start + 1, end: start + 1, text: '=' };
  if (node.type === 'BLOCK_FOLDED' || node.type === 'BLOCK_LITERAL') {
    const nl = text.indexOf('\n', start);
    const first = nl + 1 + /^\s*/.exec(text.slice(nl + 1))![0].length;
    return { start: first, end: first, text: '=' };
  }
  return { start, end: start, text: '=' };
}

export function rewrite(text: string): { text: string; changed: number; problems: string[] } {
  const doc = parseDocument(text, { keepSourceTokens: true });
  if (doc.errors.length) return { text, changed: 0, problems: [`not valid YAML: ${doc.errors[0].message}`] };
  const edits: Edit[] = [];
  const problems: string[] = [];
  const visitV = (node: Node | null, path: Seg[]): void => {
    if (!node) return;
    if (isScalar(node)) {
      if (typeof node.value !== 'string' || isMarked(node.value)) return;
      const nv = valueFor(node.value);
      if (typeof nv === 'string' && isMarked(nv) && nv.slice(1) === node.value) edits.push(markEdit(text, node));
      else edits.push({ start: node.range![0], end: node.range![1], text: flow(nv) });
      return;
    }
    if (isMap(node)) for (const it of node.items) if (isPair(it) && isScalar(it.key)) visitV(it.value as Node, [...path, String(it.key.value)]);
    if (isSeq(node)) node.items.forEach((it, i) => visitV(it as Node, [...path, i]));
  };
  const walk = (node: Node | null, path: Seg[]): void => {
    if (!node) return;
    const kind = kindOf(path);
    if (kind === 'E') {
      if (isScalar(node) && typeof node.value === 'string' && !isMarked(node.value)) edits.push(markEdit(text, node));
      return;
    }
    if (kind === 'V') return visitV(node, path);
    if (isMap(node)) for (const it of node.items) if (isPair(it) && isScalar(it.key)) walk(it.value as Node, [...path, String(it.key.value)]);
    if (isSeq(node)) node.items.forEach((it, i) => walk(it as Node, [...path, i]));
  };
  walk(doc.contents as Node, []);
  let out = text;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  // verify: every position means what it meant
  const before = parse(text);
  const after = parseDocument(out);
  if (after.errors.length) return { text, changed: 0, problems: [`rewritten text is not valid YAML: ${after.errors[0].message}`] };
  const verify = (a: unknown, b: unknown, path: Seg[]): void => {
    const kind = kindOf(path);
    if (kind === 'E') {
      if (typeof a === 'string' && b !== `=${a}`) problems.push(`${path.join('.')}: ${JSON.stringify(b)} != =${JSON.stringify(a)}`);
      return;
    }
    if (kind === 'V') {
      const failures: any[] = [];
      const oldAst = astOf(oldSource(a));
      const newAst = astOf(templateSource(b, path, failures));
      if (oldAst === undefined && failures.length) return; // broken before, broken after (invalid fixtures)
      if (oldAst !== newAst) problems.push(`${path.join('.')}: ${JSON.stringify(a)} -> ${JSON.stringify(b)} changes meaning`);
      if (!safeLiteral(b)) problems.push(`${path.join('.')}: ${JSON.stringify(b)} holds a literal that reads as an expression`);
      return;
    }
    if (Array.isArray(a)) a.forEach((x, i) => verify(x, (b as unknown[])?.[i], [...path, i]));
    else if (a && typeof a === 'object') for (const [k, x] of Object.entries(a)) verify(x, (b as any)?.[k], [...path, k]);
    else if (a !== b) problems.push(`${path.join('.')}: ${JSON.stringify(a)} changed to ${JSON.stringify(b)}`);
  };
  verify(before, after.toJS(), []);
  return { text: out, changed: edits.length, problems };
}

if (process.argv[1]?.endsWith('codemod-literals.ts')) {
  let bad = 0;
  for (const f of process.argv.slice(2)) {
    const src = readFileSync(f, 'utf8');
    const r = rewrite(src);
    for (const p of r.problems) console.error(`${f}: ${p}`);
    if (r.problems.length) { bad++; continue; }
    if (r.text !== src) writeFileSync(f, r.text);
    console.log(`${f}: ${r.changed} positions rewritten`);
  }
  process.exitCode = bad ? 1 : 0;
}
export { exprText };
