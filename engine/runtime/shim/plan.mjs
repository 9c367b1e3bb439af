// The shim plan: everything a shim needs at firing time, computed once from
// a descriptor (the engine passes its compiled form; see PlanInput). Plain JS
// (no .ts) so the portable Node shim can compute it itself when no generated
// table exists; the sh generator and `hookmap setup` use the same function,
// so the two shims can never disagree about neutral bytes or bounds.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Bumped when the plan's shape or the generated shims change meaning. */
export const SHIM_VERSION = 1;
export const DEFAULT_URL = 'http://127.0.0.1:8787';

// Why these defaults: a non-held hook is answered by the daemon in
// milliseconds (map + log append), so 2 s already means "broken"; a hung
// daemon must not stall every tool call of the agent for its full timeout.
// Loopback connects are instant or refused, so 500 ms only ever trips on a
// wedged accept queue.
const DEFAULT_BOUND_MS = 2000;
const DEFAULT_CONNECT_MS = 500;
/** Held hooks wait for the daemon's own hold timeout plus this grace (its neutral answer must still reach us). */
const HOLD_GRACE_MS = 2000;
/** Assumed when a descriptor does not state the agent's own hook timeout. */
const ASSUMED_AGENT_TIMEOUT_MS = 60000;

/**
 * The longest hold window an agent allows: a held hook's shim waits until
 * just below the agent's own hook timeout (less the margin), and the hold
 * must fail open, its neutral answer delivered, before that (less the grace).
 * The daemon's window (the descriptor's hold timeout_ms, or the operator's
 * attention_timeout_ms) is at most this.
 */
export function holdWindowMaxMs(hookTimeoutMs, marginMs) {
  const t = hookTimeoutMs ?? ASSUMED_AGENT_TIMEOUT_MS;
  const ceiling = Math.max(1, t - (marginMs ?? Math.min(2000, Math.floor(t / 4))));
  return Math.max(1, ceiling - HOLD_GRACE_MS);
}

/** SHA-256 of the descriptor file's bytes (hex, first 16 bytes): the stamp doctor compares. */
export function descriptorHash(bytes) {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}

/** The daemon base URL: HOOKMAP_URL, else the default; never a trailing slash. */
export function baseUrl(env) {
  return (env.HOOKMAP_URL || DEFAULT_URL).replace(/\/+$/, '');
}

function holdsOf(hook) {
  if (!hook || !hook.hold) return [];
  return Array.isArray(hook.hold) ? hook.hold : [hook.hold];
}

/**
 * What a plan is computed from. The engine builds it from the compiled
 * descriptor (engine/runtime/shim/generate.ts); only the portable Node shim, which
 * runs without the engine, builds it from the YAML itself (planInputFromSpec).
 * @typedef {{ vendor: string, name: string, hookTimeoutMs?: number, neutral: string,
 *   boundMs?: number, connectTimeoutMs?: number, marginMs?: number,
 *   timeoutUnit?: 's' | 'ms', timeouts: Record<string, number>,
 *   hooks: { name: string, holdTimeouts: (number | undefined)[], reply?: string,
 *     failOpen?: { reply?: string, exit: number, stream?: 'stdout' | 'stderr' },
 *     failClosed?: { reply: string, exit?: number, stream?: 'stdout' | 'stderr' } }[],
 *   hookName?: string }} PlanInput
 */

/** The plan input from a descriptor's raw YAML object (the Node shim's fallback only). */
export function planInputFromSpec(spec) {
  const setup = spec.setup ?? {};
  const shim = spec.shim ?? {};
  return {
    vendor: spec.vendor,
    name: spec.name,
    hookTimeoutMs: spec.surface?.hook_timeout_ms,
    neutral: spec.replies?.neutral ?? '',
    boundMs: shim.bound_ms,
    connectTimeoutMs: shim.connect_timeout_ms,
    marginMs: shim.margin_ms,
    timeoutUnit: typeof setup.timeout_unit === 'string' ? setup.timeout_unit : setup.timeout_unit?.command,
    timeouts: setup.timeouts ?? {},
    hooks: Object.entries(spec.hooks ?? {}).map(([name, hook]) => ({
      name,
      holdTimeouts: holdsOf(hook).map((h) => h.timeout_ms),
      reply: typeof hook?.reply === 'string' ? hook.reply : undefined,
      failOpen: failOpenOfSpec(hook?.fail_open),
      failClosed: failClosedOfSpec(hook?.fail_closed),
    })),
    // `=field` (a marked expression, docs/expressions.md): the payload names its hook there
    hookName: typeof spec.surface?.hook_name === 'string' ? spec.surface.hook_name : undefined,
    nextTurn: nextTurnOfSpec(spec),
  };
}

