// A launch's gate in a generated plugin (a `shim.plugin.hooks.<name>.gate`):
// where the host runs with HOOKMAP_GATE=1 (`hookmap run` turned the agent's
// own asking off), the hook waits for hookmap's answer and throws what hookmap
// did not allow; that refuses the call, and the model reads the text. Anything
// but an answer (hookmap down, slow, wrong, the moment not even built) throws
// the refusing text of the moment's hook (its `fail_closed`). Outside the gate
// the hook is what it always was: the throw is the only exception to the
// plugin's "never throws into the host".
import type { Descriptor } from '../../../core/descriptor/types.ts';
import type { PluginHook } from '../../../core/generated/descriptor-types.ts';

const J = (v: unknown) => JSON.stringify(v);

export const GATE_RUNTIME = `
// a launch's gate (HOOKMAP_GATE=1, set by \`hookmap run\`): gated hooks wait for hookmap and throw what it did not allow
const GATED = ENV.HOOKMAP_GATE === "1";
`;

/** The refusing text of the daemon hook a moment maps to (its `fail_closed` reply's `field`); throws when it has none. */
function closedText(d: Descriptor, h: PluginHook, field: string, err: (why: string) => Error): string {
  const kind = (h.moment as Record<string, unknown> | undefined)?.kind;
  const fc = typeof kind === 'string' ? d.hooks.get(kind)?.failClosed : undefined;
  let text: unknown;
  try {
    text = fc && (JSON.parse(fc.reply) as Record<string, unknown>)[field];
  } catch {
    text = undefined;
  }
  if (typeof text !== 'string' || !text) throw err(`a gate needs the moment's hook (${J(kind)}) to have fail_closed JSON with a string ${J(field)}`);
  return text;
}

/** The JS that runs first in a gated hook's handler (`a`: its arguments; `m`: the moment expression). */
export function gateCode(d: Descriptor, h: PluginHook, m: string, defaultMs: number, err: (why: string) => Error): string {
  const g = h.gate;
  if (!g) return '';
  const closed = closedText(d, h, g.throw, err);
  return (
    `if (GATED) { let why; try { const moment = ${m}; const r = await hold(moment, ${g.timeout_ms ?? defaultMs}); ` +
    `why = r === undefined ? ${J(closed)} : typeof r[${J(g.throw)}] === "string" ? r[${J(g.throw)}] : undefined; } ` +
    `catch { why = ${J(closed)}; } if (why !== undefined) throw new Error(why); return undefined; } `
  );
}

/** A bus host's opt-in registration under a launch's gate: the condition to add, and the refusal in place of a failure. */
export function optinGate(d: Descriptor, name: string, o: { gate?: boolean }, err: (why: string) => Error): { on: string; closed: string; caught: string } {
  if (!o.gate) return { on: '', closed: '', caught: 'undefined' };
  const fc = d.hooks.get(name)?.failClosed;
  let refusal: unknown;
  try {
    refusal = fc && JSON.parse(fc.reply);
  } catch {
    refusal = undefined;
  }
  if (!refusal || typeof refusal !== 'object') throw err(`optin ${J(name)} has gate, but the hook ${J(name)} has no fail_closed JSON object`);
  return { on: ' || GATED', closed: `if (GATED && r === undefined) return ${J(refusal)}; `, caught: `GATED ? ${J(refusal)} : undefined` };
}
