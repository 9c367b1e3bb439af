// The descriptor as compiled (schemas/descriptor.schema.json): every
// expression parsed once at load, every block typed. Nothing downstream
// (mapper, daemon, setup, shims, plugin generation, check, doctor, docs)
// reads the YAML again; the shapes of the data blocks are the generated
// schema types (engine/core/generated/descriptor-types.ts).
import type { CaptureLevel, Severity } from '../aep/schemas.ts';
import type { CompiledTranscript } from './transcript-types.ts';
export type { CompiledImport, CompiledTranscript } from './transcript-types.ts';
import type { Expr } from '../expr/compile.ts';
import type { CapabilityState } from '../capabilities/vocabulary.ts';
import type { HookmapDescriptor, Plugin } from '../generated/descriptor-types.ts';
import type { AgentOption } from './options.ts';
import type { SetupSpec } from './setup-spec.ts';
import type { LimitSign, WaitingSign } from './waiting.ts';
import type { OptionEffect } from '../kernel/option-effects.ts';

export type { SetupSpec } from './setup-spec.ts';
export type { Plugin as PluginSpec } from '../generated/descriptor-types.ts';
export type Provenance = NonNullable<HookmapDescriptor['provenance']>;
export type LaunchSpec = NonNullable<HookmapDescriptor['launch']>;

/** Shim bounds and the generated in-process plugin (schema `shim`). */
export interface ShimSpec {
  boundMs?: number;
  connectTimeoutMs?: number;
  marginMs?: number;
  plugin?: Plugin;
}

export interface CompiledEmit {
  /** The AEP type (always literal). */
  type: string;
  /** The type as written, for docs (the fallback's may be an expression). */
  typeText: string;
  /** The `when` condition as written, for docs. */
  whenText?: string;
  /** One expression yielding {type?, subject?, step?, cause?, data?, standins?}, or undefined when `when` is false. */
  expr: Expr;
  run?: 'open' | 'close' | 'none';
  /** With run: open, the run's id (e.g. the wire's own request id); absent: minted. */
  runId?: Expr;
  sessionEnd?: boolean;
  severity?: Severity;
  gates?: Record<string, CaptureLevel>;
  capture?: CaptureLevel;
  on?: 'added' | 'entered' | 'removed' | 'changed';
  /**
   * The emit's `when`, compiled on its own (JSONata truth): the event is drafted only when it holds; a snapshot
   * `entered` emit also reads it against the previous item.
   */
  whenExpr?: Expr;
  path: string;
}

/** The stream carrying a command hook's reply bytes. */
export type Stream = 'stdout' | 'stderr';

/** How a reply reaches a command hook (schema `replyShape`): absent parts are the hook's, else the descriptor's. */
export interface ReplyShape {
  exit?: number;
  stream?: Stream;
}

/** Under a launch's gate (HOOKMAP_GATE): the refusing answer of the shim and of an unanswered hold (schema `hook.fail_closed`). */
export interface FailClosed {
  reply: string;
}

/** What a shim answers when hookmap is down, slow or wrong (schema `hook.fail_open`); absent: the neutral bytes, stdout, exit 0. */
export interface FailOpen {
  reply?: string;
  exit: number;
  stream?: Stream;
}

export interface CompiledHold {
  kind: 'permission' | 'form' | 'gate';
  when?: Expr;
  /** As written, for docs. */
  whenText?: string;
  /** The decision templates as written (literal YAML values and `=expressions`), for docs. */
  decisionTexts: Map<string, unknown>;
  timeoutMs?: number;
  key?: Expr;
  decisions: Map<string, Expr>;
  requestType: string;
  outcome: CompiledEmit[];
  /** What answer rules read of the request (schemas `hold.match`), each over the payload. */
  match?: HoldMatch;
  /** Exit code and stream per decision name, or `timeout` (schema `hold.shape`). */
  shapes?: Map<string, ReplyShape>;
}

/** The expressions of a hold's `match` block (docs/rules.md). */
export interface HoldMatch {
  tool?: Expr;
  command?: Expr;
  paths?: Expr;
  cwd?: Expr;
  mcpServer?: Expr;
  mcpTool?: Expr;
}

