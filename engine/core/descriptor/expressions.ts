// The expression layer of descriptor compilation (docs/expressions.md):
// compiles every `=expression` and template once, checks every name in it
// against its position's bindings (expr/names.ts), and turns each failure
// into one located, coded error pointing inside the YAML scalar.
import { compileMarked, isFailure, lazyCompiled, templateSource, tryCompile, type Expr, type ExprFailure } from '../expr/compile.ts';
import { exprText, isMarked, jsonataLiteral, readsAsExpression } from '../expr/marked.ts';
import { checkNames, type NameContext } from '../expr/names.ts';
import type { Position } from '../expr/bindings.ts';
import { type DescriptorError, type ErrorCode, pathString } from './errors.ts';
import type { YamlSource } from './yaml-source.ts';

export type Path = (string | number)[];
/** Where an expression sits: its position's bindings and the descriptor names visible there. */
export interface Site {
  position: Position;
  names: readonly string[];
}

export class Expressions {
  /** The AST of every marked leaf compiled, by path (field checks read object constructors). */
  readonly asts = new Map<string, unknown>();

  constructor(
    readonly src: YamlSource,
    readonly errors: DescriptorError[],
    private readonly config: ReadonlySet<string> | undefined,
    /** These bytes were validated by this hookmap before (descriptor-cache.ts): no checks, every expression compiled on first use. */
    readonly trusted = false,
  ) {}

  err(code: ErrorCode, path: Path, message: string, opts: { key?: boolean } = {}): void {
    const pos = opts.key ? this.src.locateKey(path) : this.src.locate(path);
    this.errors.push({ code, file: this.src.file, line: pos.line, col: pos.col, path: pathString(path), message });
  }

  /** An error at character `index` of the marked expression at `path`. */
  errAt(code: ErrorCode, path: Path, index: number, message: string): void {
    const at = this.src.locateInScalar(path, index + 1);
    this.errors.push({ code, file: this.src.file, line: at.line, col: at.col, path: pathString(path), message });
  }

  private fail(f: ExprFailure): void {
    const at = this.src.locateInScalar(f.path, f.index + (f.lead ?? 0));
    const lines = f.source.split('\n');
    let rest = f.index;
    let li = 0;
    while (li < lines.length - 1 && rest > lines[li].length) {
      rest -= lines[li].length + 1;
      li++;
    }
    const excerpt = `${lines[li]}\n${' '.repeat(Math.max(0, rest))}^`;
    this.errors.push({
      code: 'invalid-expression',
      file: this.src.file,
      line: at.line,
      col: at.col,
      path: pathString(f.path),
      message: `${f.message} (at ${li + 1}:${rest + 1} in the expression)\n    ${excerpt.replace(/\n/g, '\n    ')}`,
    });
  }

  /** Resolve the names of one compiled leaf; false when any does not resolve. */
  private names(e: Expr, path: Path, site: Site): boolean {
    const ast = e.ast();
    this.asts.set(pathString(path), ast);
    const ctx: NameContext = { position: site.position, names: site.names, config: this.config };
    const issues = checkNames(ast, ctx);
    for (const i of issues) this.errAt(i.code, path, i.index, i.message);
    return issues.length === 0;
  }

  /** An expression position (the schema has required the `=` mark). */
  expr(source: string | undefined, path: Path, site: Site): Expr | undefined {
    if (source === undefined) return undefined;
    if (this.trusted) return lazyCompiled(exprText(source), path);
    const c = compileMarked(source, path);
    if (isFailure(c)) {
      this.fail(c);
      return undefined;
    }
    return this.names(c, path, site) ? c : undefined;
  }

  /** Plain strings anywhere in a template are literals, unless they read as an unmarked expression. */
  unmarked(tpl: unknown, path: Path): boolean {
    if (this.trusted) return false;
    if (typeof tpl === 'string') {
      if (isMarked(tpl) || !readsAsExpression(tpl)) return false;
      this.err('unmarked-expression', path, unmarkedMessage(tpl));
      return true;
    }
    if (Array.isArray(tpl)) return tpl.map((t, i) => this.unmarked(t, [...path, i])).some(Boolean);
    if (tpl && typeof tpl === 'object')
      return Object.entries(tpl)
        .map(([k, v]) => this.unmarked(v, [...path, k]))
        .some(Boolean);
    return false;
  }

  /** A template's JSONata source with every leaf compiled and name-checked, or undefined (errors recorded). */
  templateSource(tpl: unknown, path: Path, site: Site): string | undefined {
    if (this.trusted) return templateSource(tpl, path, [], undefined, false);
    if (this.unmarked(tpl, path)) return undefined;
    const failures: ExprFailure[] = [];
    let ok = true;
    const source = templateSource(tpl, path, failures, (e, p) => {
      ok = this.names(e, p, site) && ok;
    });
    failures.forEach((f) => this.fail(f));
    return failures.length || !ok ? undefined : source;
  }

  template(tpl: unknown, path: Path, site: Site): Expr | undefined {
    if (tpl === undefined) return undefined;
    const source = this.templateSource(tpl, path, site);
    return source === undefined ? undefined : this.compiled(source, path);
  }

  /** Generated JSONata (a template's or an emit's one expression): its parts compiled on their own already. */
  compiled(source: string, path: Path): Expr | undefined {
    if (this.trusted) return lazyCompiled(source, path);
    const c = tryCompile(source, path);
    if (isFailure(c)) {
      this.fail(c);
      return undefined;
    }
    return c;
  }
}

/** Why an unmarked string is refused, and the fix: the `=` form, or the literal it meant. */
export function unmarkedMessage(value: unknown, expressionOnly = false): string {
  const text = String(value);
  const oneLine = text.replace(/\s*\n\s*/g, ' ');
  const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
  const fix = `\`=${oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine}\``;
  if (expressionOnly)
    return `${shown} is a plain (literal) value, but this position takes an expression: write ${fix} (expressions start with \`=\`; docs/expressions.md)`;
  const lit = jsonataLiteral(text);
  const literal = lit
    ? `; for the literal, write ${typeof lit.value === 'string' ? `\`${lit.value}\`` : `the YAML value \`${JSON.stringify(lit.value)}\``}`
    : '';
  return (
    `${shown} reads as a JSONata expression (${readsAsExpression(text)}), but plain values are ` +
    `literal: write ${fix} for the expression${literal} (docs/expressions.md)`
  );
}
