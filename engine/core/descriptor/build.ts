// From a schema-valid descriptor to the compiled Descriptor: each expression compiled once for its position (bindings.ts),
// emits checked, tables, capabilities, waiting signs and defaults resolved. A descriptor with any error is not used.
import type { CaptureLevel } from '../aep/schemas.ts';
import { CAPABILITY_BY_ID } from '../capabilities/vocabulary.ts';
import type { Expr } from '../expr/compile.ts';
import type { Position } from '../expr/bindings.ts';
import { checkDeliveries, compileCommands, compileDecide, compileHoldMatch, compileReplyShape } from './compile-control.ts';
import { compileEmits, namespaceOf, type EmitContext } from './emits.ts';
import { Expressions, type Path, type Site } from './expressions.ts';
import type { DescriptorError } from './errors.ts';
import { explain } from '../text/suggest.ts';
import { compileOptions } from './options.ts';
import { compileSetup } from './setup-spec.ts';
import { compileTranscript } from './transcript.ts';
import { compileSigns } from './waiting.ts';
import type { CapabilityClaim, CompiledCommand, CompiledHook, CompiledStream, Descriptor, OtelExport, ShimSpec } from './types.ts';
import type { Hold, Hook, HookmapDescriptor, Surface } from '../generated/descriptor-types.ts';
import type { YamlSource } from './yaml-source.ts';
import { deepFreeze, present } from './list-helpers.ts';
import { TYPE } from '../kernel/lifecycle.ts';

export class DescriptorBuilder {
  private readonly x: Expressions;
  private readonly stored = new Set<string>();
  private readonly varNames: string[];

  constructor(
    src: YamlSource,
    private readonly spec: HookmapDescriptor,
    errors: DescriptorError[],
    private readonly opts: { pruned?: boolean; trusted?: boolean } = {},
  ) {
    this.x = new Expressions(src, errors, spec.config ? new Set(Object.keys(spec.config)) : undefined, opts.trusted);
    this.varNames = Object.keys(spec.vars ?? {});
  }

  private site(position: Position, names: readonly string[] = this.varNames): Site {
    return { position, names };
  }

  private emitCtx(position: Position, names: readonly string[]): EmitContext {
    return { vendor: namespaceOf(this.spec), site: this.site(position, names), gates: this.spec.capture?.gates ?? {} };
  }

  private hook(name: string, h: Hook): CompiledHook {
    const x = this.x;
    const p: Path = ['hooks', name];
    const names = [...this.varNames];
    const lookups = present(h.lookup).map(([l, i]) => {
      const key = x.expr(l.key, [...p, 'lookup', i, 'key'], this.site('lookup', [...names]))!;
      names.push(l.as);
      return { table: l.table, key, as: l.as, consume: !!l.consume };
    });
    const at = (position: Position) => this.site(position, names);
    const hook: CompiledHook = {
      name,
      summary: h.summary,
      emit: compileEmits(x, h.emit, [...p, 'emit'], this.emitCtx('emit', names)),
      lookups,
      stores: present(h.store).map(([s, i]) => {
        this.stored.add(s.table);
        const sp = [...p, 'store', i];
        return {
          table: s.table,
          key: x.expr(s.key, [...sp, 'key'], at('store'))!,
          value: x.template(s.value, [...sp, 'value'], at('store'))!,
          when: x.expr(s.when, [...sp, 'when'], at('store')),
          ttlMs: s.ttl_ms,
        };
      }),
      deviation: h.deviation,
      reply: h.reply,
      http: h.http,
      register: h.register !== false,
      holds: [],
      decide: compileDecide(x, h.decide, p, names, this.emitCtx('emit', names)),
    };
    if (h.snapshot) {
      const s = h.snapshot;
      const sp = [...p, 'snapshot'];
      hook.snapshot = {
        name: s.name,
        items: x.expr(s.items, [...sp, 'items'], at('snapshot'))!,
        id: x.expr(s.id, [...sp, 'id'], at('snapshot'))!,
        emit: compileEmits(x, s.emit, [...sp, 'emit'], this.emitCtx('snapshot_emit', names)),
      };
    }
    if (h.suppress)
      hook.suppress = {
        key: x.expr(h.suppress.key, [...p, 'suppress', 'key'], at('suppress'))!,
        windowMs: h.suppress.window_ms,
        when: x.expr(h.suppress.when, [...p, 'suppress', 'when'], at('suppress')),
      };
    const holds = h.hold === undefined ? [] : Array.isArray(h.hold) ? h.hold : [h.hold];
    hook.holds = holds.map((hd: Hold, i: number) => {
      const hp = Array.isArray(h.hold) ? [...p, 'hold', i] : [...p, 'hold'];
      const decisions = new Map<string, Expr>();
      for (const [k, v] of Object.entries(hd.decisions ?? {})) {
        const e = x.template(v, [...hp, 'decisions', k], this.site('decision'));
        if (e) decisions.set(k, e);
      }
      return {
        kind: hd.kind,
        when: x.expr(hd.when, [...hp, 'when'], at('hold')),
        whenText: hd.when,
        decisionTexts: new Map(Object.entries(hd.decisions ?? {})),
        timeoutMs: hd.timeout_ms,
        key: x.expr(hd.key, [...hp, 'key'], at('hold')),
        decisions,
        requestType: hd.request ?? TYPE.attentionRequested,
        outcome: compileEmits(x, hd.outcome, [...hp, 'outcome'], this.emitCtx('decision', this.varNames)),
        match: hd.match && compileHoldMatch(hd.match, (v: unknown, k: string) => x.expr(v as string | undefined, [...hp, 'match', k], this.site('decision'))),
      };
    });
    if (h.settle)
      hook.settle = {
        key: x.expr(h.settle.key, [...p, 'settle', 'key'], at('settle'))!,
        as: h.settle.as,
        answer: x.template(h.settle.answer, [...p, 'settle', 'answer'], at('settle')),
      };
    compileReplyShape(x, p, h, hook, this.spec);
    return hook;
  }

