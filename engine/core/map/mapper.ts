// The mapping engine: (descriptor, hook, payload, state) -> AEP events + the
// reply bytes. Nothing here knows any agent; the descriptor says everything.
// A firing is all-or-nothing: it either yields all its events or one coded
// error, and only a successful firing changes engine state (its session,
// sequence numbers, tables, runs, the decision's queue): the next firing
// after a failed one behaves as if the failed one never came.
import { captureRank, CORE_ATTRIBUTE_ORDER, typeCategory, type CaptureLevel } from '../aep/schemas.ts';
import { gateData } from '../capture/gate.ts';
import { Redactor } from '../capture/redact.ts';
import { projectLabel, type ProjectLabels } from '../capture/project.ts';
import { FragmentStreams } from '../capture/redaction/fragments.ts';
import { evaluate, type Expr } from '../expr/compile.ts';
import type { Descriptor } from '../descriptor/types.ts';
import { buildEnvelope, sourceHost, type AepEvent } from './envelope.ts';
import { resolveOptions } from '../descriptor/options.ts';
import { wellFormed, wellFormedDeep } from '../io/well-formed.ts';
import { EngineState } from './state.ts';
import { boundId } from './bounds.ts';
import { asMapError, MapError } from './errors.ts';
import { neutralShape } from './reply-shape.ts';
import { sensitiveId } from './sensitive.ts';
import { identify, lookups, resolveHook, suppressed, type Bindings, type MapContext, type MapOptions, type MapResult } from './firing.ts';
import { DraftBuilder } from './drafts.ts';
import { chooseDecision, chooseHold, closeAtSessionEnd } from './choose.ts';
import { envelopes, gateDrafts } from './seal.ts';
import { commit, lastExpressions, markClosed, outcome } from './commit.ts';

export { MapError, type MapErrorCode } from './errors.ts';
export type { HoldRequest, MapOptions, MapResult } from './firing.ts';

export interface MapperOptions {
  /** Every category at this ceiling (the `--capture` flag). */
  capture?: CaptureLevel;
  state?: EngineState;
  host?: string;
  redactor?: Redactor;
  now?: () => number;
  /** Config overrides (merged over the descriptor's `config` and `optionVars`). */
  config?: Record<string, unknown>;
  /** HOOKMAP_<AGENT>_<KEY> values by variable name, as the CLI edge resolved them (RuntimeConfig.options). */
  optionVars?: Readonly<Record<string, string>>;
  /** Raise every type's ceiling to at least this level (`hookmap up --capture`); higher per-type ceilings stay. */
  captureAtLeast?: CaptureLevel;
  /** The project label session.started carries (engine/core/capture/project.ts); default: the folder's name. */
  projects?: ProjectLabels;
}

export class Mapper {
  readonly state: EngineState;
  readonly host: string;
  private readonly redactor: Redactor;
  private readonly fragments: FragmentStreams;
  private readonly now: () => number;
  private readonly config: Record<string, unknown>;
  /** What the mapping stages read of this mapper (firing.ts). */
  private readonly ctx: MapContext;

  constructor(
    readonly descriptor: Descriptor,
    private readonly opts: MapperOptions = {},
  ) {
    this.state = opts.state ?? new EngineState();
    this.host = opts.host ?? sourceHost();
    this.redactor = opts.redactor ?? new Redactor({ secretNames: descriptor.capture.secretNames });
    this.fragments = new FragmentStreams(this.redactor);
    this.now = opts.now ?? Date.now;
    this.config = resolveOptions(descriptor.vendor, descriptor.config, opts.optionVars, opts.config);
    this.ctx = {
      descriptor,
      state: this.state,
      config: this.config,
      host: this.host,
      redactor: this.redactor,
      fragments: this.fragments,
      eval: (e, input, b) => this.eval(e, input, b),
      ceilingFor: (type, cap) => this.ceilingFor(type, cap),
      projectLabel: (cwd) => projectLabel(cwd, opts.projects),
    };
  }

