import { TYPE } from '../../core/kernel/lifecycle.ts'; // The tokens one AEP event says were spent, read from its OpenTelemetry GenAI
// attributes (`gen_ai.usage.*`, its model, its own USD cost when it carries
// one): the one reading the history's usage and the budgets share.

export interface UsageRow {
  model?: string;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning: number;
  cost?: number;
  /** A part of the session with its own transcript (a sub-agent's), when the usage is its. */
  part?: string;
}

/** Events whose usage is a snapshot of the context (not tokens spent by this event): not summed. */
const NOT_SPENT = new Set<string>([TYPE.runStarted, TYPE.sessionCompacted]);
const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

/** The tokens an event says were spent (a snapshot of the context is not), with its model and its USD cost when it carries one. */
export function usageOf(type: string, data: Record<string, unknown>): UsageRow | undefined {
  if (NOT_SPENT.has(type)) return undefined;
  if (data['gen_ai.usage.input_tokens'] === undefined && data['gen_ai.usage.output_tokens'] === undefined) return undefined;
  const cost = data.cost as { currency?: string; total?: number } | undefined;
  const model = data['gen_ai.response.model'] ?? data['gen_ai.request.model'];
  return {
    model: typeof model === 'string' ? model : undefined,
    input: int(data['gen_ai.usage.input_tokens']),
    output: int(data['gen_ai.usage.output_tokens']),
    cache_read: int(data['gen_ai.usage.cache_read.input_tokens']),
    cache_write: int(data['gen_ai.usage.cache_creation.input_tokens']),
    reasoning: int(data['gen_ai.usage.reasoning.output_tokens']),
    cost: cost?.currency === 'USD' && typeof cost.total === 'number' ? cost.total : undefined,
    ...(typeof data.part === 'string' && data.part ? { part: data.part.slice(0, 128) } : {}),
  };
}
