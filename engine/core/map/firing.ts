// One firing as it moves through the mapping stages (mapper.ts runs them in
// order): what the stages share (Firing), what they read of the mapper
// (MapContext), and the first stages, which read the payload and the
// engine state but change nothing: identity (the session, its resumption,
// the run, the descriptor's vars), the hook's table lookups and its
// suppression window. A firing is all-or-nothing: it is computed against a
// draft (the session's committed state read, never written; a new session's
// state not yet held; every write queued in `writes`), and the commit stage
// (commit.ts) applies the draft only once every expression of the firing has
// run and every event is known to be valid.
import type { CaptureLevel } from '../aep/schemas.ts';
import type { Redactor } from '../capture/redact.ts';
import type { FragmentStreams } from '../capture/redaction/fragments.ts';
import type { CompiledEmit, CompiledHook, Descriptor, Verb } from '../descriptor/types.ts';
import type { Expr } from '../expr/compile.ts';
import type { Decider } from './decide.ts';
import type { AepEvent } from './envelope.ts';
import { boundId } from './bounds.ts';
import { neutralShape } from './reply-shape.ts';
import { sensitiveId } from './sensitive.ts';
import { MapError } from './errors.ts';
import { newSessionState, type EngineState, type SessionRoute, type SessionState } from './state.ts';

export type Bindings = Record<string, unknown>;

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
  /** The firing ended its session (the caller frees what it held there: the firing's own events closed those requests). */
  endsSession?: boolean;
  /** Bytes the agent receives when nothing is decided (neutral). */
  reply: string;
  exitCode: number;
  /** The stream carrying the reply (absent: stdout). */
  stream?: 'stderr';
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
  /** Requests the caller holds open in a session (request id -> its run, when it opened): a firing that ends the session closes them too. */
  open?: (session: string) => Iterable<[string, { run?: string; at: number }]>;
  /** The payload's strings are already well-formed (the caller checked at its edge): not walked again. */
  wellFormed?: boolean;
}

/** What the stages read of the mapper. */
export interface MapContext {
  readonly descriptor: Descriptor;
  readonly state: EngineState;
  readonly config: Record<string, unknown>;
  readonly host: string;
  readonly redactor: Redactor;
  readonly fragments: FragmentStreams;
  /** A value when the expression ran on the fast path, a promise when JSONata had to; failures are MapErrors. */
  eval(e: Expr, input: unknown, b: Bindings): unknown;
  ceilingFor(type: string, emitCap?: CaptureLevel): CaptureLevel;
  /** The project label of a session working in `cwd` (engine/core/capture/project.ts), or undefined. */
  projectLabel(cwd: unknown): string | undefined;
}

/** One event as a rule produced it, before capture gating and its envelope. */
export interface Draft {
  emit: CompiledEmit;
  type: string;
  subject?: string;
  step?: string;
  cause?: string;
  data?: Record<string, unknown>;
  standins?: Record<string, unknown>;
  run?: string;
  runStart?: boolean;
  id: string;
  fragmentOf?: string;
}

export interface RunState {
  id?: string;
  startId?: string;
  count: number;
}

export interface Firing {
  hookName: string;
  hook?: CompiledHook;
  input: Record<string, unknown>;
  now: number;
  /** The agent's session id (bounded) and the AEP session it maps to (a resumed session's successor). */
  vendorSession: string;
  session: string;
  /** Where the payload's session id maps once this firing commits (a resumed session's successor). */
  route: SessionRoute;
  resumedFrom?: string;
  firstSight: boolean;
  /** The session's committed state (read only until the commit), or a new one the commit will hold. */
  st: SessionState;
  /** The draft's writes to `st`, applied in order at the commit (never when the firing fails). */
  writes: (() => void)[];
  /** The run as the firing moves it, and as it started. */
  run: RunState;
  initialRun: RunState;
  runBefore?: string;
  /** The `$name` bindings every expression of the firing sees. */
  b: Bindings;
  drafts: Draft[];
  result: MapResult;
}

/** The hook's rule, or none when the fallback applies. */
export function resolveHook(d: Descriptor, hookName: string): CompiledHook | undefined {
  const hook = d.hooks.get(hookName);
  if (!hook && !d.fallback) throw new MapError('unknown-hook', `no rule for hook '${hookName}' and no fallback`, hookName);
  return hook;
}

