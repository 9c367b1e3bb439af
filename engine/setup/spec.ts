// The descriptor's `setup:` block, as compiled at load
// (engine/descriptor/setup-spec.ts). Kept as the setup layer's entry point.
import type { Descriptor } from '../descriptor/types.ts';

export type { Requirement, Scope, SetupSpec, Unit } from '../descriptor/setup-spec.ts';

/** The setup block, or undefined when the descriptor declares no way to wire the agent. */
export function setupSpec(d: Descriptor): Descriptor['setup'] {
  return d.setup;
}
