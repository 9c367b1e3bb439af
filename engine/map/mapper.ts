// The mapping engine: (descriptor, hook, payload, state) -> AEP events + the
// reply bytes. Nothing here knows any agent; the descriptor says everything.
// A firing is atomic: it either yields all its events or one coded error,
// and only a successful firing changes engine state.
import { captureRank, formatAjvErrors, REGISTRY_BY_TYPE, TYPE_PATTERN, typeCategory, validatePayload, type CaptureLevel } from '../aep/schemas.ts';
import { gateData } from '../capture/gate.ts';
import { Redactor } from '../capture/redact.ts';
import { FragmentStreams } from '../capture/redaction/fragments.ts';
import { evaluate, type Expr } from '../expr/compile.ts';
import type { CompiledEmit, CompiledHook, Descriptor, Verb } from '../descriptor/types.ts';
import { eligibleVerbs, renderDecision, RUN_TERMINALS, type Decider, type Decision } from './decide.ts';
import { buildEnvelope, newId, sourceHost, type AepEvent } from './envelope.ts';
import { boundId } from './bounds.ts';
import { wellFormed, wellFormedDeep } from '../io/well-formed.ts';
import { EngineState, type SessionState } from './state.ts';

export type MapErrorCode = 'invalid-payload' | 'malformed-json' | 'body-too-large' | 'no-hook-name' | 'unknown-hook' | 'missing-session' | 'mapping-error' | 'payload-rejected' | 'invalid-type' | 'bad-hook-path'
  // what a surface reports about the agent's own traffic (engine/surface): the bytes passed through untouched
  | 'line-too-large' | 'not-jsonrpc' | 'duplicate-id' | 'join-table-full' | 'frames-dropped' | 'stream-refused' | 'stream-frame';

export class MapError extends Error {
  constructor(readonly code: MapErrorCode, message: string, readonly hook?: string) {
    super(message);
  }
}

export interface HoldRequest {
  kind: 'permission' | 'form' | 'gate';
  /** Which of the hook's holds applied. */
  index: number;
  hook: string;
  session: string;
  /** The attention.requested event that opened the hold (its id is the request id). */
  request?: AepEvent;
  timeoutMs?: number;
  key?: string;
  payload: Record<string, unknown>;
}

export interface MapResult {
  hook: string;
  session?: string;
  events: AepEvent[];
  /** Bytes the agent receives when nothing is decided (neutral). */
  reply: string;
  exitCode: number;
  hold?: HoldRequest;
  settle?: { key: string; as: 'dismissed' | 'oob'; answer?: Record<string, unknown> };
  /** The firing belongs to this other agent (a descriptor `defer` rule matched): no events, no state change, neutral reply. */
  deferredTo?: string;
  /** The verb the reply carries (a decide entry applied): the reply is its bytes, not the neutral ones. */
  decided?: Verb;
}

export interface MapOptions {
  /** Chooses what the reply carries besides its neutral bytes (queued commands, operator policy). */
  decide?: Decider;
}

export interface MapperOptions {
  /** Every category at this ceiling (the `--capture` flag). */
  capture?: CaptureLevel;
  state?: EngineState;
  host?: string;
  redactor?: Redactor;
  now?: () => number;
  /** Config overrides (merged over the descriptor's `config`). */
  config?: Record<string, unknown>;
}

type Bindings = Record<string, unknown>;
const NO_EXTRA: Bindings = Object.freeze({});

interface Draft { emit: CompiledEmit; type: string; subject?: string; step?: string; cause?: string; data?: Record<string, unknown>; standins?: Record<string, unknown>; run?: string; runStart?: boolean; id: string; fragmentOf?: string }

export class Mapper {
  readonly state: EngineState;
  private readonly host: string;
  private readonly redactor: Redactor;
  private readonly fragments: FragmentStreams;
  private readonly now: () => number;
  private readonly config: Record<string, unknown>;

