// Fields checked at load: every key a rule writes into an event's data (a
// template mapping key, or a key of an object constructor inside an
// expression) must be a field of that type's payload schema (AEP-0001 §5:
// no per-vendor quirks in the core namespace), unless the descriptor states
// its capture level with a gate (an explicit, privacy-declared extension);
// every literal value must be one the schema accepts (enums, JSON types).
// x.<vendor>.* types carry no schema and are not checked.
import { payloadSchema } from '../aep/schemas.ts';
import { isMarked, readsAsExpression } from '../expr/marked.ts';
import { explain } from '../text/suggest.ts';

export interface FieldIssue {
  code: 'unknown-field' | 'payload-rejected';
  /** Template path of the offending key or value (relative to the emit). */
  path: (string | number)[];
  /** Locate the key itself, not its value. */
  key?: boolean;
  /** Inside an expression leaf: index in its source. */
  index?: number;
  message: string;
}

export interface FieldContext {
  type: string;
  /** Dotted data paths the descriptor gates (emit `gates` and `capture.gates`): declared extensions. */
  gated: ReadonlySet<string>;
  /** The AST of a marked leaf at a template path. */
  astAt: (path: (string | number)[]) => unknown;
}

export function checkFields(data: unknown, base: (string | number)[], ctx: FieldContext): FieldIssue[] {
  const schema = payloadSchema(ctx.type);
  if (!schema) return [];
  const issues: FieldIssue[] = [];
  walk(schema, data, base, [], ctx, issues);
  return issues;
}

function walk(schema: any, tpl: unknown, path: (string | number)[], dotted: string[], ctx: FieldContext, out: FieldIssue[]): void {
  if (!schema || tpl === undefined) return;
  if (isMarked(tpl)) return exprKeys(schema, ctx.astAt(path), path, dotted, ctx, out);
  if (Array.isArray(tpl)) {
    if (!typeOk(schema, 'array')) return reject(schema, tpl, path, ctx, out);
    tpl.forEach((item, i) => walk(schema.items, item, [...path, i], dotted, ctx, out));
    return;
  }
  if (tpl && typeof tpl === 'object') {
    if (!typeOk(schema, 'object')) return reject(schema, tpl, path, ctx, out);
    for (const [k, v] of Object.entries(tpl)) {
      const sub = schema.properties?.[k];
      if (sub) {
        walk(sub, v, [...path, k], [...dotted, k], ctx, out);
        continue;
      }
      if (!known(schema, [...dotted, k], ctx))
        out.push({ code: 'unknown-field', path: [...path, k], key: true, message: unknownMessage(k, schema, dotted, ctx) });
    }
    return;
  }
  literal(schema, tpl, path, ctx, out);
}

/** Keys of object constructors an expression yields (through conditions and blocks). */
function exprKeys(schema: any, ast: any, path: (string | number)[], dotted: string[], ctx: FieldContext, out: FieldIssue[]): void {
  if (!ast || typeof ast !== 'object') return;
  if (ast.type === 'block') return exprKeys(schema, ast.expressions?.at(-1), path, dotted, ctx, out);
  if (ast.type === 'condition') {
    exprKeys(schema, ast.then, path, dotted, ctx, out);
    exprKeys(schema, ast.else, path, dotted, ctx, out);
    return;
  }
  if (ast.type !== 'unary' || ast.value !== '{' || !typeOk(schema, 'object')) return;
  for (const [k, v] of ast.lhs ?? []) {
    if (k?.type !== 'string') continue;
    const sub = schema.properties?.[k.value];
    if (sub) {
      exprKeys(sub, v, path, [...dotted, k.value], ctx, out);
      continue;
    }
    if (!known(schema, [...dotted, k.value], ctx)) {
      // a string node's position is just past its closing quote
      out.push({ code: 'unknown-field', path, index: k.position - JSON.stringify(k.value).length, message: unknownMessage(k.value, schema, dotted, ctx) });
    }
  }
}

/** A free-form object (no declared properties: tool args, a context) takes any key; a declared one only gated extensions. */
function known(schema: any, dotted: string[], ctx: FieldContext): boolean {
  if (schema.additionalProperties === false) return false;
  return schema.properties === undefined || ctx.gated.has(dotted.join('.'));
}

function unknownMessage(key: string, schema: any, dotted: string[], ctx: FieldContext): string {
  const fields = Object.keys(schema.properties ?? {});
  const where = dotted.length ? `\`${dotted.join('.')}\` of ${ctx.type}` : `${ctx.type}'s payload`;
  const gate = [...dotted, key].join('.');
  return explain(`\`${key}\` is not a field of ${where}`, {
    name: key,
    candidates: fields,
    label: 'Fields',
    hint: `A deliberate extension field states its capture level: \`gates: { ${gate}: metadata }\`.`,
  });
}

/** 'an array', 'a string': a JSON type with its article. */
const article = (type: string) => (type === 'array' || type === 'object' || type === 'integer' ? `an ${type}` : `a ${type}`);
const JSON_TYPE = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

function typeOk(schema: any, t: string): boolean {
  if (schema.type === undefined) return true;
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes(t) || (t === 'integer' && types.includes('number'));
}

function literal(schema: any, v: unknown, path: (string | number)[], ctx: FieldContext, out: FieldIssue[]): void {
  if (typeof v === 'string' && readsAsExpression(v)) return; // refused as an unmarked expression already
  if (Array.isArray(schema.enum) && !schema.enum.includes(v)) {
    const allowed = schema.enum.map(String);
    out.push({
      code: 'payload-rejected',
      path,
      message: explain(`${JSON.stringify(v)} is not a valid \`${path.at(-1)}\` of ${ctx.type}`, { name: String(v), candidates: allowed, label: 'One of' }),
    });
    return;
  }
  if (!typeOk(schema, JSON_TYPE(v))) reject(schema, v, path, ctx, out);
}

function reject(schema: any, v: unknown, path: (string | number)[], ctx: FieldContext, out: FieldIssue[]): void {
  const want = Array.isArray(schema.type) ? schema.type.join(' or ') : schema.type;
  out.push({
    code: 'payload-rejected',
    path,
    message: `${ctx.type} wants ${article(want)} at \`${path.at(-1)}\`, the rule writes ${article(JSON_TYPE(v))} (${JSON.stringify(v)})`,
  });
}