export interface CompiledHook {
  name: string;
  summary?: string;
  emit: CompiledEmit[];
  lookups: { table: string; key: Expr; as: string; consume: boolean }[];
  stores: { table: string; key: Expr; value: Expr; when?: Expr; ttlMs?: number }[];
  snapshot?: { name: string; items: Expr; id: Expr; emit: CompiledEmit[] };
  suppress?: { key: Expr; windowMs?: number; when?: Expr };
  holds: CompiledHold[];
  settle?: { key: Expr; as: 'dismissed' | 'oob'; answer?: Expr };
  deviation?: string;
  reply?: string;
  /** The exit code and stream of the hook's neutral reply (schema `hook.exit`, `hook.stream`). */
  shape?: ReplyShape;
  /** The shim's own answer when hookmap is down, slow or wrong (schema `hook.fail_open`). */
  failOpen?: FailOpen;
  /** Under a launch's gate: the answer that refuses the call, wherever hookmap does not allow it (schema `hook.fail_closed`). */
  failClosed?: FailClosed;
  http?: boolean;
  register: boolean;
  /** What this hook's reply can decide besides its neutral bytes (engine/core/map/decide.ts), by verb. */
  decide: Map<Verb, CompiledDecide>;
}

/**
 * The verbs a hook reply can carry (AEP-0004 commands delivered on the next
 * eligible reply, and operator policy): add context for the model, cancel
 * (stop) the running turn, block the moment, continue instead of stopping.
 */
export type Verb = 'context' | 'cancel' | 'block' | 'continue';
export const VERBS: readonly Verb[] = ['context', 'cancel', 'block', 'continue'];

/** One `decide.<verb>` entry of a hook: the reply that carries the verb. */
export interface CompiledDecide {
  verb: Verb;
  /** The reply bytes (a string result is the bytes, anything else its JSON), over the payload and $text / $reason. */
  reply: Expr;
  /** The verb applies to this firing only when this holds. */
  when?: Expr;
  /** Replaces the hook's own emits when the verb applies (e.g. a continued Stop does not finish the run). */
  emit?: CompiledEmit[];
  /** Exit code of the reply (default: the descriptor's). */
  exit?: number;
  /** Stream of the reply (default: the descriptor's). */
  stream?: Stream;
  /** The reply template as written, for docs. */
  replyText: unknown;
  /** The `when` condition as written, for docs. */
  whenText?: string;
}

/** An otlp-receiver surface's exporter settings (`hookmap setup <agent> --otel`), literal data. */
export interface OtelExport {
  format: 'toml' | 'print';
  file?: string;
  table?: string;
  block: string;
  notes: string[];
  docs: string[];
}

/** A stream-subscriber surface: how the daemon attaches to one stream of an agent instance (all literal data). */
export interface CompiledStream {
  transport: 'websocket' | 'sse';
  path: string;
  query: Record<string, string>;
  resumeQuery?: Record<string, string>;
  cursor?: string[];
  dedupe?: string[];
  discover?: { path: string; items: string[]; id: string[]; next?: string[]; pageParam?: string; everyMs: number };
  auth: { firstMessage?: Record<string, unknown>; header: Record<string, string> };
  closeCodes: Record<string, 'auth' | 'gone' | 'busy'>;
}

/**
 * A command the descriptor accepts. Exactly one of: `write` (bytes written on
 * the surface, e.g. control.cancel as the agent's own cancel message) or
 * `deliver` (queued per session and carried by the next eligible hook reply
 * whose `decide` has the verb: steering as additional context, a cancel as
 * the reply that stops the turn).
 */
export interface CompiledCommand {
  type: string;
  summary?: string;
  /** Accepted only when this config key is true (an operator opt-in). */
  optIn?: string;
  /** Evaluated when the command arrives; false: refused with `refuse`. */
  when?: Expr;
  refuse?: string;
  /** The bytes written on the surface (a string result is the bytes, anything else its JSON). */
  write?: Expr;
  /** The verb the command is delivered as, on the next eligible hook reply. */
  deliver?: 'context' | 'cancel';
  /** deliver context: the longest instruction text the agent takes (characters); joined instructions stay within it. */
  maxChars?: number;
  /** deliver: queued commands per session (FIFO); past it the command is rejected `invalid` (queue-full). */
  queueCap: number;
  /** deliver context: the carrier that reaches an idle session (a background waiter, engine/runtime/daemon/next-turn.ts). */
  nextTurn?: NextTurnCarrier;
}