  /** One config value as this mapper sees it (descriptor default, HOOKMAP_<AGENT>_<KEY>, overrides). */
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
        if ((k === cat || type === k || type.startsWith(`${k}.`)) && k.length > best) {
          best = k.length;
          level = v;
        }
      }
      if (this.opts.captureAtLeast && captureRank(this.opts.captureAtLeast) > captureRank(level)) level = this.opts.captureAtLeast;
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

  /** The agent session id a payload names (bounded), or undefined; never throws (a diagnostic's session, a session end before mapping). */
  async vendorSessionOf(payload: unknown, hook: string | undefined, surface?: Record<string, unknown>): Promise<string | undefined> {
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
    try {
      const s = await evaluate(this.descriptor.session, payload, { hook, surface, known_session: () => false });
      const as = this.descriptor.sensitive?.session;
      return typeof s === 'string' && s ? boundId(sensitiveId(s, as)) : typeof s === 'number' ? sensitiveId(String(s), as) : undefined;
    } catch {
      return undefined;
    }
  }

  /** A value when the expression ran on the fast path, a promise when JSONata had to. */
  private eval(e: Expr, input: unknown, b: Bindings): unknown {
    try {
      const r = evaluate(e, input, b);
      return r instanceof Promise
        ? r.catch((err) => {
            throw asMapError(err);
          })
        : r;
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
    const payload = opts.wellFormed ? rawPayload : wellFormedDeep(rawPayload);
    if (hookArg !== undefined) hookArg = wellFormed(hookArg);
    if (!payload || typeof payload !== 'object' || Array.isArray(payload))
      throw new MapError(
        'invalid-payload',
        `the hook payload must be a JSON object, got ${Array.isArray(payload) ? 'an array' : payload === null ? 'null' : typeof payload}`,
      );
    const input = payload as Record<string, unknown>;
    // attribution first: a firing another agent delivered through our hooks is theirs, whatever it names
    for (const rule of d.defer) {
      if (!(await this.eval(rule.when, input, { hook: hookArg, agent: d.vendor, config: this.config, surface }))) continue;
      const hook = hookArg ?? (await this.hookNameOf(input).catch(() => undefined)) ?? '';
      const ns = neutralShape(d, hook);
      return {
        hook,
        events: [],
        reply: d.hooks.get(hook)?.reply ?? d.replies.neutral,
        exitCode: ns.exit,
        ...(ns.stream ? { stream: ns.stream } : {}),
        deferredTo: rule.to,
      };
    }
    const hookName = hookArg ?? (await this.hookNameOf(input, surface));
    if (!hookName) {
      const err = new MapError(
        'no-hook-name',
        d.hookName
          ? `the payload does not name its hook (${d.surface.hookNameText})`
          : 'this agent does not name hooks in its payloads: pass the hook name (argv or URL path)',
      );
      err.session = await this.vendorSessionOf(input, undefined, surface); // its diagnostic still lands in the payload's session
      throw err;
    }
    // the firing's identity, evaluated once: a failure names the session it reached, so nobody asks again
    const seen: { tried?: boolean; session?: string } = {};
    try {
      return await this.mapHook(hookName, input, surface, opts, seen);
    } catch (err) {
      const me = err instanceof MapError ? err : new MapError('mapping-error', (err as Error).message, hookName);
      me.hook ??= hookName;
      // failed before identity (an unknown hook): its session is read once, for the diagnostic
      me.session ??= seen.tried ? seen.session : await this.vendorSessionOf(input, hookName, surface);
      throw me;
    }
  }

  /** Whether a firing of `session` was mapped here (and it is not yet forgotten). */
  knows(session: string): boolean {
    return this.state.has(session);
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
    if (st.runId === run) {
      st.runId = undefined;
      st.runStartId = undefined;
    }
    if (st.openRun === run) st.openRun = undefined;
  }

  /**
   * One firing through the named stages: the hook's rule, identity (session,
   * run, vars), lookups and suppression, the emit rules, the reply (hold or
   * decision), the session end, the capture gate, the last expressions
   * (hold and settle keys, stores), the envelopes, the outcome and the
   * commit. Everything before the commit works on the firing's draft; only
   * the commit changes engine state, and nothing fails after it starts.
   */
  private async mapHook(
    hookName: string,
    input: Record<string, unknown>,
    surface: Record<string, unknown> | undefined,
    opts: MapOptions,
    seen: { tried?: boolean; session?: string },
  ): Promise<MapResult> {
    const m = this.ctx;
    const hook = resolveHook(this.descriptor, hookName);
    const f = await identify(m, hookName, hook, input, surface, this.now(), seen);
    const looked = await lookups(m, f);
    if (await suppressed(m, f)) return f.result;
    const builder = new DraftBuilder(m, f);
    if (hook) await builder.build(hook.emit, true);
    else await builder.fallback();
    const choice = await chooseDecision(m, f, builder, await chooseHold(m, f), opts);
    closeAtSessionEnd(f, opts);
    const { gated, frag } = await gateDrafts(m, f);
    const last = await lastExpressions(m, f, gated, choice);
    // nothing below evaluates an expression: the firing succeeds whole from here
    const events = envelopes(m, f, gated);
    outcome(f, events, choice, last);
    commit(m, f, events, frag, looked, choice.decision, last);
    f.result.events = events;
    return f.result;
  }

  /** The diagnostic event a daemon emits instead of crashing when a firing cannot be mapped. */
  diagnostic(err: MapError, session: string | undefined, hook: string | undefined): AepEvent {
    const type = `${this.descriptor.namespace}.error.mapping_failed`;
    const ceiling = this.ceilingFor(type);
    const data = gateData(
      type,
      { code: err.code, hook, message: err.message },
      { ceiling, gates: { code: 'metadata', hook: 'metadata', message: 'redacted' }, redactor: this.redactor },
    );
    const ev = buildEnvelope({
      type,
      host: this.host,
      agent: this.descriptor.agent,
      channel: this.descriptor.channel,
      session: session ?? 'unknown',
      severity: 'warning',
      capture: ceiling,
      data: data ?? {},
    });
    const pos = this.state.seq.next(session ?? 'unknown');
    ev.seq = pos.seq;
    ev.epoch = pos.epoch;
    return reorder(ev);
  }
}

/** The envelope's members in the schema's order, `data` last (the reader sees who and where before the payload). */
const ORDER = CORE_ATTRIBUTE_ORDER.filter((k) => k !== 'data');
function reorder(ev: AepEvent): AepEvent {
  const out: Record<string, unknown> = {};
  for (const k of ORDER) if (ev[k] !== undefined) out[k] = ev[k];
  for (const k of Object.keys(ev)) if (!(k in out) && k !== 'data' && ev[k] !== undefined) out[k] = ev[k];
  if (ev.data !== undefined) out.data = ev.data;
  return out as AepEvent;
}