  constructor(readonly descriptor: Descriptor, private readonly opts: MapperOptions = {}) {
    this.state = opts.state ?? new EngineState();
    this.host = opts.host ?? sourceHost();
    this.redactor = opts.redactor ?? new Redactor({ secretNames: descriptor.capture.secretNames });
    this.fragments = new FragmentStreams(this.redactor);
    this.now = opts.now ?? Date.now;
    this.config = { ...descriptor.config, ...envConfig(descriptor.vendor, descriptor.config), ...(opts.config ?? {}) };
  }

  /** One config value as this mapper sees it (descriptor default, environment, overrides). */
  configValue(key: string): unknown {
    return this.config[key];
  }

  /** The whole effective config (frozen view). */
  get effectiveConfig(): Readonly<Record<string, unknown>> {
    return this.config;
  }

  /** The ceiling an event of `type` is gated at. */
  ceilingFor(type: string, emitCap?: CaptureLevel): CaptureLevel {
    let level: CaptureLevel;
    if (this.opts.capture) level = this.opts.capture;
    else {
      level = this.descriptor.capture.ceiling;
      let best = -1;
      const cat = typeCategory(type);
      for (const [k, v] of Object.entries(this.descriptor.capture.overrides)) {
        if ((k === cat || type === k || type.startsWith(`${k}.`)) && k.length > best) { best = k.length; level = v; }
      }
    }
    if (emitCap && captureRank(emitCap) < captureRank(level)) level = emitCap;
    return level;
  }

  /** The hook a payload names, if the descriptor knows where to look. */
  async hookNameOf(payload: unknown, surface?: Record<string, unknown>): Promise<string | undefined> {
    if (!this.descriptor.hookName) return undefined;
    const v = await this.eval(this.descriptor.hookName, payload, surface ? { surface } : {});
    return typeof v === 'string' && v ? v : undefined;
  }

  /** A value when the expression ran on the fast path, a promise when JSONata had to. */
  private eval(e: Expr, input: unknown, b: Bindings): unknown {
    try {
      const r = evaluate(e, input, b);
      return r instanceof Promise ? r.catch((err) => { throw asMapError(err); }) : r;
    } catch (err) {
      throw asMapError(err);
    }
  }

  /**
   * Map one firing. `surface` is what the surface knows beside the payload
   * (a tee connection, a subscribed stream's id), bound as `$surface`.
   */
  async map(hookArg: string | undefined, rawPayload: unknown, surface?: Record<string, unknown>, opts: MapOptions = {}): Promise<MapResult> {
    const d = this.descriptor;
    // every string from a payload is well-formed before use (a lone surrogate would break URIs and UTF-8)
    const payload = wellFormedDeep(rawPayload);
    if (hookArg !== undefined) hookArg = wellFormed(hookArg);
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new MapError('invalid-payload', `the hook payload must be a JSON object, got ${Array.isArray(payload) ? 'an array' : payload === null ? 'null' : typeof payload}`);
    const input = payload as Record<string, unknown>;
    // attribution first: a firing another agent delivered through our hooks is theirs, whatever it names
    for (const rule of d.defer) {
      if (!(await this.eval(rule.when, input, { hook: hookArg, agent: d.vendor, config: this.config, surface }))) continue;
      const hook = hookArg ?? (await this.hookNameOf(input).catch(() => undefined)) ?? '';
      return { hook, events: [], reply: d.hooks.get(hook)?.reply ?? d.replies.neutral, exitCode: d.replies.exitCode, deferredTo: rule.to };
    }
    const hookName = hookArg ?? (await this.hookNameOf(input, surface));
    if (!hookName) throw new MapError('no-hook-name', d.hookName ? `the payload does not name its hook (${d.surface.hookNameText})` : 'this agent does not name hooks in its payloads: pass the hook name (argv or URL path)');
    try {
      return await this.mapHook(hookName, input, surface, opts);
    } catch (err) {
      if (err instanceof MapError) { (err as any).hook ??= hookName; throw err; }
      throw new MapError('mapping-error', (err as Error).message, hookName);
    }
  }

