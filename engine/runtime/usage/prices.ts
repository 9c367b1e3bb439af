// Cost of token usage in USD (docs/usage.md): the operator's own price file
// first (enterprise rates), else the price table of @pydantic/genai-prices
// (a maintained table, its bundled data; PRICE_TABLE says which). A model
// neither knows has no cost: null, never a guess.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { yaml } from '../../core/text/yaml-lazy.ts';

// the table (a large module: its bundled data) is loaded at the first cost asked of it, not while `up` starts
const load = createRequire(import.meta.url);
let table: typeof import('@pydantic/genai-prices') | undefined;
const calcPrice: typeof import('@pydantic/genai-prices').calcPrice = (...a) =>
  (table ??= load('@pydantic/genai-prices') as typeof import('@pydantic/genai-prices')).calcPrice(...a);

/** The price table in use: the package, its version and the date that version was published (its bundled data). */
export const PRICE_TABLE = { name: '@pydantic/genai-prices', version: '0.1.8', published: '2026-09-23' } as const;

export interface Tokens {
  /** Every input token, cached ones included (OpenTelemetry gen_ai.usage.input_tokens). */
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
  reasoning?: number;
}

/** USD per million tokens. */
export interface ModelRate {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
}

export interface Cost {
  currency: 'USD';
  total: number;
  /** Where the rate came from: `prices-file` or the table (`@pydantic/genai-prices 0.1.8`). */
  source: string;
}

export class PriceFileError extends Error {}

/** An operator price file: `models: { <model id or prefix*>: { input, output, cache_read, cache_write } }`, USD per million tokens. */
export function parsePriceFile(text: string, file: string): Map<string, ModelRate> {
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (e) {
    throw new PriceFileError(`${file}: not YAML: ${(e as Error).message}`);
  }
  const models = (doc as { models?: unknown } | null)?.models;
  if (!models || typeof models !== 'object' || Array.isArray(models))
    throw new PriceFileError(`${file}: needs \`models:\`, a map of model id to rates (USD per million tokens)`);
  const out = new Map<string, ModelRate>();
  for (const [id, r] of Object.entries(models as Record<string, unknown>)) {
    if (!r || typeof r !== 'object') throw new PriceFileError(`${file}: models.${id} must be a map of rates`);
    const rate: ModelRate = {};
    for (const [k, v] of Object.entries(r as Record<string, unknown>)) {
      if (!['input', 'output', 'cache_read', 'cache_write'].includes(k))
        throw new PriceFileError(`${file}: models.${id}.${k} is not a rate (input, output, cache_read, cache_write)`);
      if (typeof v !== 'number' || !(v >= 0)) throw new PriceFileError(`${file}: models.${id}.${k} must be a non-negative number (USD per million tokens)`);
      rate[k as keyof ModelRate] = v;
    }
    out.set(id, rate);
  }
  return out;
}

export function loadPriceFile(file: string): Map<string, ModelRate> {
  return parsePriceFile(readFileSync(file, 'utf8'), file);
}

function round(n: number): number {
  return Math.round(n * 1e9) / 1e9;
}

export class PriceBook {
  constructor(private readonly own: ReadonlyMap<string, ModelRate> = new Map()) {}

  private ownRate(model: string): ModelRate | undefined {
    const exact = this.own.get(model);
    if (exact) return exact;
    let best: [string, ModelRate] | undefined;
    for (const [k, r] of this.own) if (k.endsWith('*') && model.startsWith(k.slice(0, -1)) && (!best || k.length > best[0].length)) best = [k, r];
    return best?.[1];
  }

  /** The cost of `t` on `model`, or null when no price is known for it. */
  cost(model: string | undefined, t: Tokens): Cost | null {
    if (!model) return null;
    const input = t.input ?? 0;
    const cacheRead = Math.min(t.cache_read ?? 0, input);
    const cacheWrite = Math.min(t.cache_write ?? 0, input - cacheRead);
    const own = this.ownRate(model);
    if (own) {
      const plain = input - cacheRead - cacheWrite;
      const inRate = own.input ?? 0;
      const usd = plain * inRate + cacheRead * (own.cache_read ?? inRate) + cacheWrite * (own.cache_write ?? inRate) + (t.output ?? 0) * (own.output ?? 0);
      return { currency: 'USD', total: round(usd / 1e6), source: 'prices-file' };
    }
    let r: ReturnType<typeof calcPrice>;
    try {
      r = calcPrice({ input_tokens: input, output_tokens: t.output ?? 0, cache_read_tokens: cacheRead, cache_write_tokens: cacheWrite }, model);
    } catch {
      return null;
    }
    if (!r || !Number.isFinite(r.total_price)) return null;
    return { currency: 'USD', total: round(r.total_price), source: `${PRICE_TABLE.name} ${PRICE_TABLE.version}` };
  }
}