  private commands(hooks: Map<string, CompiledHook>): Map<string, CompiledCommand> {
    const out = compileCommands(this.x, this.spec, this.site('command', []), this.opts.pruned);
    if (!this.opts.pruned) checkDeliveries(this.x, out, new Map([...hooks].map(([n, h]) => [n, h.decide])));
    return out;
  }

  /** An otlp-receiver surface: how `setup --otel` points the agent's exporter at it (literal data). */
  private exportSpec(surface: Surface): OtelExport | undefined {
    const e = surface.export;
    if (!e) return undefined;
    if (surface.kind !== 'otlp-receiver')
      this.x.err('schema-violation', ['surface', 'export'], `surface.export applies to kind otlp-receiver, not ${surface.kind}`, { key: true });
    if (e.format === 'toml' && !e.file) this.x.err('schema-violation', ['surface', 'export', 'file'], 'a toml export names the file it is written to');
    return deepFreeze({ format: e.format, file: e.file, table: e.table, block: e.block, notes: e.notes ?? [], docs: e.docs ?? [] });
  }

  /** A stream-subscriber surface: how to attach (all literal data; field paths are dotted JSON paths). */
  private stream(surface: Partial<Surface>): CompiledStream | undefined {
    const st = surface.stream;
    if (surface.kind === 'stream-subscriber' && !st)
      this.x.err('schema-violation', ['surface', 'kind'], 'a stream-subscriber surface needs surface.stream (how to attach)');
    if (!st) return undefined;
    if (surface.kind !== 'stream-subscriber')
      this.x.err('schema-violation', ['surface', 'stream'], `surface.stream applies to kind stream-subscriber, not ${surface.kind}`, { key: true });
    const path = (p: string | undefined) => (p === undefined ? undefined : p.split('.').filter(Boolean));
    const d = st.streams;
    return {
      transport: st.transport,
      path: st.path,
      query: st.query ?? {},
      resumeQuery: st.resume_query,
      cursor: path(st.cursor),
      dedupe: path(st.dedupe),
      discover: d
        ? { path: d.path, items: path(d.items)!, id: path(d.id)!, next: path(d.next), pageParam: d.page_param, everyMs: d.every_ms ?? 15_000 }
        : undefined,
      auth: { firstMessage: st.auth?.first_message, header: st.auth?.header ?? {} },
      closeCodes: st.close_codes ?? {},
    };
  }

  private capabilities(): Map<string, CapabilityClaim> {
    const out = new Map<string, CapabilityClaim>();
    for (const [id, v] of Object.entries(this.spec.capabilities ?? {})) {
      const claim: CapabilityClaim = typeof v === 'string' ? { state: v } : { state: v.state, why: v.why, evidence: v.evidence, live: v.live };
      if (!CAPABILITY_BY_ID.has(id))
        this.x.err(
          'unknown-capability',
          ['capabilities', id],
          explain(`'${id}' is not in the capability vocabulary`, {
            name: id,
            candidates: CAPABILITY_BY_ID.keys(),
            hint: 'The vocabulary: `hookmap capabilities --json`.',
          }),
          { key: true },
        );
      if (claim.state !== 'supported' && !claim.why) this.x.err('missing-reason', ['capabilities', id], `state '${claim.state}' needs a 'why'`);
      out.set(id, claim);
    }
    return out;
  }

  private vars(): [string, Expr][] {
    const out: [string, Expr][] = [];
    this.varNames.forEach((k, i) => {
      const e = this.x.template(this.spec.vars![k], ['vars', k], this.site('vars', this.varNames.slice(0, i)));
      if (e) out.push([k, e]);
    });
    return out;
  }

