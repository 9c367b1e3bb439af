// Decisions a hook reply can carry besides its neutral bytes: the verbs of a
// hook's `decide` block (context, cancel, block, continue), chosen for one
// firing by a Decider (the daemon's queue of delivered commands and the
// operator's policy: engine/runtime/daemon/instructions.ts) and rendered into the exact
// reply bytes by the descriptor's template. AEP-0004 §5 (commands delivered
// as outcomes), the steering design record (eligibility: a context-accepting
// moment whose reply would otherwise be neutral; never a held loop's reply).
//
// Also the rest of the engine's reply rendering, pure (no I/O, no timers):
// a held request's decision bytes and outcome emits once an answer is
// interpreted (AEP-0002 §5.3, AEP-0004 §5), a surface command's bytes, and
// the content type of reply bytes. The daemon, the fixture runners (through
// the daemon) and tests render with these functions and nothing else.
import type { CaptureLevel, Severity } from '../aep/schemas.ts';
import type { CompiledCommand, CompiledDecide, CompiledHold, CompiledHook, Descriptor, Verb } from '../descriptor/types.ts';
import { evaluate } from '../expr/compile.ts';
import { RUN_TERMINALS as KERNEL_RUN_TERMINALS } from '../kernel/lifecycle.ts';

/** One event of the firing as drafted (before capture gating): what policy rules read. */
export interface DraftView {
  id: string;
  type: string;
  subject?: string;
  run?: string;
  data: Record<string, unknown>;
}

/** What a Decider sees of one firing. */
export interface FiringView {
  agent: string;
  hook: string;
  session: string;
  /** The run open before the firing, and after its own emits. */
  runBefore?: string;
  runAfter?: string;
  /** The firing ends a run (a run terminal among its events) / the session. */
  closesRun: boolean;
  endsSession: boolean;
  /** Verbs this hook's reply can carry for this payload (its decide entries whose `when` holds). */
  verbs: ReadonlySet<Verb>;
  events: DraftView[];
}

/** An event the engine authors as part of a decision (the delivery audit, a cancelled run). */
export interface Authored {
  type: string;
  data: Record<string, unknown>;
  cause?: string;
  subject?: string;
  severity?: Severity;
  /** Gates for fields no schema annotates (x.* types). */
  gates?: Record<string, CaptureLevel>;
  /** The event ends the run it names (run.cancelled by a delivered cancel). */
  closesRun?: boolean;
}

export interface Decision {
  /** The verb the reply carries; undefined: the neutral reply (the decision only authors events, e.g. drops). */
  verb?: Verb;
  /** context: the instructions, joined. */
  text?: string;
  /** cancel / block / continue: why, as the agent shows it to the model. */
  reason?: string;
  authored: Authored[];
  /** Called once the firing commits (positions taken): consume what was delivered. */
  commit?: () => void;
}

export type Decider = (view: FiringView) => Decision | undefined | Promise<Decision | undefined>;

/** A run's terminals: the kernel's, generated from the AEP registry. */
export const RUN_TERMINALS: ReadonlySet<string> = new Set(KERNEL_RUN_TERMINALS);

/** The verbs whose `when` holds for this payload. */
export async function eligibleVerbs(hook: CompiledHook | undefined, input: unknown, b: Record<string, unknown>): Promise<Set<Verb>> {
  const out = new Set<Verb>();
  for (const [verb, d] of hook?.decide ?? []) {
    if (!d.when || (await evaluate(d.when, input, b))) out.add(verb);
  }
  return out;
}

/** The reply bytes of a decision: a string result is the bytes, anything else its JSON. */
export async function renderDecision(d: CompiledDecide, decision: Decision, input: unknown, b: Record<string, unknown>): Promise<string> {
  const v = await evaluate(d.reply, input, { ...b, verb: decision.verb, text: decision.text, reason: decision.reason });
  if (v === undefined || v === null) throw new Error(`decide.${d.verb} produced no reply bytes`);
  return templateBytes(v);
}

