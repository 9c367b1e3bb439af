// A hook's reply shape (docs/authoring.md, "Agents that read an exit code"):
// the exit code and stream of its neutral reply, of each held decision (and
// of a hold that timed out), and the shim's own fail-open answer. Compiled
// beside the hook (build.ts), and refused when the fail-open answer would be
// one of the hook's allowing decisions: an agent whose exit 0 means "allow"
// must fail open to its own dialog, never to an approval.
import { isMarked } from '../expr/marked.ts';
import type { Expressions, Path } from './expressions.ts';
import type { Hold, Hook, HookmapDescriptor } from '../generated/descriptor-types.ts';
import type { CompiledHook, ReplyShape, Stream } from './types.ts';

/** A hold's decision that means "go ahead" (allow, allow_always, allow_session, ...). */
export const ALLOWING = /^allow(_|$)/;
/** The `hold.shape` key that is no decision: the shape of the neutral reply a hold gives when nobody answered in time. */
export const TIMEOUT_SHAPE = 'timeout';

/** A template's bytes when it is literal throughout (no `=expression` anywhere), else undefined. */
export function literalBytes(v: unknown): string | undefined {
  const literal = (x: unknown): boolean =>
    isMarked(x) ? false : x && typeof x === 'object' ? Object.values(x as Record<string, unknown>).every(literal) : true;
  if (v === undefined || !literal(v)) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function shapeOf(s: { exit?: number; stream?: Stream } | undefined): ReplyShape | undefined {
  if (!s || (s.exit === undefined && s.stream === undefined)) return undefined;
  return { ...(s.exit === undefined ? {} : { exit: s.exit }), ...(s.stream === undefined ? {} : { stream: s.stream }) };
}

/**
 * The hook's reply shapes onto its compiled form (`hook.shape`, `hook.failOpen`, each hold's `shapes`), and the
 * checks: a shape names a decision of its hold (or `timeout`); the fail-open answer is none of the allowing decisions.
 */
export function compileReplyShape(x: Expressions, p: Path, h: Hook, hook: CompiledHook, spec: Pick<HookmapDescriptor, 'replies' | 'shim'>): void {
  const replies: { neutral?: string; exit_code?: number; stream?: Stream } = spec.replies ?? {};
  const fc = h.fail_closed;
  if (fc) {
    hook.failClosed = { ...fc };
    if (fc.reply === (h.reply ?? replies.neutral ?? ''))
      x.err(
        'fail-closed-neutral',
        [...p, 'fail_closed'],
        "the refusing answer is this hook's neutral reply: under the gate a call nobody allowed would go ahead",
      );
    if ((h.exit ?? replies.exit_code ?? 0) !== 0 || (h.stream ?? replies.stream ?? 'stdout') !== 'stdout')
      x.err('schema-violation', [...p, 'fail_closed'], 'a refusing answer is bytes on stdout with exit 0: this hook replies with an exit code or on stderr', {
        key: true,
      });
  }
  // an in-process plugin answers its host with a value, never an exit code or a stream: a shape there would be a promise nobody keeps
  if (spec.shim?.plugin) {
    const holds: Hold[] = h.hold === undefined ? [] : Array.isArray(h.hold) ? h.hold : [h.hold];
    const where = (['exit', 'stream', 'fail_open'] as const).filter((k) => h[k] !== undefined).map((k): Path => [...p, k]);
    holds.forEach((hd, i) => hd.shape && where.push([...(Array.isArray(h.hold) ? [...p, 'hold', i] : [...p, 'hold']), 'shape']));
    for (const at of where)
      x.err('schema-violation', at, 'a hook of a descriptor wired by its generated plugin (shim.plugin) has no exit code or stream: remove it', { key: true });
    return;
  }
  const own = shapeOf(h);
  if (own) hook.shape = own;
  if (h.fail_open) hook.failOpen = { ...h.fail_open };

  const holds: Hold[] = h.hold === undefined ? [] : Array.isArray(h.hold) ? h.hold : [h.hold];
  const fo = h.fail_open;
  const failBytes = fo?.reply ?? h.reply ?? replies.neutral ?? '';
  const failStream = fo?.stream ?? 'stdout';
  holds.forEach((hd, i) => {
    const hp: Path = Array.isArray(h.hold) ? [...p, 'hold', i] : [...p, 'hold'];
    const shapes = new Map<string, ReplyShape>();
    for (const [name, s] of Object.entries(hd.shape ?? {})) {
      if (name !== TIMEOUT_SHAPE && !Object.hasOwn(hd.decisions ?? {}, name)) {
        const known = [...Object.keys(hd.decisions ?? {}), TIMEOUT_SHAPE].map((n) => `\`${n}\``).join(', ');
        x.err('unknown-reference', [...hp, 'shape', name], `'${name}' is not a decision of this hold (its decisions, and timeout: ${known})`, { key: true });
      }
      const shape = shapeOf(s);
      if (shape) shapes.set(name, shape);
    }
    if (shapes.size) hook.holds[i]!.shapes = shapes;
    // the fail-open answer must never be an approval: same bytes (where a stream can tell them apart, same stream) and same exit code.
    // A permission's allow approves; a gate's allow is "no objection" (the agent's own flow still decides), as silence is.
    if (hd.kind !== 'permission') return;
    for (const [name, tpl] of Object.entries(hd.decisions ?? {})) {
      if (!ALLOWING.test(name)) continue;
      const bytes = literalBytes(tpl);
      if (bytes === undefined || bytes !== failBytes) continue;
      const exit = shapes.get(name)?.exit ?? h.exit ?? replies.exit_code ?? 0;
      const stream = shapes.get(name)?.stream ?? h.stream ?? replies.stream ?? 'stdout';
      if (exit !== (fo?.exit ?? 0) || (bytes !== '' && stream !== failStream)) continue;
      x.err(
        'fail-open-allows',
        fo ? [...p, 'fail_open'] : [...hp, 'decisions', name],
        `the answer a shim gives when hookmap is down, slow or wrong (${JSON.stringify(failBytes.slice(0, 40))}, exit ${fo?.exit ?? 0}) ` +
          `is this hook's '${name}' decision: the agent would approve whatever hookmap did not see. ${fo ? 'Change' : 'Declare'} ` +
          `hooks.${p[1]}.fail_open: the reply that leaves the choice to the agent's own dialog (e.g. exit 1), or give '${name}' its own exit code (hold.shape)`,
        { key: !fo },
      );
    }
  });
}