  /** The run a session has open now (the agent's own run id, or the synthesized one), if any. */
  openRun(session: string): string | undefined {
    return this.state.has(session) ? this.state.session(session).openRun : undefined;
  }

  /** A run ended outside a firing (a delivered cancel answered a held hook): later terminals for it are dropped. */
  closeRun(session: string, run: string): void {
    if (!this.state.has(session)) return;
    const st = this.state.session(session);
    markClosed(st, run);
    if (st.runId === run) { st.runId = undefined; st.runStartId = undefined; }
    if (st.openRun === run) st.openRun = undefined;
  }

  private async mapHook(hookName: string, input: Record<string, unknown>, surface: Record<string, unknown> | undefined, opts: MapOptions): Promise<MapResult> {
    const d = this.descriptor;
    const hook = d.hooks.get(hookName);
    if (!hook && !d.fallback) throw new MapError('unknown-hook', `no rule for hook '${hookName}' and no fallback`, hookName);
    const now = this.now();
    // $known_session(id): has this engine already seen that session? (join a foreign key onto a known lane, never mint one)
    const sessionRaw = await this.eval(d.session, input, { hook: hookName, surface, known_session: (id: unknown) => (typeof id === 'string' || typeof id === 'number') && id !== '' && this.state.has(this.state.aepOf(String(id))) });
    const rawSession = typeof sessionRaw === 'number' ? String(sessionRaw) : (sessionRaw as string | undefined);
    if (typeof rawSession !== 'string' || rawSession === '') throw new MapError('missing-session', `no session id in the payload (${d.spec.identity.session})`, hookName);
    // bounded before anything keys on it (state, log file, seq, envelope): the same long id always bounds alike (bounds.ts)
    const vendorSession = boundId(rawSession);

    // a session resumed after its end becomes its successor (state.ts); late completions stay on the ended one
    const route = this.state.route(vendorSession);
    let session = route.aep;
    let resumedFrom: string | undefined;
    if (route.ended && hook && opensSession(hook)) {
      resumedFrom = route.aep;
      session = this.state.reopen(vendorSession).aep;
    }
    const firstSight = !this.state.has(session) && !(route.ended && resumedFrom === undefined);
    const st = this.state.session(session);
    const runState = { id: st.runId, startId: st.runStartId, count: st.runCount };
    const runBefore = d.runs === 'synthesized' ? st.runId : st.openRun;
    const b: Bindings = { hook: hookName, agent: d.vendor, session, config: this.config, first_sight: firstSight, surface };
    if (d.runs === 'vendor' && d.run) {
      const r = await this.eval(d.run, input, b);
      if (r !== undefined && r !== null && r !== '') runState.id = boundId(String(r));
    }
    const setRunBindings = () => { b.run = runState.id; b.run_open = runState.id !== undefined; b.run_start = runState.startId; };
    setRunBindings();
    const initialRun = { ...runState };
    for (const [name, e] of d.vars) b[name] = await this.eval(e, input, b);

    const looked: { table: string; key: string; consume: boolean }[] = [];
    for (const l of hook?.lookups ?? []) {
      const key = await this.eval(l.key, input, b);
      if (key === undefined) continue;
      const k = String(key);
      b[l.as] = this.state.tableGet(st, l.table, k, now);
      if (b[l.as] !== undefined) looked.push({ table: l.table, key: k, consume: l.consume });
    }

    const reply = hook?.reply ?? d.replies.neutral;
    const result: MapResult = { hook: hookName, session, events: [], reply, exitCode: d.replies.exitCode };

    if (hook?.suppress) {
      const on = hook.suppress.when ? await this.eval(hook.suppress.when, input, b) : true;
      if (on) {
        const key = String(await this.eval(hook.suppress.key, input, b));
        const last = st.suppress.get(key);
        const windowMs = hook.suppress.windowMs ?? Number.POSITIVE_INFINITY;
        if (last !== undefined && now - last <= windowMs) return result;
        st.suppress.set(key, now);
        if (st.suppress.size > this.state.maxEntries) st.suppress.delete(st.suppress.keys().next().value as string);
      }
    }

    const drafts: Draft[] = [];
    const runEmit = async (emit: CompiledEmit, ctxInput: unknown, extra: Bindings = NO_EXTRA) => {
      b.previous = drafts.at(-1)?.id;
      b.first = drafts[0]?.id; // the firing's first event (cause of its companions, e.g. resolved/denied after an answer)
      const out = (await this.eval(emit.expr, ctxInput, extra === NO_EXTRA ? b : { ...b, ...extra })) as Record<string, unknown> | undefined;
      if (!out) return;
      const type = emit.type ?? (out.type as string);
      if (typeof type !== 'string' || !TYPE_PATTERN.test(type)) throw new MapError('invalid-type', `rule ${emit.path} produced type ${JSON.stringify(type)}`);
      const draft: Draft = { emit, type, id: newId() };
      if (out.subject !== undefined) draft.subject = String(out.subject);
      if (out.step !== undefined) draft.step = String(out.step);
      if (out.cause !== undefined) draft.cause = String(out.cause);
      draft.data = (out.data as Record<string, unknown>) ?? {};
      draft.standins = out.standins as Record<string, unknown> | undefined;
      if (out.fragment_of !== undefined && out.fragment_of !== null) draft.fragmentOf = String(out.fragment_of);
      if (emit.run === 'open') {
        runState.count++;
        // a descriptor may name the run from the wire (a request id); else one is minted
        const named = emit.runId ? await this.eval(emit.runId, ctxInput, extra === NO_EXTRA ? b : { ...b, ...extra }) : undefined;
        runState.id = typeof named === 'string' && named !== '' ? boundId(named) : typeof named === 'number' ? String(named) : `run-${newId()}`;
        runState.startId = draft.id;
        draft.runStart = true;
      }
      draft.run = emit.run === 'none' ? undefined : runState.id;
      if (emit.run === 'close') { runState.id = undefined; runState.startId = undefined; }
      drafts.push(draft);
      setRunBindings();
    };

    /** The firing's drafts from `emits` (the hook's own, or a decision's replacement), from the run state it started with. */
    const build = async (emits: CompiledEmit[], snapshot: boolean) => {
      drafts.length = 0;
      Object.assign(runState, initialRun);
      setRunBindings();
      if (firstSight && d.firstSight && !d.firstSight.except.has(hookName)) {
        for (const e of d.firstSight.emit) await runEmit(e, input);
      }
      for (const e of emits) await runEmit(e, input);
      if (snapshot && hook?.snapshot) await this.snapshotDiff(hook, st, input, b, runEmit);
      // one terminal per run: a run that already ended (a delivered cancel) is not finished again
      for (let i = drafts.length - 1; i >= 0; i--) if (RUN_TERMINALS.has(drafts[i].type) && drafts[i].run !== undefined && st.closedRuns?.has(drafts[i].run!)) drafts.splice(i, 1);
    };
    if (hook) {
      await build(hook.emit, true);
    } else {
      if (firstSight && d.firstSight && !d.firstSight.except.has(hookName)) {
        for (const e of d.firstSight.emit) await runEmit(e, input);
      }
      const fb = d.fallback!;
      const type = await this.eval(fb.type, input, b);
      if (typeof type !== 'string' || !TYPE_PATTERN.test(type)) throw new MapError('invalid-type', `fallback produced type ${JSON.stringify(type)} for hook '${hookName}'`);
      const data = fb.data ? ((await this.eval(fb.data, input, b)) as Record<string, unknown>) : {};
      const subject = fb.subject ? await this.eval(fb.subject, input, b) : undefined;
      drafts.push({ emit: { typeText: type, expr: fb.type, path: 'fallback', severity: fb.severity }, type, data: data ?? {}, subject: subject === undefined ? undefined : String(subject), run: runState.id, id: newId() });
    }

    // a held firing's reply is the answer: never a decision beside it (the steering design record)
    let holdIndex = -1;
    for (const [i, hold] of (hook?.holds ?? []).entries()) {
      if (hold.when && !(await this.eval(hold.when, input, b))) continue;
      holdIndex = i;
      break;
    }
    let decision: Decision | undefined;
    let decidedReply: { body: string; exit: number } | undefined;
    if (opts.decide && hook && holdIndex < 0) {
      const verbs = await eligibleVerbs(hook, input, b);
      decision = await opts.decide({
        agent: d.vendor,
        hook: hookName,
        session,
        runBefore,
        runAfter: runState.id,
        closesRun: drafts.some((dr) => RUN_TERMINALS.has(dr.type)),
        endsSession: drafts.some((dr) => dr.emit.sessionEnd),
        verbs,
        events: drafts.map((dr) => ({ id: dr.id, type: dr.type, subject: dr.subject, run: dr.run, data: dr.data ?? {} })),
      });
      const verb = decision?.verb;
      if (decision && verb !== undefined) {
        if (!verbs.has(verb)) throw new MapError('mapping-error', `a decision chose '${verb}', which ${hookName} cannot carry here`, hookName);
        const entry = hook.decide.get(verb)!;
        if (entry.emit) {
          // the decision replaces what the firing emitted: a cause naming a replaced event names that event's own cause
          const replaced = new Map(drafts.map((dr) => [dr.id, dr.cause]));
          await build(entry.emit, false);
          const kept = new Set(drafts.map((dr) => dr.id));
          for (const a of decision.authored ?? []) {
            if (a.cause === undefined || kept.has(a.cause) || !replaced.has(a.cause)) continue;
            let c = replaced.get(a.cause);
            while (c !== undefined && replaced.has(c) && !kept.has(c)) c = replaced.get(c);
            a.cause = c;
          }
        }
        decidedReply = { body: await renderDecision(entry, decision, input, b), exit: entry.exit ?? d.replies.exitCode };
      }
      // the decision's own events: before the session's end when the firing ends it (nothing follows session.ended)
      const authored: Draft[] = [];
      for (const a of decision?.authored ?? []) {
        authored.push({ emit: { typeText: a.type, expr: undefined as unknown as CompiledEmit['expr'], path: `decide.${verb ?? 'audit'}`, severity: a.severity, gates: a.gates }, type: a.type, data: a.data, cause: a.cause, subject: a.subject, run: runState.id, id: newId() });
        if (a.closesRun) { runState.id = undefined; runState.startId = undefined; setRunBindings(); }
      }
      const end = drafts.findIndex((dr) => dr.emit.sessionEnd);
      drafts.splice(end >= 0 ? end : drafts.length, 0, ...authored);
    }

    // AEP-0002 §7 rule 2: a session never ends with a request still open; the engine closes them (dismissed) first
    const endAt = drafts.findIndex((dr) => dr.emit.sessionEnd);
    if (endAt >= 0) {
      const open = new Map(st.attention);
      for (const dr of drafts.slice(0, endAt)) {
        if (dr.type === 'attention.requested') open.set(dr.id, { run: dr.run, at: now });
        else if ((dr.type === 'attention.resolved' || dr.type === 'attention.timeout') && dr.subject) open.delete(dr.subject);
      }
      const dismissals: Draft[] = [...open].map(([id, a]) => ({ emit: DISMISS_AT_END, type: 'attention.resolved', subject: id, cause: id, run: a.run, data: { resolution: 'dismissed', latency_ms: Math.max(0, now - a.at) }, id: newId() }));
      // before the run this firing closes (if any), else right before the end
      const runEnd = drafts.findIndex((dr, i) => i < endAt && dr.emit.run === 'close');
      drafts.splice(runEnd >= 0 ? runEnd : endAt, 0, ...dismissals);
    }
    if (resumedFrom !== undefined) {
      for (const dr of drafts) if (dr.type === 'session.started') dr.data = { ...dr.data, resumed_from: resumedFrom };
    }

    // redaction first: big strings in yielding slices, so one agent's huge payload never stalls another agent's hooks (issue 11)
    const ceilings = drafts.map((dr) => this.ceilingFor(dr.type, dr.emit.capture));
    const redacting = drafts.filter((_, i) => ceilings[i] === 'redacted').map((dr) => dr.data);
    if (redacting.length) await this.redactor.prepare(redacting);
    // fragments of a streamed text share a per-stream redactor (AEP-0007 §6); anything else closes the session's streams
    const frag = this.fragments.begin(session);
    const closing = drafts.some((dr) => dr.fragmentOf === undefined) ? frag.close(true) : [];

    // gate + validate every draft before anything is committed
    const gated: { dr: Draft; ceiling: CaptureLevel; data: Record<string, unknown> | undefined; agentScoped: boolean }[] = [];
    for (const [i, dr] of drafts.entries()) {
      const ceiling = ceilings[i];
      let gates = dr.emit.gates ? { ...d.capture.gates, ...dr.emit.gates } : d.capture.gates;
      if (resumedFrom !== undefined && dr.type === 'session.started') gates = { ...gates, resumed_from: 'metadata' };
      const streamKey = dr.fragmentOf !== undefined && ceiling === 'redacted' ? `${dr.type}\u0000${dr.subject ?? ''}\u0000${dr.fragmentOf}` : undefined;
      const redactor = streamKey ? frag.view(streamKey) : this.redactor;
      const data = gateData(dr.type, dr.data, { ceiling, gates, redactor, standIns: dr.standins, agent: d.vendor, subject: dr.subject });
      if (streamKey) frag.noteEvent(streamKey, { type: dr.type, subject: dr.subject, step: dr.step, run: dr.run, data: data ?? {}, meta: dr });
      if (data && REGISTRY_BY_TYPE.has(dr.type)) {
        const errs = validatePayload(dr.type, data);
        if (errs.length) throw new MapError('payload-rejected', `rule ${dr.emit.path} produced a ${dr.type} payload its schema rejects: ${formatAjvErrors(errs)}`);
      }
      // only core agent.* types are agent-scoped; x.<vendor>.agent.* is session-scoped (the envelope schema)
      gated.push({ dr, ceiling, data, agentScoped: dr.type.startsWith('agent.') });
    }
    if (redacting.length) this.redactor.forgetPrepared();
    // streams closed by this firing (or past the per-session bound) release their held tails first, as closing fragments
    closing.push(...frag.close(false));
    if (closing.length) gated.unshift(...closing.map((ev) => ({ dr: { ...(ev.meta as Draft), id: newId(), cause: undefined }, ceiling: 'redacted' as CaptureLevel, data: ev.data, agentScoped: false })));
    // positions are taken only once the whole firing is known to succeed
    const time = new Date(now).toISOString();
    const events: AepEvent[] = gated.map(({ dr, ceiling, data, agentScoped }) => {
      const pos = agentScoped ? undefined : this.state.seq.next(session);
      return buildEnvelope({
        id: dr.id,
        type: dr.type,
        subject: dr.subject,
        time,
        host: this.host,
        agent: d.vendor,
        session: agentScoped ? undefined : session,
        run: agentScoped ? undefined : dr.run,
        step: agentScoped ? undefined : dr.step,
        seq: pos?.seq,
        epoch: pos?.epoch,
        cause: dr.cause,
        severity: dr.emit.severity,
        capture: ceiling,
        data: data ?? (ceiling === 'none' ? undefined : {}),
      });
    });

    // hold / settle decisions are part of the firing's outcome
    if (holdIndex >= 0) {
      const hold = hook!.holds[holdIndex];
      const request = events.find((e) => e.type === hold.requestType);
      const key = hold.key ? await this.eval(hold.key, input, b) : undefined;
      result.hold = { kind: hold.kind, index: holdIndex, hook: hookName, session, request, timeoutMs: hold.timeoutMs, key: key === undefined ? undefined : String(key), payload: input };
    }
    if (decidedReply) {
      result.reply = decidedReply.body;
      result.exitCode = decidedReply.exit;
      result.decided = decision!.verb;
    }
    if (hook?.settle) {
      const key = await this.eval(hook.settle.key, input, b);
      if (key !== undefined) {
        result.settle = { key: String(key), as: hook.settle.as };
        const answer = hook.settle.answer ? await this.eval(hook.settle.answer, input, b) : undefined;
        if (answer && typeof answer === 'object' && !Array.isArray(answer)) result.settle.answer = answer as Record<string, unknown>;
      }
    }

    // commit: run state, tables, consumption
    frag.commit();
    st.runId = d.runs === 'synthesized' ? runState.id : st.runId;
    st.runStartId = runState.startId;
    st.runCount = runState.count;
    // the open run, for commands addressed to it (control.cancel): closed by a terminal, opened by any firing that names one
    const ended = drafts.filter((dr) => RUN_TERMINALS.has(dr.type) && dr.run !== undefined).map((dr) => dr.run!);
    for (const r of ended) markClosed(st, r);
    if (runState.id !== undefined && !st.closedRuns?.has(runState.id)) st.openRun = runState.id;
    else if (d.runs === 'synthesized' || (st.openRun !== undefined && st.closedRuns?.has(st.openRun))) st.openRun = undefined;
    for (const l of looked) if (l.consume) this.state.tableDelete(st, l.table, l.key);
    if (hook?.stores.length) {
      b.events = events.map((e) => ({ id: e.id, type: e.type }));
      b.event_id = events[0]?.id;
      for (const s of hook.stores) {
        if (s.when && !(await this.eval(s.when, input, b))) continue;
        const key = await this.eval(s.key, input, b);
        if (key === undefined) continue;
        const value = await this.eval(s.value, input, b);
        this.state.tableSet(st, s.table, String(key), value, s.ttlMs ? now + s.ttlMs : undefined);
      }
    }
    for (const ev of events) this.state.noteEvent(ev as { type: string; id: string; session?: string; subject?: string; run?: string }, now);
    if (drafts.some((dr) => dr.emit.sessionEnd)) {
      this.state.forget(session);
      this.state.markEnded(vendorSession);
    }
    decision?.commit?.();
    result.events = events;
    return result;
  }

