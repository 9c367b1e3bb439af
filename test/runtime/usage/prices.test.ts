// Cost from the price table (@pydantic/genai-prices) and the operator's own price file.
import { readFileSync } from 'node:fs';
import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { parsePriceFile, PRICE_TABLE, PriceBook, PriceFileError } from '../../../engine/runtime/usage/prices.ts';

describe('prices', () => {
  it('states the version of the table it uses', () => {
    const pkg = JSON.parse(readFileSync('node_modules/@pydantic/genai-prices/package.json', 'utf8')) as { version: string };
    expect(PRICE_TABLE.version).toBe(pkg.version);
    expect(JSON.parse(readFileSync('package.json', 'utf8')).dependencies['@pydantic/genai-prices']).toBe(pkg.version);
  });

  it('prices a known model as the table does, cache tokens at their own rates', () => {
    const book = new PriceBook();
    const c = book.cost('claude-sonnet-4-5', { input: 1_000_000, output: 100_000, cache_read: 500_000, cache_write: 100_000 });
    const want = calcPrice({ input_tokens: 1_000_000, output_tokens: 100_000, cache_read_tokens: 500_000, cache_write_tokens: 100_000 }, 'claude-sonnet-4-5')!;
    expect(c).toEqual({ currency: 'USD', total: Math.round(want.total_price * 1e9) / 1e9, source: '@pydantic/genai-prices 0.1.8' });
    // reading from the cache is cheaper than the same tokens uncached
    expect(c!.total).toBeLessThan(book.cost('claude-sonnet-4-5', { input: 1_000_000, output: 100_000 })!.total);
    expect(book.cost('gpt-5', { input: 1000, output: 1000 })!.total).toBeGreaterThan(0);
  });

  it('has no cost for a model it does not know, or no model', () => {
    const book = new PriceBook();
    expect(book.cost('scripted', { input: 10, output: 5 })).toBeNull();
    expect(book.cost('totally-unknown-model-9000', { input: 10, output: 5 })).toBeNull();
    expect(book.cost(undefined, { input: 10, output: 5 })).toBeNull();
  });

  it("the operator's price file overrides the table (exact id, then the longest prefix*)", () => {
    const own = parsePriceFile(
      'models:\n  claude-sonnet-4-5: { input: 1, output: 2, cache_read: 0.1 }\n  "gpt-*": { input: 10, output: 10 }\n  scripted: { input: 1, output: 1 }\n',
      'prices.yaml',
    );
    const book = new PriceBook(own);
    expect(book.cost('claude-sonnet-4-5', { input: 2_000_000, output: 1_000_000, cache_read: 1_000_000 })).toEqual({
      currency: 'USD',
      total: 1 + 0.1 + 2,
      source: 'prices-file',
    });
    expect(book.cost('gpt-5', { input: 1_000_000, output: 0 })!.total).toBe(10);
    expect(book.cost('scripted', { input: 1_000_000, output: 1_000_000 })!.total).toBe(2);
    expect(book.cost('claude-opus-4-1', { input: 1, output: 1 })!.source).toBe('@pydantic/genai-prices 0.1.8');
  });

  it('refuses a price file that is not rates', () => {
    expect(() => parsePriceFile('models: [1]', 'p.yaml')).toThrow(PriceFileError);
    expect(() => parsePriceFile('models:\n  m: { input: -1 }', 'p.yaml')).toThrow(/non-negative/);
    expect(() => parsePriceFile('models:\n  m: { inptu: 1 }', 'p.yaml')).toThrow(/not a rate/);
  });
});