  /** Shim bounds and the plugin host shape: plain data, checked here for what the schema cannot say. */
  private shim(): ShimSpec {
    const sh = this.spec.shim ?? {};
    const plugin = sh.plugin;
    if (plugin) {
      const p: Path = ['shim', 'plugin'];
      if (plugin.host === 'hooks' && !Object.keys(plugin.hooks ?? {}).length)
        this.x.err('schema-violation', p, 'host: hooks needs `hooks:` (each registered hook and the moment it POSTs)');
      if (plugin.host === 'bus' && !plugin.events?.length && !Object.keys(plugin.optin ?? {}).length)
        this.x.err('schema-violation', p, 'host: bus needs `events:` (or `optin:`): the names it registers');
      if (plugin.host === 'bus' && !plugin.session && JSON.stringify(plugin.moment ?? null).includes('"$session'))
        this.x.err(
          'schema-violation',
          [...p, 'moment'],
          'the moment reads $session but `session:` does not say where the host keeps it (arg, path, accessors)',
        );
      if (plugin.host === 'hooks' && plugin.session)
        this.x.err('schema-violation', [...p, 'session'], 'host: hooks has no per-call session object: `session` applies to host: bus', { key: true });
    }
    return { boundMs: sh.bound_ms, connectTimeoutMs: sh.connect_timeout_ms, marginMs: sh.margin_ms, plugin };
  }

  build(): Descriptor {
    const s = this.spec;
    const x = this.x;
    const none: string[] = [];
    const vars = this.vars();
    const hooks = new Map<string, CompiledHook>();
    for (const [name, h] of Object.entries(s.hooks ?? {})) hooks.set(name, this.hook(name, h ?? {}));
    // a pruned descriptor may have lost the store a lookup reads: not reported on its own
    for (const [name, h] of this.opts.pruned ? [] : Object.entries(s.hooks ?? {})) {
      present(h?.lookup).forEach(([l, i]) => {
        if (!this.stored.has(l.table))
          x.err(
            'unknown-reference',
            ['hooks', name, 'lookup', i, 'table'],
            explain(`no hook stores into table '${l.table}'`, { name: l.table, candidates: this.stored, label: 'Tables stored' }),
          );
      });
    }
    const fb = s.fallback;
    const cap = s.capture ?? {};
    const fs = s.identity?.first_sight;
    return Object.freeze({
      file: x.src.file,
      vendor: s.vendor,
      agent: s.agent ?? s.vendor,
      channel: s.channel,
      namespace: `x.${namespaceOf(s)}`,
      name: s.name,
      surface: {
        kind: s.surface?.kind,
        pin: s.surface?.pin,
        docs: s.surface?.docs,
        notes: s.surface?.notes,
        hookTimeoutMs: s.surface?.hook_timeout_ms,
        hookNameText: s.surface?.hook_name,
        stream: this.stream(s.surface ?? {}),
        export: this.exportSpec(s.surface ?? {}),
      },
      identityText: { session: s.identity?.session, run: s.identity?.run },
      sensitive: s.identity?.sensitive,
      hookName: x.expr(s.surface?.hook_name, ['surface', 'hook_name'], this.site('hook_name', none)),
      session: x.expr(s.identity?.session, ['identity', 'session'], this.site('session', none))!,
      run: x.expr(s.identity?.run, ['identity', 'run'], this.site('run', none)),
      runs: s.identity?.runs ?? (s.identity?.run ? 'vendor' : 'none'),
      firstSight: fs
        ? { emit: compileEmits(x, fs.emit, ['identity', 'first_sight', 'emit'], this.emitCtx('emit', this.varNames)), except: new Set<string>(fs.except ?? []) }
        : undefined,
      capture: {
        ceiling: (cap.ceiling ?? 'metadata') as CaptureLevel,
        overrides: cap.overrides ?? { attention: 'redacted' },
        gates: cap.gates ?? {},
        secretNames: cap.secret_names ?? [],
      },
      config: Object.fromEntries(compileOptions(s.vendor, s.config).map((o) => [o.key, o.default])),
      options: compileOptions(s.vendor, s.config),
      vars,
      hooks,
      fallback: fb
        ? {
            type: x.template(fb.type, ['fallback', 'type'], this.site('fallback'))!,
            typeText: typeof fb.type === 'string' ? fb.type : JSON.stringify(fb.type),
            dataText: fb.data,
            data: x.template(fb.data, ['fallback', 'data'], this.site('fallback')),
            subject: x.template(fb.subject, ['fallback', 'subject'], this.site('fallback')),
            severity: fb.severity,
          }
        : undefined,
      replies: { neutral: s.replies?.neutral, exitCode: s.replies?.exit_code ?? 0, contentType: s.replies?.content_type, stream: s.replies?.stream },
      capabilities: this.capabilities(),
      posture: s.posture,
      ...{ deviations: s.deviations ?? [], absent: s.absent ?? [], readTools: s.read_tools ?? [] },
      optionEffects: Object.freeze({ ...(s.option_effects ?? {}) }),
      commands: this.commands(hooks),
      setup: deepFreeze(compileSetup(s.setup)),
      shim: deepFreeze(this.shim()),
      provenance: deepFreeze(structuredClone(s.provenance ?? {})),
      ...compileSigns(x, s, new Set(hooks.keys()), this.site('defer', none)), // waiting and limits
      defer: present(s.defer).map(([r, i]) => ({ to: r.to, when: x.expr(r.when, ['defer', i, 'when'], this.site('defer', none))!, why: r.why })),
      transcript: compileTranscript(x, s.transcript, new Set(hooks.keys()), this.opts.pruned),
      launch: s.launch && deepFreeze(structuredClone(s.launch)),
    });
  }
}