  private async snapshotDiff(hook: CompiledHook, st: SessionState, input: unknown, b: Bindings, runEmit: (e: CompiledEmit, ctx: unknown, extra?: Bindings) => Promise<void>): Promise<void> {
    const snap = hook.snapshot!;
    const raw = await this.eval(snap.items, input, b);
    const next = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
    const prevList = st.snapshots.get(snap.name) ?? [];
    const idOf = async (item: unknown) => String(await this.eval(snap.id, item, b));
    const prevById = new Map<string, unknown>();
    for (const p of prevList) prevById.set(await idOf(p), p);
    const seen = new Set<string>();
    for (const item of next) {
      const id = await idOf(item);
      seen.add(id);
      const prev = prevById.get(id);
      for (const e of snap.emit) {
        if (e.on === 'added' && prev !== undefined) continue;
        if (e.on === 'removed') continue;
        if (e.on === 'changed' && (prev === undefined || JSON.stringify(prev) === JSON.stringify(item))) continue;
        if (e.on === 'entered' && prev !== undefined && e.whenExpr) {
          const before = await this.eval(e.whenExpr, prev, { ...b, prev: undefined, id });
          if (before) continue;
        }
        await runEmit(e, item, { prev, id });
      }
    }
    for (const [id, prev] of prevById) {
      if (seen.has(id)) continue;
      for (const e of snap.emit) if (e.on === 'removed') await runEmit(e, prev, { prev, id });
    }
    st.snapshots.set(snap.name, next);
  }

