// Descriptor loading: YAML (with positions) -> schema validation -> every
// expression compiled -> event types checked. All errors are collected and
// returned together; a descriptor with any error is not usable.
import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { ajv, formatAjvErrors, REGISTRY_BY_TYPE, TYPE_PATTERN, type CaptureLevel } from '../aep/schemas.ts';
import { CAPABILITY_BY_ID } from '../capabilities/vocabulary.ts';
import { compileMarked, isFailure, templateSource, tryCompile, type Expr, type ExprFailure } from '../expr/compile.ts';
import { isMarked, jsonataLiteral, readsAsExpression } from '../expr/marked.ts';
import { type DescriptorError, pathString } from './errors.ts';
import { parseYamlSource, type YamlSource } from './yaml-source.ts';
import type { CapabilityClaim, CompiledCommand, CompiledEmit, CompiledHook, CompiledStream, Descriptor } from './types.ts';

const DESCRIPTOR_SCHEMA = JSON.parse(readFileSync(new URL('../../schemas/descriptor.schema.json', import.meta.url), 'utf8'));
let schemaValidator: ReturnType<ReturnType<typeof ajv>['compile']> | undefined;

export interface LoadResult { descriptor?: Descriptor; errors: DescriptorError[] }

export function loadDescriptorFile(path: string, opts: { displayPath?: string } = {}): LoadResult {
  const display = opts.displayPath ?? (relative(process.cwd(), path) || path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return { errors: [{ code: 'yaml-syntax', file: display, line: 1, col: 1, path: '', message: `cannot read: ${(err as Error).message}` }] };
  }
  const res = compileDescriptor(display, text);
  const expected = basename(path).replace(/\.ya?ml$/, '');
  if (res.descriptor && res.descriptor.vendor !== expected) {
    const { line, col } = parseYamlSource(display, text).locate(['vendor']);
    const pos = { line, col };
    res.errors.push({ code: 'vendor-mismatch', file: display, ...pos, path: 'vendor', message: `vendor '${res.descriptor.vendor}' in a file named '${basename(path)}'` });
    res.descriptor = undefined;
  }
  return res;
}

export function compileDescriptor(file: string, text: string): LoadResult {
  const src = parseYamlSource(file, text);
  if (src.errors.length) return { errors: src.errors };
  const errors: DescriptorError[] = [];
  const spec = src.value as any;
  schemaValidator ??= ajv().compile(DESCRIPTOR_SCHEMA);
  if (!schemaValidator(spec)) {
    for (const e of schemaValidator.errors ?? []) {
      if (e.keyword === 'anyOf' || e.keyword === 'allOf' || e.keyword === 'if') continue;
      const segs = e.instancePath.split('/').slice(1).map((x: string) => x.replace(/~1/g, '/').replace(/~0/g, '~')).map((x: string) => (/^\d+$/.test(x) ? Number(x) : x));
      if (e.keyword === 'additionalProperties') segs.push((e.params as any).additionalProperty);
      const pos = src.locate(segs);
      if (e.keyword === 'pattern' && (e.params as any).pattern === '^=') {
        errors.push({ code: 'unmarked-expression', file, line: pos.line, col: pos.col, path: pathString(segs), message: unmarkedMessage(valueAt(spec, segs), true) });
        continue;
      }
      errors.push({ code: 'schema-violation', file, line: pos.line, col: pos.col, path: pathString(segs), message: formatAjvErrors([e]).replace(/^\S+ /, '') });
    }
    return { errors };
  }
  const c = new Compiler(src, spec, errors);
  const descriptor = c.build();
  return errors.length ? { errors } : { descriptor, errors };
}

class Compiler {
  private readonly stored = new Set<string>();
  constructor(private readonly src: YamlSource, private readonly spec: any, private readonly errors: DescriptorError[]) {}

  private fail(f: ExprFailure): void {
    const at = this.src.locateInScalar(f.path, f.index + (f.lead ?? 0));
    const lines = f.source.split('\n');
    let rest = f.index;
    let li = 0;
    while (li < lines.length - 1 && rest > lines[li].length) { rest -= lines[li].length + 1; li++; }
    const excerpt = `${lines[li]}\n${' '.repeat(Math.max(0, rest))}^`;
    this.errors.push({ code: 'invalid-expression', file: this.src.file, line: at.line, col: at.col, path: pathString(f.path), message: `${f.message} (at ${li + 1}:${rest + 1} in the expression)\n    ${excerpt.replace(/\n/g, '\n    ')}` });
  }