/** A command's next-turn carrier (the descriptor's `commands.<type>.next_turn`). */
export interface NextTurnCarrier {
  on: string[];
  optIn: string;
  register: Record<string, unknown>;
  waitMs: number;
  /** A shim carrier's exit code and stream (absent: a plugin carrier, shim.plugin.next_turn, calls the host instead). */
  exit?: number;
  stream?: 'stdout' | 'stderr';
  /** The hook environment's variables that must have these values for the waiter to wait (else it exits 0 at once). */
  whenEnv?: Record<string, string>;
  /** A hook (never registered) hookmap fires with the waiter's payload once the agent took the text: its rule notes the delivery. */
  wake?: string;
}

export type SensitiveAs = 'digest' | 'folder';

export interface CapabilityClaim {
  state: CapabilityState;
  why?: string;
  evidence?: string[];
  live?: string;
}

export interface Descriptor {
  file: string;
  /** The descriptor's id: its daemon, log folder, hook and receiver paths. */
  vendor: string;
  /** The AEP agent its events carry (the vendor unless the descriptor names another: a second channel of that agent). */
  agent: string;
  /** The pipeline it carries for its agent (otel), named in every source and in the namespace. */
  channel?: string;
  /** Its own types' prefix: x.<agent> or x.<agent>.<channel>. */
  namespace: string;
  name: string;
  surface: {
    kind: string;
    pin: string;
    docs?: string[];
    notes?: string;
    hookTimeoutMs?: number;
    hookNameText?: string;
    stream?: CompiledStream;
    export?: OtelExport;
  };
  /** The identity expressions as written, for docs and messages. */
  identityText: { session: string; run?: string };
  /** Ids that never leave the machine as written (schema `identity.sensitive`): a digest, or the folder's name. */
  sensitive?: { session?: SensitiveAs; run?: SensitiveAs };
  hookName?: Expr;
  session: Expr;
  run?: Expr;
  runs: 'vendor' | 'synthesized' | 'none';
  firstSight?: { emit: CompiledEmit[]; except: Set<string> };
  capture: { ceiling: CaptureLevel; overrides: Record<string, CaptureLevel>; gates: Record<string, CaptureLevel>; secretNames: string[] };
  /** The options' defaults, by key ($config before overrides). */
  config: Record<string, unknown>;
  /** The options with what they do and the environment variable overriding each. */
  options: AgentOption[];
  vars: [string, Expr][];
  hooks: Map<string, CompiledHook>;
  fallback?: { type: Expr; data?: Expr; subject?: Expr; severity?: Severity; typeText: string; dataText?: unknown };
  replies: { neutral: string; exitCode: number; contentType?: string; stream?: Stream };
  capabilities: Map<string, CapabilityClaim>;
  posture: 'control' | 'observe-opt-in' | 'observe-only';
  deviations: string[];
  absent: string[];
  /** Tools that only read, search or list (the `read-only` rules preset). */
  readTools: string[];
  /** What the agent's own answer option ids mean (schema `option_effects`; the AEP convention ids need no entry). */
  optionEffects: Readonly<Record<string, OptionEffect>>;
  /** Commands answered by writing on the surface, by command type. */
  commands: Map<string, CompiledCommand>;
  waiting: WaitingSign[]; // firings in which the agent waits for a person at its own terminal (schema `waiting`)
  limits: LimitSign[]; // firings in which the agent says it stopped on a rate or usage limit (schema `limits`)
  /** Attribution rules: firings another agent delivered through this agent's hooks (see the schema's `defer`). */
  defer: { to: string; when: Expr; why?: string }[];
  /** How `hookmap setup` wires the agent and `hookmap doctor` finds it; undefined: no way to wire it. */
  setup?: SetupSpec;
  shim: ShimSpec;
  provenance: Provenance;
  /** Token usage read from the agent's own transcript, when its hooks carry none. */
  transcript?: CompiledTranscript;
  /** How `hookmap run` starts and continues the agent (literal argv data). */
  launch?: LaunchSpec;
}

/** The command that declares the descriptor's next-turn carrier (compile allows one at most), if any. */
export function nextTurnCommand(d: Pick<Descriptor, 'commands'>): CompiledCommand | undefined {
  return [...d.commands.values()].find((c) => c.nextTurn);
}