/** A hook's `fail_open` as the plan needs it (anything malformed: none; the compiler refuses it anyway). */
function failOpenOfSpec(fo) {
  if (!fo || !Number.isInteger(fo.exit) || fo.exit < 0 || fo.exit > 255) return undefined;
  return { reply: typeof fo.reply === 'string' ? fo.reply : undefined, exit: fo.exit, stream: fo.stream === 'stderr' ? 'stderr' : undefined };
}

/** A hook's `fail_closed` as the plan needs it (anything malformed: none; the compiler refuses it anyway). */
function failClosedOfSpec(fc) {
  return fc && typeof fc.reply === 'string' && fc.reply ? { reply: fc.reply } : undefined;
}

/** The next-turn carrier a descriptor's commands declare (commands.<type>.next_turn), as the plan needs it. */
function nextTurnOfSpec(spec) {
  for (const c of Object.values(spec.commands ?? {})) {
    const nt = c?.next_turn;
    if (nt && typeof nt.wait_ms === 'number' && typeof nt.exit === 'number')
      return { waitMs: nt.wait_ms, exit: nt.exit, stream: nt.stream, whenEnv: nt.when_env };
  }
  return undefined;
}

/** How long a next-turn waiter's request may last: the daemon releases it at wait_ms, this grace later the shim gives up. */
export const NEXT_TURN_GRACE_MS = 5000;

/**
 * @param {PlanInput} input
 * @param opts { hash: descriptor hash, url?: baked default base URL }
 */
export function shimPlan(input, opts) {
  const agentTimeout = input.hookTimeoutMs ?? ASSUMED_AGENT_TIMEOUT_MS;
  // Stay clearly below the agent's own timeout: the agent must always get
  // our neutral answer, never its own "hook timed out" path.
  const ceilingOf = (timeout) => Math.max(1, timeout - (input.marginMs ?? Math.min(2000, Math.floor(timeout / 4))));
  const ceiling = ceilingOf(agentTimeout);
  const plain = Math.min(input.boundMs ?? DEFAULT_BOUND_MS, ceiling);
  const neutral = input.neutral ?? '';
  // `hookmap setup` may register a shorter timeout than the agent's default
  // for some hooks (setup.timeouts, in setup.timeout_unit): that one binds.
  const unit = input.timeoutUnit;
  const registered = (name) => {
    const v = input.timeouts?.[name] ?? input.timeouts?.default;
    return typeof v === 'number' && unit ? (unit === 's' ? v * 1000 : v) : undefined;
  };
  const hooks = {};
  for (const hook of input.hooks) {
    const own = registered(hook.name);
    const hookCeiling = own === undefined ? ceiling : ceilingOf(own);
    let bound = Math.min(plain, hookCeiling);
    if (hook.holdTimeouts.length) {
      // A held hook keeps the response open until a human answers or the
      // daemon's hold times out; cutting it earlier would drop the answer.
      // The window is the daemon's (an operator may lengthen it up to
      // holdWindowMaxMs for answers from a phone minutes later), so the shim
      // waits as long as the agent allows; the daemon answers neutral at the
      // window's end, and a daemon gone mid-hold closes the connection at once.
      bound = hookCeiling;
    }
    const entry = { bound_ms: bound };
    // what the shim answers when hookmap does not: the hook's fail_open, else its neutral bytes on stdout, exit 0
    const failBytes = hook.failOpen?.reply ?? hook.reply;
    if (typeof failBytes === 'string' && failBytes !== neutral) entry.neutral = failBytes;
    if (hook.failOpen?.exit) entry.fail_exit = hook.failOpen.exit;
    if (hook.failOpen?.stream === 'stderr') entry.fail_stream = 'stderr';
    // under a launch's gate (HOOKMAP_GATE): the refusing answer instead, whatever the failure
    if (hook.failClosed) entry.closed = { bytes: hook.failClosed.reply };
    hooks[hook.name] = entry;
  }
  const hookName = typeof input.hookName === 'string' ? input.hookName.replace(/^=/, '').trim() : undefined;
  return {
    v: SHIM_VERSION,
    agent: input.vendor,
    name: input.name,
    descriptor: opts.hash,
    url: (opts.url ?? DEFAULT_URL).replace(/\/+$/, ''),
    // A plain field name can be read without JSONata (the Node shim reads it
    // when the registration did not pass the hook); anything else cannot.
    hook_field: hookName && /^[A-Za-z_][A-Za-z0-9_]*$/.test(hookName) ? hookName : null,
    // No hook name in the payload: the URL path must carry it.
    path_hook: !hookName,
    neutral,
    connect_ms: Math.min(input.connectTimeoutMs ?? DEFAULT_CONNECT_MS, plain),
    bound_ms: plain,
    agent_timeout_ms: agentTimeout,
    hooks,
    ...(input.nextTurn
      ? {
          next_turn: {
            bound_ms: input.nextTurn.waitMs + NEXT_TURN_GRACE_MS,
            exit: input.nextTurn.exit,
            stream: input.nextTurn.stream,
            ...(input.nextTurn.whenEnv ? { when_env: { ...input.nextTurn.whenEnv } } : {}),
          },
        }
      : {}),
  };
}