  /** The diagnostic event a daemon emits instead of crashing when a firing cannot be mapped. */
  diagnostic(err: MapError, session: string | undefined, hook: string | undefined): AepEvent {
    const type = `x.${this.descriptor.vendor}.error.mapping_failed`;
    const ceiling = this.ceilingFor(type);
    const data = gateData(type, { code: err.code, hook, message: err.message }, { ceiling, gates: { code: 'metadata', hook: 'metadata', message: 'redacted' }, redactor: this.redactor });
    const ev = buildEnvelope({ type, host: this.host, agent: this.descriptor.vendor, session: session ?? 'unknown', severity: 'warning', capture: ceiling, data: data ?? {} });
    const pos = this.state.seq.next(session ?? 'unknown');
    ev.seq = pos.seq;
    ev.epoch = pos.epoch;
    return reorder(ev);
  }
}

/** The engine's own rule (no descriptor wrote it): open attention closed as dismissed when its session ends. */
const DISMISS_AT_END: CompiledEmit = { type: 'attention.resolved', typeText: 'attention.resolved', expr: undefined as unknown as Expr, run: 'none', path: 'engine: session end closes open attention (AEP-0002 §7 rule 2)' };

const OPENS = new WeakMap<CompiledHook, boolean>();
/** Does this hook open a session or a run (so an ended session seen on it is resumed, not late)? */
function opensSession(hook: CompiledHook): boolean {
  let v = OPENS.get(hook);
  if (v === undefined) OPENS.set(hook, (v = hook.emit.some((e) => e.type === 'session.started' || e.run === 'open')));
  return v;
}