/** The session (bounded; a resumed one's successor), the run, and the bindings: `$hook`, `$session`, `$run`, ..., then the descriptor's vars. */
export async function identify(
  m: MapContext,
  hookName: string,
  hook: CompiledHook | undefined,
  input: Record<string, unknown>,
  surface: Record<string, unknown> | undefined,
  now: number,
  seen: { tried?: boolean; session?: string },
): Promise<Firing> {
  const d = m.descriptor;
  const state = m.state;
  seen.tried = true;
  // $known_session(id): has this engine already seen that session? (join a foreign key onto a known lane, never mint one)
  const sessionRaw = await m.eval(d.session, input, {
    hook: hookName,
    surface,
    known_session: (id: unknown) => (typeof id === 'string' || typeof id === 'number') && id !== '' && state.has(state.aepOf(String(id))),
  });
  const rawSession = typeof sessionRaw === 'number' ? String(sessionRaw) : (sessionRaw as string | undefined);
  if (typeof rawSession !== 'string' || rawSession === '')
    throw new MapError('missing-session', `no session id in the payload (${d.identityText.session})`, hookName);
  // bounded before anything keys on it (state, log file, seq, envelope): the same long id always bounds alike (bounds.ts)
  const vendorSession = boundId(sensitiveId(rawSession, d.sensitive?.session));
  seen.session = vendorSession;

  // a session resumed after its end becomes its successor (state.ts); late completions stay on the ended one
  let route = state.peekRoute(vendorSession);
  let resumedFrom: string | undefined;
  if (route.ended && hook && opensSession(hook)) {
    resumedFrom = route.aep;
    route = state.successor(vendorSession, route);
  }
  const session = route.aep;
  const held = state.peek(session);
  const firstSight = !held && !(route.ended && resumedFrom === undefined);
  const st = held ?? newSessionState();
  const run: RunState = { id: st.runId, startId: st.runStartId, count: st.runCount };
  const runBefore = d.runs === 'synthesized' ? st.runId : st.openRun;
  const b: Bindings = { hook: hookName, agent: d.vendor, session, config: m.config, first_sight: firstSight, surface };
  if (d.runs === 'vendor' && d.run) {
    const r = await m.eval(d.run, input, b);
    if (r !== undefined && r !== null && r !== '') run.id = boundId(sensitiveId(String(r), d.sensitive?.run));
  }
  setRunBindings(b, run);
  const initialRun = { ...run };
  for (const [name, e] of d.vars) b[name] = await m.eval(e, input, b);
  const ns = neutralShape(d, hookName);
  const result: MapResult = {
    hook: hookName,
    session,
    events: [],
    reply: hook?.reply ?? d.replies.neutral,
    exitCode: ns.exit,
    ...(ns.stream ? { stream: ns.stream } : {}),
  };
  return {
    hookName,
    hook,
    input,
    now,
    vendorSession,
    session,
    route,
    resumedFrom,
    firstSight,
    st,
    writes: [],
    run,
    initialRun,
    runBefore,
    b,
    drafts: [],
    result,
  };
}

/** `$run`, `$run_open`, `$run_start` as the run stands now. */
export function setRunBindings(b: Bindings, run: RunState): void {
  b.run = run.id;
  b.run_open = run.id !== undefined;
  b.run_start = run.startId;
}

/** The hook's table lookups, bound under their `as` names; the ones found (consumed at commit when they say so). */
export async function lookups(m: MapContext, f: Firing): Promise<{ table: string; key: string; consume: boolean }[]> {
  const looked: { table: string; key: string; consume: boolean }[] = [];
  for (const l of f.hook?.lookups ?? []) {
    const key = await m.eval(l.key, f.input, f.b);
    if (key === undefined) continue;
    const k = String(key);
    f.b[l.as] = m.state.tableGet(f.st, l.table, k, f.now);
    if (f.b[l.as] !== undefined) looked.push({ table: l.table, key: k, consume: l.consume });
  }
  return looked;
}

/** A repeat within the hook's suppression window: the firing yields nothing and changes nothing; otherwise the window opens at the commit. */
export async function suppressed(m: MapContext, f: Firing): Promise<boolean> {
  const s = f.hook?.suppress;
  if (!s) return false;
  const on = s.when ? await m.eval(s.when, f.input, f.b) : true;
  if (!on) return false;
  const key = String(await m.eval(s.key, f.input, f.b));
  const last = f.st.suppress.get(key);
  const windowMs = s.windowMs ?? Number.POSITIVE_INFINITY;
  if (last !== undefined && f.now - last <= windowMs) return true;
  const { st, now } = f;
  f.writes.push(() => {
    st.suppress.set(key, now);
    if (st.suppress.size > m.state.maxEntries) st.suppress.delete(st.suppress.keys().next().value as string);
  });
  return false;
}

const OPENS = new WeakMap<CompiledHook, boolean>();
/** Does this hook open a session or a run (so an ended session seen on it is resumed, not late)? */
function opensSession(hook: CompiledHook): boolean {
  let v = OPENS.get(hook);
  if (v === undefined) OPENS.set(hook, (v = hook.emit.some((e) => e.type === 'session.started' || e.run === 'open')));
  return v;
}