/** Neutral bytes for one hook (or the default when the hook is unknown): what its shim answers when hookmap does not. */
export function neutralFor(plan, hook) {
  const h = hook && Object.hasOwn(plan.hooks, hook) ? plan.hooks[hook] : undefined;
  return h?.neutral ?? plan.neutral;
}

/** A hook's fail-open answer: its bytes, exit code (default 0) and stream (default stdout). */
export function failOpenFor(plan, hook) {
  const h = hook && Object.hasOwn(plan.hooks, hook) ? plan.hooks[hook] : undefined;
  const exit = Number.isInteger(h?.fail_exit) && h.fail_exit > 0 && h.fail_exit < 256 ? h.fail_exit : 0;
  return { bytes: h?.neutral ?? plan.neutral, exit, stream: h?.fail_stream === 'stderr' ? 'stderr' : 'stdout' };
}

/** Under a launch's gate: a hook's refusing answer (its bytes on stdout, exit 0), or undefined when it has none. */
export function closedFor(plan, hook) {
  const c = hook && Object.hasOwn(plan.hooks, hook) ? plan.hooks[hook].closed : undefined;
  return c && typeof c.bytes === 'string' ? { bytes: c.bytes, exit: 0, stream: 'stdout' } : undefined;
}

/** The launch's gate is on for this firing (`hookmap run` set HOOKMAP_GATE=1 in the agent's environment). */
export function gated(env) {
  return env.HOOKMAP_GATE === '1';
}

/** The total bound for one hook's firing. */
export function boundFor(plan, hook) {
  const h = hook && Object.hasOwn(plan.hooks, hook) ? plan.hooks[hook] : undefined;
  return h?.bound_ms ?? plan.bound_ms;
}

/** The daemon endpoint for one firing. */
export function endpointFor(plan, base, hook) {
  const root = `${base}/hooks/${encodeURIComponent(plan.agent)}`;
  return plan.path_hook && hook ? `${root}/${encodeURIComponent(hook)}` : root;
}

/** hookmap's own folder: $HOOKMAP_HOME, default ~/.hookmap (shims/, logs/). */
export function hookmapHome(env) {
  return env.HOOKMAP_HOME || join(homedir(), '.hookmap');
}

/** The generated shims of one agent under a hookmap home: the sh script and the Node shim's table. */
export function shimPaths(agent, home) {
  const dir = join(home, 'shims');
  return { dir, sh: join(dir, `${agent}.sh`), table: join(dir, `${agent}.json`) };
}