  private err(code: DescriptorError['code'], path: (string | number)[], message: string): void {
    const pos = this.src.locate(path);
    this.errors.push({ code, file: this.src.file, line: pos.line, col: pos.col, path: pathString(path), message });
  }

  /** An expression position: the schema has already required the `=` mark. */
  expr(source: string | undefined, path: (string | number)[]): Expr | undefined {
    if (source === undefined) return undefined;
    const c = compileMarked(source, path);
    if (isFailure(c)) { this.fail(c); return undefined; }
    return c;
  }

  /** Plain strings anywhere in a template are literals, unless they read as an unmarked expression. */
  private unmarked(tpl: unknown, path: (string | number)[]): boolean {
    if (typeof tpl === 'string') {
      if (isMarked(tpl) || !readsAsExpression(tpl)) return false;
      this.err('unmarked-expression', path, unmarkedMessage(tpl));
      return true;
    }
    if (Array.isArray(tpl)) return tpl.map((t, i) => this.unmarked(t, [...path, i])).some(Boolean);
    if (tpl && typeof tpl === 'object') return Object.entries(tpl).map(([k, v]) => this.unmarked(v, [...path, k])).some(Boolean);
    return false;
  }

  template(tpl: unknown, path: (string | number)[]): Expr | undefined {
    if (tpl === undefined) return undefined;
    if (this.unmarked(tpl, path)) return undefined;
    const failures: ExprFailure[] = [];
    const source = templateSource(tpl, path, failures);
    failures.forEach((f) => this.fail(f));
    if (failures.length) return undefined;
    return this.compiled(source, path);
  }

  /** Generated JSONata (a template's or an emit's one expression): its parts compiled on their own already. */
  private compiled(source: string, path: (string | number)[]): Expr | undefined {
    const c = tryCompile(source, path);
    if (isFailure(c)) { this.fail(c); return undefined; }
    return c;
  }

  checkType(type: string, path: (string | number)[]): void {
    if (!TYPE_PATTERN.test(type)) { this.err('unknown-event-type', path, `'${type}' is not a well-formed AEP type`); return; }
    if (type.startsWith('x.')) {
      const vendor = type.split('.')[1];
      if (vendor !== this.spec.vendor) this.err('unknown-event-type', path, `'${type}' is outside this descriptor's namespace x.${this.spec.vendor}.*`);
      return;
    }
    if (!REGISTRY_BY_TYPE.has(type)) this.err('unknown-event-type', path, `'${type}' is not a registered AEP type (use x.${this.spec.vendor}.<category>.<name> for vendor extensions)`);
  }

  emit(e: any, path: (string | number)[]): CompiledEmit | undefined {
    const failures: ExprFailure[] = [];
    // an emit's type is always literal: docs, capability evidence and payload checks read it without running anything
    if (isMarked(e.type)) {
      this.err('unknown-event-type', [...path, 'type'], `an emit's type is a literal AEP type, not an expression: write the type itself (a computed extension type belongs in \`fallback.type\`)`);
      return undefined;
    }
    this.checkType(e.type, [...path, 'type']);
    const parts: string[] = [];
    let unmarked = false;
    for (const k of ['subject', 'step', 'cause', 'data', 'standins'] as const) {
      if (e[k] === undefined) continue;
      if (this.unmarked(e[k], [...path, k])) { unmarked = true; continue; }
      parts.push(`"${k}": ${templateSource(e[k], [...path, k], failures)}`);
    }
    const when = e.when !== undefined ? templateSource(e.when, [...path, 'when'], failures) : 'true';
    failures.forEach((f) => this.fail(f));
    if (failures.length || unmarked) return undefined;
    const expr = this.compiled(`($__when := ${when}; $__when ? {${parts.join(', ')}})`, path);
    if (!expr) return undefined;
    return {
      type: e.type,
      typeText: String(e.type),
      expr,
      run: e.run,
      runId: e.run_id !== undefined ? this.expr(e.run_id, [...path, 'run_id']) : undefined,
      sessionEnd: e.session_end,
      severity: e.severity,
      gates: e.gates,
      capture: e.capture,
      on: e.on,
      whenExpr: e.when !== undefined ? this.expr(e.when, [...path, 'when']) : undefined,
      path: pathString(path),
    };
  }

  emits(list: any[] | undefined, path: (string | number)[]): CompiledEmit[] {
    return (list ?? []).map((e, i) => this.emit(e, [...path, i])).filter((x): x is CompiledEmit => !!x);
  }

