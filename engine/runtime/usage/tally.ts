// Token usage read from transcript lines, summed per model, and the
// x.hookmap.usage.reported payload that carries it (OpenTelemetry GenAI
// attribute names, AEP-0002 §5.2 usage and cost).
import type { Cost, Tokens } from './prices.ts';

export const USAGE_TYPE = 'x.hookmap.usage.reported';

/** The OpenTelemetry GenAI attribute each token count is carried as. */
export const USAGE_ATTRS: Record<keyof Tokens, string> = {
  input: 'gen_ai.usage.input_tokens',
  output: 'gen_ai.usage.output_tokens',
  cache_read: 'gen_ai.usage.cache_read.input_tokens',
  cache_write: 'gen_ai.usage.cache_creation.input_tokens',
  reasoning: 'gen_ai.usage.reasoning.output_tokens',
};

/** Every field of the usage event, gated at metadata (counts, a model id, an amount). */
export const USAGE_GATES: Record<string, 'metadata'> = Object.fromEntries(
  [...Object.values(USAGE_ATTRS), 'gen_ai.response.model', 'responses', 'cost', 'price_table', 'skipped_lines', 'part'].map((k) => [k, 'metadata']),
);

const KEYS = Object.keys(USAGE_ATTRS) as (keyof Tokens)[];

/** A token count from a line: a non-negative integer, or nothing. */
function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : undefined;
}

/** The tokens a line's `usage` expression yielded (unknown keys and non-numbers dropped); undefined when none. */
export function tokensOf(v: unknown): Tokens | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const t: Tokens = {};
  let any = false;
  for (const k of KEYS) {
    const n = count((v as Record<string, unknown>)[k]);
    if (n !== undefined) {
      t[k] = n;
      any = true;
    }
  }
  return any ? t : undefined;
}

export interface ModelTally {
  model?: string;
  tokens: Required<Tokens>;
  responses: number;
}

export class Tally {
  readonly byModel = new Map<string, ModelTally>();

  add(model: string | undefined, t: Tokens): void {
    const key = model ?? '';
    let m = this.byModel.get(key);
    if (!m) this.byModel.set(key, (m = { model, tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 }, responses: 0 }));
    for (const k of KEYS) m.tokens[k] += t[k] ?? 0;
    m.responses++;
  }

  get empty(): boolean {
    return this.byModel.size === 0;
  }
}

/** The payload of one usage event (one model of one read). */
export function usageData(m: ModelTally, cost: Cost | null, priceTable: string): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (m.model) data['gen_ai.response.model'] = m.model;
  for (const k of KEYS) if (k === 'input' || k === 'output' || m.tokens[k] > 0) data[USAGE_ATTRS[k]] = m.tokens[k];
  data.responses = m.responses;
  if (cost) {
    data.cost = { currency: cost.currency, total: cost.total };
    data.price_table = cost.source === 'prices-file' ? 'prices-file' : priceTable;
  }
  return data;
}
