// Types for plan.mjs (plain JS so the Node shim never loads TypeScript).
export interface ShimHookPlan {
  bound_ms: number;
  /** The hook's fail-open bytes, when they are not the plan's `neutral`. */
  neutral?: string;
  /** The hook's fail-open exit code, when not 0. */
  fail_exit?: number;
  /** The hook's fail-open stream, when not stdout. */
  fail_stream?: 'stderr';
  /** Under a launch's gate (HOOKMAP_GATE=1): the refusing answer, whatever the failure (hook.fail_closed). */
  closed?: { bytes: string };
}
export interface ShimPlan {
  v: number;
  agent: string;
  name: string;
  descriptor: string;
  url: string;
  hook_field: string | null;
  path_hook: boolean;
  neutral: string;
  connect_ms: number;
  bound_ms: number;
  agent_timeout_ms: number;
  hooks: Record<string, ShimHookPlan>;
  /** The next-turn carrier's background waiter (`<shim> next-turn`): its bound, and how it delivers. */
  next_turn?: { bound_ms: number; exit: number; stream: 'stdout' | 'stderr'; when_env?: Record<string, string> };
}
export const SHIM_VERSION: number;
export const DEFAULT_URL: string;
export function descriptorHash(bytes: string | Uint8Array): string;
export function holdWindowMaxMs(hookTimeoutMs: number | undefined, marginMs: number | undefined): number;
export function baseUrl(env: NodeJS.ProcessEnv): string;
export interface PlanInput {
  vendor: string;
  name: string;
  hookTimeoutMs?: number;
  neutral: string;
  boundMs?: number;
  connectTimeoutMs?: number;
  marginMs?: number;
  timeoutUnit?: 's' | 'ms';
  timeouts: Record<string, number>;
  hooks: {
    name: string;
    holdTimeouts: (number | undefined)[];
    reply?: string;
    failOpen?: { reply?: string; exit: number; stream?: 'stdout' | 'stderr' };
    failClosed?: { reply: string };
  }[];
  hookName?: string;
  nextTurn?: { waitMs: number; exit: number; stream: 'stdout' | 'stderr'; whenEnv?: Record<string, string> };
}
export const NEXT_TURN_GRACE_MS: number;
export function planInputFromSpec(spec: unknown): PlanInput;
export function shimPlan(input: PlanInput, opts: { hash: string; url?: string }): ShimPlan;
export function neutralFor(plan: ShimPlan, hook: string | undefined): string;
export function failOpenFor(plan: ShimPlan, hook: string | undefined): { bytes: string; exit: number; stream: 'stdout' | 'stderr' };
export function closedFor(plan: ShimPlan, hook: string | undefined): { bytes: string; exit: number; stream: 'stdout' | 'stderr' } | undefined;
export function gated(env: NodeJS.ProcessEnv): boolean;
export function boundFor(plan: ShimPlan, hook: string | undefined): number;
export function endpointFor(plan: ShimPlan, base: string, hook: string | undefined): string;
export function hookmapHome(env: NodeJS.ProcessEnv): string;
export function shimPaths(agent: string, home: string): { dir: string; sh: string; table: string };