/** Remember a run that ended (bounded): its later terminals are dropped, commands to it refused. */
function markClosed(st: SessionState, run: string): void {
  st.closedRuns ??= new Set();
  st.closedRuns.delete(run);
  st.closedRuns.add(run);
  if (st.closedRuns.size > 64) st.closedRuns.delete(st.closedRuns.values().next().value as string);
}

function asMapError(err: any): MapError {
  return err instanceof MapError ? err : new MapError('mapping-error', `${err?.code ? `${err.code} ` : ''}${err?.message ?? String(err)}`);
}

const ORDER = ['aep', 'id', 'type', 'subject', 'time', 'source', 'agent', 'session', 'run', 'step', 'seq', 'epoch', 'cause', 'traceparent', 'severity', 'capture'];
function reorder(ev: AepEvent): AepEvent {
  const out: Record<string, unknown> = {};
  for (const k of ORDER) if (ev[k] !== undefined) out[k] = ev[k];
  for (const k of Object.keys(ev)) if (!(k in out) && k !== 'data' && ev[k] !== undefined) out[k] = ev[k];
  if (ev.data !== undefined) out.data = ev.data;
  return out as AepEvent;
}

/** HOOKMAP_<VENDOR>_<KEY>=value overrides a descriptor config key (JSON values accepted). */
function envConfig(vendor: string, defaults: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const prefix = `HOOKMAP_${vendor.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`;
  for (const key of Object.keys(defaults)) {
    const v = process.env[prefix + key.toUpperCase().replace(/[^A-Z0-9]/g, '_')];
    if (v === undefined) continue;
    try { out[key] = JSON.parse(v); } catch { out[key] = v; }
  }
  return out;
}