/** A template's result as reply bytes: a string result is the bytes, anything else its JSON. */
export function templateBytes(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The answer as applied to a held request (engine/runtime/daemon/answer.ts `Applied`). */
export interface AppliedAnswer {
  option?: string;
  text?: string;
  values?: Record<string, unknown>;
}

/** What a held request's decision and outcome templates are evaluated with. */
export interface AnswerContext {
  hook: string;
  session: string;
  /** The attention.requested event being answered (its run, its data as emitted). */
  request: { run?: string } & Record<string, unknown>;
  /** The native payload the hold was opened on. */
  payload: unknown;
  config: Record<string, unknown>;
  applied: AppliedAnswer;
  /** The answer as the command carried it. */
  answer: unknown;
  /** The "allow always" the agent is to persist itself (`$always`), when one was asked for. */
  always?: Record<string, unknown>;
}

/** The bindings of a held request's templates: the answer applied, then the descriptor's `vars` over the payload, in order. */
export async function answerBindings(d: Pick<Descriptor, 'vendor' | 'vars'>, a: AnswerContext): Promise<Record<string, unknown>> {
  const b: Record<string, unknown> = {
    hook: a.hook,
    agent: d.vendor,
    session: a.session,
    run: a.request.run,
    config: a.config,
    option: a.applied.option,
    text: a.applied.text,
    values: a.applied.values,
    answer: a.answer,
    request: a.request,
    always: a.always,
  };
  for (const [name, e] of d.vars) b[name] = await evaluate(e, a.payload, b);
  return b;
}

/** A held request's decision bytes (`holds[].decisions.<decision>`); an undefined result: the neutral bytes. */
export async function renderHoldDecision(
  rule: Pick<CompiledHold, 'decisions'>,
  decision: string,
  payload: unknown,
  b: Record<string, unknown>,
  neutral: string,
): Promise<string> {
  const v = await evaluate(rule.decisions.get(decision)!, payload, b);
  if (v === undefined) return neutral;
  return templateBytes(v);
}

/** One event a hold's `outcome` drafts (e.g. tool.denied on a commanded deny), before any position is taken. */
export interface OutcomeDraft {
  type: string;
  session: string;
  subject?: string;
  /** As the template wrote it; absent: the answer's id. */
  cause?: string;
  run?: string;
  severity?: Severity;
  gates?: Record<string, CaptureLevel>;
  data: Record<string, unknown>;
}

/** The hold's `outcome` emits over the payload and the answer's bindings. */
export async function renderOutcomes(
  rule: Pick<CompiledHold, 'outcome'>,
  payload: unknown,
  b: Record<string, unknown>,
  session: string,
  run: string | undefined,
): Promise<OutcomeDraft[]> {
  const out: OutcomeDraft[] = [];
  for (const e of rule.outcome) {
    if (e.whenExpr && !(await evaluate(e.whenExpr, payload, b))) continue;
    const o = (await evaluate(e.expr, payload, b)) as { subject?: unknown; cause?: unknown; data?: Record<string, unknown> } | undefined;
    if (!o) continue;
    // `type:` is always literal (the schema requires it): the result carries subject, cause and data
    out.push({
      type: e.type,
      session,
      subject: o.subject === undefined ? undefined : String(o.subject),
      cause: o.cause === undefined || o.cause === null ? undefined : String(o.cause),
      run,
      severity: e.severity,
      gates: e.gates,
      data: o.data ?? {},
    });
  }
  return out;
}

/** What a command's `when` and `write` templates see. */
export function commandBindings(
  d: Pick<Descriptor, 'vendor'>,
  cmd: { data?: unknown },
  session: string,
  run: string | undefined,
  config: Record<string, unknown>,
): Record<string, unknown> {
  return { session, run, run_open: run !== undefined, command: cmd, data: cmd.data ?? {}, config, agent: d.vendor };
}

/** Does the command apply now (`commands.<type>.when`, truthy)? */
export async function commandApplies(spec: Pick<CompiledCommand, 'when'>, cmd: unknown, b: Record<string, unknown>): Promise<boolean> {
  return Boolean(await evaluate(spec.when!, cmd, b));
}

/** The bytes a surface command writes (`commands.<type>.write`); undefined when the template produced none. */
export async function renderCommandWrite(spec: Pick<CompiledCommand, 'write'>, cmd: unknown, b: Record<string, unknown>): Promise<string | undefined> {
  const v = await evaluate(spec.write!, cmd, b);
  if (v === undefined || v === null || v === '') return undefined;
  return templateBytes(v);
}

/** The content type of reply bytes: the descriptor's, else JSON when they parse as JSON, else plain text. */
export function contentTypeOf(replies: Descriptor['replies'], body: string): string {
  if (replies.contentType) return replies.contentType;
  if (body.trim() === '') return 'text/plain; charset=utf-8';
  try {
    JSON.parse(body);
    return 'application/json';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}
