// bench/map: payloads per second through descriptor rules + envelope +
// capture gating (the engine, vendors/codex.yaml) against the hand-written
// TypeScript mapping of the same hooks, same process, same payloads (the
// Codex pin inputs). The ratio is the figure; absolute numbers vary by machine.
// Run: node --import tsx bench/map/run.ts [--seconds 3]
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { loadVendor } from '../../engine/core/descriptor/registry.ts';
import { Mapper } from '../../engine/core/map/mapper.ts';
import { mapCodexByHand } from './handwritten-codex.ts';
import { r1, ratio, writeResult } from '../results.ts';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 3;
const pins = JSON.parse(readFileSync(new URL('../../fixtures/upstream/aep/mappings/codex.json', import.meta.url), 'utf8'));
const payloads: any[] = [...Object.values<any>(pins.hooks).map((h) => h.input), pins.fallback.input];
const host = 'bench';
const mapper = new Mapper(loadVendor('codex'), { host });

const strip = (evs: any[]) => evs.map(({ id, time, seq, ...rest }) => rest);
for (const p of payloads) {
  const a = strip((await mapper.map(undefined, p)).events);
  const b = strip(mapCodexByHand(host, p));
  if (!isDeepStrictEqual(a, b)) throw new Error(`outputs differ for ${p.hook_event_name}:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
}

async function measure(name: string, fn: (p: any) => unknown): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let n = 0;
  while (performance.now() < until) {
    for (const p of payloads) await fn(p);
    n += payloads.length;
  }
  const rate = n / seconds;
  return rate;
}

// warm both paths, then alternate rounds so neither gets the JIT's best moment alone
await measure('warm-engine', (p) => mapper.map(undefined, p));
await measure('warm-hand', (p) => mapCodexByHand(host, p));
const engine: number[] = [];
const hand: number[] = [];
for (let r = 0; r < 3; r++) {
  engine.push(await measure('engine', (p) => mapper.map(undefined, p)));
  hand.push(await measure('hand', (p) => mapCodexByHand(host, p)));
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const e = med(engine),
  h = med(hand);
console.log(`| mapping | payloads/s (median of 3 × ${seconds}s) | per payload |`);
console.log('|---|---:|---:|');
console.log(`| hand-written TypeScript (baseline) | ${Math.round(h).toLocaleString('en-US')} | ${(1e6 / h).toFixed(1)} µs |`);
console.log(`| hookmap engine, vendors/codex.yaml | ${Math.round(e).toLocaleString('en-US')} | ${(1e6 / e).toFixed(1)} µs |`);
console.log(`\nengine / baseline throughput ratio: ${(e / h).toFixed(3)} (the engine is ${(h / e).toFixed(1)}× slower than hand-written code)`);
writeResult({
  bench: 'map',
  title: 'Mapping',
  command: `npx tsx bench/map/run.ts --seconds ${seconds}`,
  about:
    'the Codex pin payloads through descriptor rules, envelope, capture gating and payload validation (the engine, ' +
    '`vendors/codex.yaml`), against a hand-written TypeScript mapping of the same hooks producing identical events ' +
    '(checked before timing), same process, rounds alternated. Most descriptor expressions compile to direct closures ' +
    '(a checked subset of JSONata); the rest run through JSONata itself.',
  tables: [
    {
      caption: `Payloads per second, median of 3 rounds of ${seconds} s each.`,
      label: 'mapping',
      columns: [
        { name: 'payloads/s', unit: '' },
        { name: 'per payload', unit: 'µs' },
      ],
      ratio: 'throughput vs hand-written',
      rows: [
        { name: 'hand-written TypeScript', values: [Math.round(h), r1(1e6 / h)], ratio: 1, baseline: true },
        { name: 'hookmap engine, `vendors/codex.yaml`', values: [Math.round(e), r1(1e6 / e)], ratio: ratio(e, h) },
      ],
    },
  ],
});