  hook(name: string, h: any): CompiledHook {
    const p = ['hooks', name];
    const hook: CompiledHook = {
      name,
      summary: h.summary,
      emit: this.emits(h.emit, [...p, 'emit']),
      lookups: (h.lookup ?? []).map((l: any, i: number) => ({ table: l.table, key: this.expr(l.key, [...p, 'lookup', i, 'key'])!, as: l.as, consume: !!l.consume })),
      stores: (h.store ?? []).map((s: any, i: number) => {
        this.stored.add(s.table);
        return { table: s.table, key: this.expr(s.key, [...p, 'store', i, 'key'])!, value: this.template(s.value, [...p, 'store', i, 'value'])!, when: this.expr(s.when, [...p, 'store', i, 'when']), ttlMs: s.ttl_ms };
      }),
      deviation: h.deviation,
      reply: h.reply,
      http: h.http,
      register: h.register !== false,
      holds: [],
    };
    if (h.snapshot) {
      const s = h.snapshot;
      hook.snapshot = { name: s.name, items: this.expr(s.items, [...p, 'snapshot', 'items'])!, id: this.expr(s.id, [...p, 'snapshot', 'id'])!, emit: this.emits(s.emit, [...p, 'snapshot', 'emit']) };
    }
    if (h.suppress) hook.suppress = { key: this.expr(h.suppress.key, [...p, 'suppress', 'key'])!, windowMs: h.suppress.window_ms, when: this.expr(h.suppress.when, [...p, 'suppress', 'when']) };
    const holds = h.hold === undefined ? [] : Array.isArray(h.hold) ? h.hold : [h.hold];
    hook.holds = holds.map((hd: any, i: number) => {
      const hp = Array.isArray(h.hold) ? [...p, 'hold', i] : [...p, 'hold'];
      const decisions = new Map<string, Expr>();
      for (const [k, v] of Object.entries(hd.decisions ?? {})) {
        const e = this.template(v, [...hp, 'decisions', k]);
        if (e) decisions.set(k, e);
      }
      return { kind: hd.kind, when: this.expr(hd.when, [...hp, 'when']), timeoutMs: hd.timeout_ms, key: this.expr(hd.key, [...hp, 'key']), decisions, requestType: hd.request ?? 'attention.requested', outcome: this.emits(hd.outcome, [...hp, 'outcome']) };
    });
    if (h.settle) hook.settle = { key: this.expr(h.settle.key, [...p, 'settle', 'key'])!, as: h.settle.as, answer: this.template(h.settle.answer, [...p, 'settle', 'answer']) };
    return hook;
  }

  commands(spec: Record<string, any>): Map<string, CompiledCommand> {
    const out = new Map<string, CompiledCommand>();
    for (const [type, c] of Object.entries(spec)) {
      const p = ['commands', type];
      if (!type.startsWith('x.') && !REGISTRY_BY_TYPE.has(type)) this.err('unknown-event-type', p, `'${type}' is not a registered AEP command type`);
      if (type.startsWith('x.') && type.split('.')[1] !== this.spec.vendor) this.err('unknown-event-type', p, `'${type}' is outside this descriptor's namespace x.${this.spec.vendor}.*`);
      if (c.opt_in !== undefined && !(c.opt_in in (this.spec.config ?? {}))) this.err('unknown-reference', [...p, 'opt_in'], `opt_in names config key '${c.opt_in}', which config does not declare`);
      const write = this.template(c.write, [...p, 'write']);
      if (!write) continue;
      out.set(type, { type, summary: c.summary, optIn: c.opt_in, when: this.expr(c.when, [...p, 'when']), refuse: c.refuse, write });
    }
    return out;
  }

  stream(surface: any): CompiledStream | undefined {
    const st = surface.stream;
    if (surface.kind === 'stream-subscriber' && !st) this.err('schema-violation', ['surface', 'kind'], 'a stream-subscriber surface needs surface.stream (how to attach)');
    if (!st) return undefined;
    if (surface.kind !== 'stream-subscriber') this.err('schema-violation', ['surface', 'stream'], `surface.stream applies to kind stream-subscriber, not ${surface.kind}`);
    const path = (p: string | undefined) => (p === undefined ? undefined : p.split('.').filter(Boolean));
    const d = st.streams;
    return {
      transport: st.transport,
      path: st.path,
      query: st.query ?? {},
      resumeQuery: st.resume_query,
      cursor: path(st.cursor),
      dedupe: path(st.dedupe),
      discover: d ? { path: d.path, items: path(d.items)!, id: path(d.id)!, next: path(d.next), pageParam: d.page_param, everyMs: d.every_ms ?? 15_000 } : undefined,
      auth: { firstMessage: st.auth?.first_message, header: st.auth?.header ?? {} },
      closeCodes: st.close_codes ?? {},
    };
  }

