// Compiling one emit rule (schemas/descriptor.schema.json `emit`): its type
// is a literal AEP type (registered, or x.<vendor>.*), its parts one JSONata
// expression per firing, every name in it resolved for its position and
// every field it writes checked against the type's payload schema.
import { REGISTRY_BY_TYPE, TYPE_PATTERN } from '../aep/schemas.ts';
import { isMarked } from '../expr/marked.ts';
import { pathString } from './errors.ts';
import type { Expressions, Path, Site } from './expressions.ts';
import { checkFields } from './fields.ts';
import { explain } from '../text/suggest.ts';
import type { CompiledEmit } from './types.ts';
import type { Emit } from '../generated/descriptor-types.ts';

/** The x.* namespace of a descriptor's own types, without `x.`: its agent, then its channel when it names one (`<agent>.otel`). */
export function namespaceOf(s: { vendor: string; agent?: string; channel?: string }): string {
  const agent = s.agent ?? s.vendor;
  return s.channel ? `${agent}.${s.channel}` : agent;
}

/** `vendor`: the namespace (namespaceOf), one dotted segment or two. */
export function checkType(x: Expressions, vendor: string, type: string, path: Path): void {
  const hint = `A vendor extension is x.${vendor}.<category>.<name>.`;
  if (!TYPE_PATTERN.test(type)) {
    x.err(
      'unknown-event-type',
      path,
      explain(`'${type}' is not a well-formed AEP type (lowercase dotted tokens)`, { name: type, candidates: REGISTRY_BY_TYPE.keys(), hint }),
    );
    return;
  }
  if (type.startsWith('x.')) {
    if (!type.startsWith(`x.${vendor}.`)) x.err('unknown-event-type', path, `'${type}' is outside this descriptor's namespace x.${vendor}.*`);
    return;
  }
  if (!REGISTRY_BY_TYPE.has(type))
    x.err('unknown-event-type', path, explain(`'${type}' is not a registered AEP type`, { name: type, candidates: REGISTRY_BY_TYPE.keys(), hint }));
}

export interface EmitContext {
  vendor: string;
  site: Site;
  gates: Record<string, string>;
}

export function compileEmit(x: Expressions, e: Emit, path: Path, ctx: EmitContext): CompiledEmit | undefined {
  // an emit's type is always literal: docs, capability evidence and payload checks read it without running anything
  if (isMarked(e.type)) {
    x.err(
      'unknown-event-type',
      [...path, 'type'],
      `an emit's type is a literal AEP type, not an expression: write the type itself (a computed extension type belongs in \`fallback.type\`)`,
    );
    return undefined;
  }
  const before = x.errors.length;
  checkType(x, ctx.vendor, e.type, [...path, 'type']);
  const parts: string[] = [];
  for (const k of ['subject', 'step', 'cause', 'data', 'standins', 'fragment_of'] as const) {
    if (e[k] === undefined) continue;
    const src = x.templateSource(e[k], [...path, k], ctx.site);
    if (src !== undefined) parts.push(`"${k}": ${src}`);
  }
  const when = e.when !== undefined ? x.templateSource(e.when, [...path, 'when'], ctx.site) : undefined;
  const gated = new Set([...Object.keys(ctx.gates), ...Object.keys(e.gates ?? {})]);
  const astAt = (p: Path) => x.asts.get(pathString(p));
  // validated bytes (Expressions.trusted): the fields were checked then, and no leaf AST is at hand
  for (const f of x.trusted ? [] : checkFields(e.data, [...path, 'data'], { type: e.type, gated, astAt })) {
    if (f.index !== undefined) x.errAt(f.code, f.path, f.index, f.message);
    else x.err(f.code, f.path, f.message, { key: f.key });
  }
  for (const k of x.trusted ? [] : Object.keys(e.standins ?? {})) {
    for (const f of checkFields({ [k]: null }, [...path, 'standins'], { type: e.type, gated, astAt }).filter((i) => i.code === 'unknown-field'))
      x.err(f.code, f.path, f.message, { key: true });
  }
  if (x.errors.length > before || (e.when !== undefined && when === undefined)) return undefined;
  // two expressions, each compiled once: the condition (JSONata's truth, as its `?` reads it), then the event's parts
  const whenExpr = when !== undefined ? x.compiled(`(${when}\n) ? true : false`, [...path, 'when']) : undefined;
  const expr = x.compiled(`{${parts.join(', ')}}`, path);
  if (!expr || (when !== undefined && !whenExpr)) return undefined;
  return {
    type: e.type,
    typeText: String(e.type),
    whenText: e.when,
    expr,
    run: e.run,
    runId: e.run_id !== undefined ? x.expr(e.run_id, [...path, 'run_id'], ctx.site) : undefined,
    sessionEnd: e.session_end,
    severity: e.severity,
    gates: e.gates,
    capture: e.capture,
    on: e.on,
    whenExpr,
    path: pathString(path),
  };
}

export function compileEmits(x: Expressions, list: readonly (Emit | null | undefined)[] | undefined, path: Path, ctx: EmitContext): CompiledEmit[] {
  // an emit pruned for a schema error is null: skipped, the others keep their indices
  return (list ?? []).map((e, i) => (e == null ? undefined : compileEmit(x, e, [...path, i], ctx))).filter((c): c is CompiledEmit => !!c);
}
