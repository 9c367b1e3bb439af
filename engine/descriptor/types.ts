// The descriptor as compiled: every expression parsed once at load.
import type { CaptureLevel, Severity } from '../aep/schemas.ts';
import type { Expr } from '../expr/compile.ts';
import type { CapabilityState } from '../capabilities/vocabulary.ts';

export interface CompiledEmit {
  /** Static type, or undefined when `typeExpr` computes it. */
  type?: string;
  /** The emit as written, for docs. */
  typeText: string;
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
  /** Snapshot `entered`: the condition alone, evaluated against the previous item. */
  whenExpr?: Expr;
  path: string;
}

export interface CompiledHold {
  kind: 'permission' | 'form' | 'gate';
  when?: Expr;
  timeoutMs?: number;
  key?: Expr;
  decisions: Map<string, Expr>;
  requestType: string;
  outcome: CompiledEmit[];
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
  http?: boolean;
  register: boolean;
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

/** A command the descriptor answers by writing bytes on its surface (e.g. control.cancel as the agent's own cancel message). */
export interface CompiledCommand {
  type: string;
  summary?: string;
  /** Accepted only when this config key is true (an operator opt-in). */
  optIn?: string;
  /** Evaluated when the command arrives; false: refused with `refuse`. */
  when?: Expr;
  refuse?: string;
  /** The bytes written on the surface (a string result is the bytes, anything else its JSON). */
  write: Expr;
}

export interface CapabilityClaim { state: CapabilityState; why?: string; evidence?: string[]; live?: string }

export interface Descriptor {
  file: string;
  vendor: string;
  name: string;
  /** The validated YAML, frozen: docs and setup read it. */
  spec: any;
  surface: { kind: string; pin: string; docs?: string[]; hookTimeoutMs?: number; hookNameText?: string; stream?: CompiledStream };
  hookName?: Expr;
  session: Expr;
  run?: Expr;
  runs: 'vendor' | 'synthesized' | 'none';
  firstSight?: { emit: CompiledEmit[]; except: Set<string> };
  capture: { ceiling: CaptureLevel; overrides: Record<string, CaptureLevel>; gates: Record<string, CaptureLevel>; secretNames: string[] };
  config: Record<string, unknown>;
  vars: [string, Expr][];
  hooks: Map<string, CompiledHook>;
  fallback?: { type: Expr; data?: Expr; subject?: Expr; severity?: Severity; typeText: string };
  replies: { neutral: string; exitCode: number; contentType?: string };
  capabilities: Map<string, CapabilityClaim>;
  posture: 'control' | 'observe-opt-in' | 'observe-only';
  deviations: string[];
  absent: string[];
  /** Commands answered by writing on the surface, by command type. */
  commands: Map<string, CompiledCommand>;
  /** Attribution rules: firings another agent delivered through this agent's hooks (see the schema's `defer`). */
  defer: { to: string; when: Expr; why?: string }[];
}