  build(): Descriptor {
    const s = this.spec;
    const hooks = new Map<string, CompiledHook>();
    for (const [name, h] of Object.entries(s.hooks ?? {})) hooks.set(name, this.hook(name, h ?? {}));
    for (const [name, h] of Object.entries<any>(s.hooks ?? {})) {
      (h?.lookup ?? []).forEach((l: any, i: number) => {
        if (!this.stored.has(l.table)) this.err('unknown-reference', ['hooks', name, 'lookup', i, 'table'], `no hook stores into table '${l.table}'`);
      });
    }
    const capabilities = new Map<string, CapabilityClaim>();
    for (const [id, v] of Object.entries<any>(s.capabilities ?? {})) {
      const claim: CapabilityClaim = typeof v === 'string' ? { state: v as any } : { state: v.state, why: v.why, evidence: v.evidence, live: v.live };
      if (!CAPABILITY_BY_ID.has(id)) this.err('unknown-capability', ['capabilities', id], `'${id}' is not in the capability vocabulary (see \`hookmap capabilities --json\`)`);
      if (claim.state !== 'supported' && !claim.why) this.err('missing-reason', ['capabilities', id], `state '${claim.state}' needs a 'why'`);
      capabilities.set(id, claim);
    }
    const fb = s.fallback;
    const cap = s.capture ?? {};
    const vars: [string, Expr][] = [];
    for (const [k, v] of Object.entries<string>(s.vars ?? {})) {
      const e = this.template(v, ['vars', k]);
      if (e) vars.push([k, e]);
    }
    const fs = s.identity.first_sight;
    return Object.freeze({
      file: this.src.file,
      vendor: s.vendor,
      name: s.name,
      spec: deepFreeze(s),
      surface: { kind: s.surface.kind, pin: s.surface.pin, docs: s.surface.docs, hookTimeoutMs: s.surface.hook_timeout_ms, hookNameText: s.surface.hook_name, stream: this.stream(s.surface) },
      hookName: this.expr(s.surface.hook_name, ['surface', 'hook_name']),
      session: this.expr(s.identity.session, ['identity', 'session'])!,
      run: this.expr(s.identity.run, ['identity', 'run']),
      runs: s.identity.runs ?? (s.identity.run ? 'vendor' : 'none'),
      firstSight: fs ? { emit: this.emits(fs.emit, ['identity', 'first_sight', 'emit']), except: new Set<string>(fs.except ?? []) } : undefined,
      capture: { ceiling: (cap.ceiling ?? 'metadata') as CaptureLevel, overrides: cap.overrides ?? { attention: 'redacted' }, gates: cap.gates ?? {}, secretNames: cap.secret_names ?? [] },
      config: s.config ?? {},
      vars,
      hooks,
      fallback: fb ? { type: this.template(fb.type, ['fallback', 'type'])!, typeText: fb.type, data: this.template(fb.data, ['fallback', 'data']), subject: this.template(fb.subject, ['fallback', 'subject']), severity: fb.severity } : undefined,
      replies: { neutral: s.replies.neutral, exitCode: s.replies.exit_code ?? 0, contentType: s.replies.content_type },
      capabilities,
      posture: s.posture,
      deviations: s.deviations ?? [],
      absent: s.absent ?? [],
      commands: this.commands(s.commands ?? {}),
      defer: (s.defer ?? []).map((r: any, i: number) => ({ to: r.to, when: this.expr(r.when, ['defer', i, 'when'])!, why: r.why })),
    });
  }
}

/** Why an unmarked string is refused, and the fix: the `=` form, or the literal it meant. */
function unmarkedMessage(value: unknown, expressionOnly = false): string {
  const text = String(value);
  const oneLine = text.replace(/\s*\n\s*/g, ' ');
  const fix = `\`=${oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine}\``;
  if (expressionOnly) return `${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)} is a plain (literal) value, but this position takes an expression: write ${fix} (expressions start with \`=\`; docs/expressions.md)`;
  const lit = jsonataLiteral(text);
  const why = readsAsExpression(text);
  const literal = lit ? `; for the literal, write ${typeof lit.value === 'string' ? `\`${lit.value}\`` : `the YAML value \`${JSON.stringify(lit.value)}\``}` : '';
  return `${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)} reads as a JSONata expression (${why}), but plain values are literal: write ${fix} for the expression${literal} (docs/expressions.md)`;
}

function valueAt(root: unknown, segs: (string | number)[]): unknown {
  return segs.reduce<any>((v, k) => (v == null ? undefined : v[k]), root);
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}
