// Names resolved at load (docs/expressions.md): walks one expression's
// JSONata AST and resolves every `$variable` against the bindings of its
// position (bindings.ts) plus the descriptor's own names (vars, lookups) and
// the expression's locals (lambda parameters, `:=` bindings, `@$`/`#$`
// path variables); every `$function(...)` against JSONata's built-ins and
// the engine's, with arity; every `$config.<key>` against the descriptor's
// config. Each problem carries its index inside the expression source.
import { BINDINGS, bindingsAt, POSITION_LABEL, type Position } from './bindings.ts';
import { arityOk, arityText, functionTable } from './functions-table.ts';
import { explain } from '../text/suggest.ts';

export type NameCode = 'unknown-variable' | 'unknown-function' | 'function-arity' | 'unknown-field';

export interface NameIssue {
  code: NameCode;
  index: number;
  message: string;
}

export interface NameContext {
  position: Position;
  /** Descriptor names visible here ($<var>, lookup `as` names), in declaration order. */
  names: readonly string[];
  /** The descriptor's config keys ($config.<key>), when it declares a config. */
  config?: ReadonlySet<string>;
}

type Scope = ReadonlySet<string>;

export function checkNames(ast: unknown, ctx: NameContext): NameIssue[] {
  return new NameWalker(ctx).run(ast);
}

class NameWalker {
  private readonly issues: NameIssue[] = [];
  private readonly engine: Set<string>;
  private readonly engineFns: Set<string>;
  constructor(private readonly ctx: NameContext) {
    const here = bindingsAt(ctx.position);
    this.engine = new Set(here.filter((b) => !b.fn).map((b) => b.name));
    this.engineFns = new Set(here.filter((b) => b.fn).map((b) => b.name));
  }

  run(ast: unknown): NameIssue[] {
    this.walk(ast, new Set());
    return this.issues;
  }

  private visible(scope: Scope): string[] {
    return [...scope, ...this.ctx.names, ...this.engine].map((n) => `$${n}`);
  }

  private readVar(n: any, scope: Scope): void {
    const name: string = n.value;
    if (name === '' || name === '$') return; // the context and root
    if (scope.has(name) || this.ctx.names.includes(name) || this.engine.has(name) || this.engineFns.has(name) || functionTable().has(name)) return;
    const index = n.position - name.length - 1;
    const elsewhere = BINDINGS.find((b) => b.name === name);
    const where = elsewhere
      ? ` (\`$${name}\` is bound in ${elsewhere.positions
          .map((p) => POSITION_LABEL[p])
          .filter((v, i, a) => a.indexOf(v) === i)
          .join(', ')}, not in ${POSITION_LABEL[this.ctx.position]})`
      : '';
    const seen = this.visible(scope);
    this.issues.push({
      code: 'unknown-variable',
      index,
      message: explain(`\`$${name}\` is not bound here${where}`, { name: `$${name}`, candidates: seen, label: 'Bound here' }),
    });
  }

  private call(n: any, scope: Scope, extra: number): void {
    const proc = n.procedure;
    if (proc?.type !== 'variable') return this.walk(proc, scope);
    const name: string = proc.value;
    const index = proc.position - name.length - 1;
    if (scope.has(name) || this.ctx.names.includes(name) || this.engineFns.has(name)) return;
    const f = functionTable().get(name);
    if (!f) {
      const bound = this.engine.has(name) ? ` (\`$${name}\` is a value here, not a function)` : '';
      const fns = [...functionTable().keys(), ...this.engineFns].map((x) => `$${x}`);
      this.issues.push({
        code: 'unknown-function',
        index,
        message: explain(`\`$${name}\` is not a function${bound}`, {
          name: `$${name}`,
          candidates: fns,
          hint: "Functions: JSONata's built-ins and the engine's (docs/expressions.md).",
        }),
      });
      return;
    }
    const given = (n.arguments?.length ?? 0) + extra;
    if (!arityOk(f, given, n.type === 'partial')) {
      this.issues.push({
        code: 'function-arity',
        index,
        message: `\`$${name}\` takes ${arityText(f)}, given ${given}${f.signature ? ` (JSONata signature ${f.signature})` : ''}.`,
      });
    }
  }

  private path(n: any, scope: Scope): void {
    const inner = new Set(scope);
    for (const s of n.steps ?? []) {
      if (typeof s.focus === 'string') inner.add(s.focus);
      if (typeof s.index === 'string') inner.add(s.index);
    }
    const [first, second] = n.steps ?? [];
    if (
      first?.type === 'variable' &&
      first.value === 'config' &&
      !scope.has('config') &&
      second?.type === 'name' &&
      this.ctx.config &&
      this.engine.has('config')
    ) {
      const key: string = second.value;
      if (!this.ctx.config.has(key)) {
        const keys = [...this.ctx.config];
        this.issues.push({
          code: 'unknown-field',
          index: second.position - key.length,
          message: explain(`\`$config.${key}\`: the descriptor's \`config\` has no key \`${key}\``, { name: key, candidates: keys, label: 'Config keys' }),
        });
      }
    }
    for (const s of n.steps ?? []) this.walk(s, inner);
    for (const k of ['group', 'tuple']) if (n[k] && typeof n[k] === 'object') this.walk(n[k], inner);
  }

  private walk(n: any, scope: Scope): void {
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n)) {
      for (const x of n) this.walk(x, scope);
      return;
    }
    switch (n.type) {
      case 'variable':
        this.readVar(n, scope);
        this.children(n, scope);
        return;
      case 'function':
      case 'partial':
        this.call(n, scope, 0);
        this.walk(n.arguments, scope);
        return;
      case 'apply':
        this.walk(n.lhs, scope);
        if (n.rhs?.type === 'function' || n.rhs?.type === 'partial') {
          this.call(n.rhs, scope, 1);
          this.walk(n.rhs.arguments, scope);
        } else this.walk(n.rhs, scope);
        return;
      case 'lambda': {
        const inner = new Set(scope);
        for (const a of n.arguments ?? []) inner.add(a.value);
        this.walk(n.body, inner);
        return;
      }
      case 'block': {
        // a `:=` binding is visible in its whole block (lambdas bound there may recurse)
        const inner = new Set(scope);
        for (const e of n.expressions ?? []) if (e.type === 'bind' && e.lhs?.type === 'variable') inner.add(e.lhs.value);
        for (const e of n.expressions ?? []) this.walk(e.type === 'bind' ? e.rhs : e, inner);
        return;
      }
      case 'bind':
        (scope as Set<string>).add?.(n.lhs?.value);
        this.walk(n.rhs, scope);
        return;
      case 'path':
        this.path(n, scope);
        return;
      default:
        this.children(n, scope);
    }
  }

  private children(n: any, scope: Scope): void {
    for (const [k, v] of Object.entries(n)) if (k !== 'position' && v && typeof v === 'object') this.walk(v, scope);
  }
}
