// Decisions a hook reply can carry besides its neutral bytes: the verbs of a
// hook's `decide` block (context, cancel, block, continue), chosen for one
// firing by a Decider (the daemon's queue of delivered commands and the
// operator's policy: engine/daemon/instructions.ts) and rendered into the exact
// reply bytes by the descriptor's template. AEP-0004 §5 (commands delivered
// as outcomes), the steering design record (eligibility: a context-accepting
// moment whose reply would otherwise be neutral; never a held loop's reply).
import type { CaptureLevel, Severity } from '../aep/schemas.ts';
import type { CompiledDecide, CompiledHook, Verb } from '../descriptor/types.ts';
import { evaluate } from '../expr/compile.ts';

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

export const RUN_TERMINALS = new Set(['run.finished', 'run.failed', 'run.cancelled']);

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
  return typeof v === 'string' ? v : JSON.stringify(v);
}
