// The argv of one start or continue, built from a descriptor's `launch` block
// (schemas/descriptor.schema.json): literal elements, and an element that is
// exactly `{prompt}`, `{id}`, `{dir}` or `{value}` replaced whole by that one
// value, and `{options}` where the chosen options' fragments go (else first). Nothing is parsed by a shell and nothing is substituted inside a
// longer element, so a prompt of `$(touch pwned)` stays that text. A value
// that would read as an option (a leading `-`) is refused, as is an option
// the descriptor does not list or a value outside its list or pattern.
import type { LaunchSpec } from '../../core/descriptor/types.ts';

export type LaunchMode = 'headless' | 'tmux' | 'resume';

export class LaunchError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 422,
  ) {
    super(message);
  }
}

export interface ArgvRequest {
  mode: LaunchMode;
  prompt: string;
  dir: string;
  /** The agent's own session id (resume), or the id hookmap assigns (session: assigned). */
  id?: string;
  options?: Readonly<Record<string, string>>;
}

export const MAX_PROMPT = 16_000;
const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function fill(argv: readonly string[], values: Readonly<Record<string, string | undefined>>): string[] {
  return argv.map((el) => {
    const m = /^\{(prompt|id|dir|value)\}$/.exec(el);
    if (!m) return el;
    const v = values[m[1]];
    if (v === undefined) throw new LaunchError('bad-descriptor', `the launch argv names {${m[1]}}, which this run has no value for`, 500);
    return v;
  });
}

/** The option fragments, each value checked against the descriptor's closed list or pattern. */
export function optionArgv(spec: LaunchSpec, chosen: Readonly<Record<string, string>> = {}): string[] {
  const out: string[] = [];
  const allowed = spec.options ?? {};
  for (const [name, value] of Object.entries(chosen)) {
    const o = Object.hasOwn(allowed, name) ? allowed[name] : undefined;
    if (!o) {
      const names = Object.keys(allowed);
      throw new LaunchError('option-refused', `no option ${name} (this agent takes ${names.length ? names.join(', ') : 'none'})`);
    }
    if (typeof value !== 'string' || !value || value.startsWith('-')) throw new LaunchError('option-refused', `${name}: not a value`);
    const ok = o.values ? o.values.includes(value) : o.pattern ? new RegExp(`^(?:${o.pattern})$`).test(value) : false;
    if (!ok) throw new LaunchError('option-refused', `${name} ${JSON.stringify(value)} is not allowed${o.values ? ` (one of ${o.values.join(', ')})` : ''}`);
    out.push(...fill(o.argv, { value }));
  }
  return out;
}

/**
 * The program and its arguments for one run; throws LaunchError for anything the descriptor does not allow.
 * `gated`: a headless or continued run of an agent with a `launch.gate` (and no option that replaces it chosen)
 * has the gate's argv before the options, and must get HOOKMAP_GATE=1 (its tool hook then holds and fails closed).
 */
export function launchArgv(spec: LaunchSpec, r: ArgvRequest): { command: string; args: string[]; gated: boolean } {
  if (typeof r.prompt !== 'string' || !r.prompt.trim()) throw new LaunchError('bad-request', 'the prompt is empty', 400);
  if (r.prompt.length > MAX_PROMPT) throw new LaunchError('bad-request', `the prompt is longer than ${MAX_PROMPT} characters`, 400);
  if (/^\s*-/.test(r.prompt)) throw new LaunchError('bad-request', "a prompt may not start with '-' (the agent would read it as an option)", 400);
  if (r.id !== undefined && !ID.test(r.id)) throw new LaunchError('bad-request', 'not a session id', 400);
  const base = r.mode === 'resume' ? spec.resume : r.mode === 'tmux' ? spec.interactive : spec.headless;
  if (!base)
    throw new LaunchError('not-supported', r.mode === 'resume' ? 'this agent cannot continue a session from hookmap' : 'this agent has no attachable run');
  if (r.mode === 'resume' && r.options && Object.keys(r.options).length)
    throw new LaunchError('option-refused', 'a continued session keeps its own options: choose them at the start');
  const assign = spec.session === 'assigned' && r.mode !== 'resume' && spec.assign ? spec.assign : [];
  const values = { prompt: r.prompt, id: r.id, dir: r.dir };
  const gated = Boolean(spec.gate) && r.mode !== 'tmux' && !(spec.gate?.unless ?? []).some((o) => r.options && Object.hasOwn(r.options, o));
  // the gate's argv, then the chosen options, where the argv says `{options}` (after a subcommand), else first
  const opts = [...(gated ? spec.gate!.argv : []), ...optionArgv(spec, r.options)];
  const at = base.indexOf('{options}');
  const args = at < 0 ? [...opts, ...fill(base, values)] : [...fill(base.slice(0, at), values), ...opts, ...fill(base.slice(at + 1), values)];
  return { command: spec.command, args: [...fill(assign, values), ...args], gated };
}
