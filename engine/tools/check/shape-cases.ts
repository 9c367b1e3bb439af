// What `hookmap check` proves of a hook with a reply shape (an exit code or
// stream of its own, per-decision shapes, a fail-open reply): its generated
// sh shim and its Node shim, each against a stand-in daemon that is up (one
// case per shape the daemon can answer: the neutral reply, each shaped
// decision, a timed-out hold, each decide verb with a shape of its own), down,
// hung and erroring (the fail-open reply, which must never be an allowing
// decision: the compiler refuses that). Derived from the descriptor, so an
// author's YAML alone is proven; hooks without a shape are proven by the
// agent's own shim fixtures as before.
import type { Descriptor, CompiledHook, ReplyShape } from '../../core/descriptor/types.ts';
import type { DescriptorError } from '../../core/descriptor/errors.ts';
import { TIMEOUT_SHAPE } from '../../core/descriptor/reply-shape.ts';
import { ShimRun, type ShimCase, type ShimRunEnv } from '../cases/run-shim.ts';
import { FAIL_OPEN_MOODS } from '../cases/shim-daemon.ts';
import { neutralShape, shaped, type Shape } from '../../core/map/reply-shape.ts';
import { planFor } from '../../runtime/shim/generate.ts';
import { DEFAULT_URL, failOpenFor } from '../../runtime/shim/plan.mjs';
import type { CaseResult } from './check-agent.ts';

/** A hook with a shape of its own: anything but the descriptor-wide exit code on stdout and neutral bytes, exit 0, when hookmap is down. */
export function shapedHook(h: CompiledHook): boolean {
  return !!(h.shape || h.failOpen || h.holds.some((x) => x.shapes?.size) || [...h.decide.values()].some((e) => e.stream !== undefined));
}

/** The reply shapes a daemon can answer `h` with, by what answers (neutral, hold decisions, timeout, decide verbs). */
function upShapes(d: Descriptor, h: CompiledHook): [string, Shape][] {
  const base = neutralShape(d, h.name);
  const out: [string, Shape][] = [['neutral', base]];
  for (const hold of h.holds) for (const [n, s] of hold.shapes ?? []) out.push([n === TIMEOUT_SHAPE ? 'timed out' : `decision ${n}`, shaped(base, s)]);
  for (const [verb, e] of h.decide) if (e.exit !== undefined || e.stream) out.push([`decide ${verb}`, shaped(base, e as ReplyShape)]);
  return out;
}

/** The derived shim cases of one hook, each with the bytes it expects on each stream. */
export function shapeCases(d: Descriptor, h: CompiledHook): ShimCase[] {
  const plan = planFor(d, { home: '', url: DEFAULT_URL });
  const fo = failOpenFor(plan, h.name);
  const cases: ShimCase[] = [];
  for (const shim of ['sh', 'node'] as const) {
    for (const [what, s] of upShapes(d, h)) {
      const body = `hookmap check: ${what}\n`;
      const [stdout, stderr] = s.stream === 'stderr' ? ['', body] : [body, ''];
      const reply = { body, exit: s.exit, ...(s.stream ? { stream: s.stream } : {}) };
      cases.push({ name: `${h.name}: ${shim} shim, daemon up, ${what}`, shim, hook: h.name, stdin: '{}', daemon: 'up', reply, stdout, stderr, exit: s.exit });
    }
    for (const mood of FAIL_OPEN_MOODS) {
      const [stdout, stderr] = fo.stream === 'stderr' ? ['', fo.bytes] : [fo.bytes, ''];
      cases.push({
        name: `${h.name}: ${shim} shim, daemon ${mood}, fail-open reply`,
        shim,
        hook: h.name,
        stdin: '{}',
        daemon: mood,
        stdout,
        stderr,
        exit: fo.exit,
      });
    }
  }
  return cases;
}

/** Run the derived cases of every shaped hook a command shim serves; a failure is located at the hook. */
export async function checkReplyShapes(
  d: Descriptor,
  env: ShimRunEnv,
  locate: (path: (string | number)[]) => { line: number; col: number },
  errors: DescriptorError[],
  cases: CaseResult[],
): Promise<void> {
  // an in-process plugin has no exit code or stream; a tee answers on the agent's own pipe; an HTTP hook has no shim
  if (d.shim.plugin || d.surface.kind === 'stdio-tee') return;
  const hooks = [...d.hooks.values()].filter((h) => h.register && !h.http && shapedHook(h));
  if (!hooks.length) return;
  const run = new ShimRun(d, env);
  try {
    for (const h of hooks) {
      for (const c of shapeCases(d, h)) {
        const out = await run.run(c);
        const at = locate(['hooks', h.name]);
        for (const f of out.failures)
          errors.push({ code: 'fixture-mismatch', file: d.file, line: at.line, col: at.col, path: `hooks.${h.name}`, message: `reply shape, ${c.name}: ${f}` });
        cases.push({ file: d.file, name: `reply shape, ${c.name}`, kind: 'shim', passed: !out.failures.length && !out.notRun, notRun: out.notRun });
      }
    }
  } finally {
    run.close();
  }
}
