// The descriptor's `setup:` block, as compiled at load
// (engine/core/descriptor/setup-spec.ts). Kept as the setup layer's entry point.
import type { Descriptor } from '../../core/descriptor/types.ts';

export type { Requirement, Scope, SetupSpec, Unit } from '../../core/descriptor/setup-spec.ts';

/** The setup block, or undefined when the descriptor declares no way to wire the agent. */
export function setupSpec(d: Descriptor): Descriptor['setup'] {
  return d.setup;
}
