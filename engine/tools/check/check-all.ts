// Checks the agents a command names (one, or every vendor), in vendor order.
// Shared by `check`, `capabilities` and `docs` so they agree on the truth.
import { listVendors } from '../../core/descriptor/registry.ts';
import { checkAgent, type AgentReport, type CheckOptions } from './check-agent.ts';
import { checkTarget } from './targets.ts';

/** Throws (a usage error) when `agent` names no descriptor. */
export async function checkAgents(agent?: string, opts: CheckOptions = {}): Promise<AgentReport[]> {
  const targets = (agent ? [agent] : listVendors()).map(checkTarget);
  const out: AgentReport[] = [];
  for (const t of targets) out.push(await checkAgent(t, opts));
  return out;
}
