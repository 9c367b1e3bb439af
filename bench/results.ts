// Where a bench leaves its figures: bench/results/<bench>.json, in the shape
// codegen/performance.ts checks and renders into docs/performance.md (`hookmap
// docs`). The run's date, the machine's core count, its load average and the
// Node version are filled in here, so no bench states them by hand.
import { cpus, loadavg } from 'node:os';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchResult, PERFORMANCE_FILE, RESULTS_DIR } from '../codegen/performance.ts';

type Measured = Omit<BenchResult, 'date' | 'cpus' | 'loadavg' | 'node' | 'carried'>;

/** Write one bench's results (validated first: a malformed result is a bug in the bench and throws); `dir`: elsewhere than bench/results/. */
export function writeResult(r: Measured, dir = fileURLToPath(new URL(`../${RESULTS_DIR}/`, import.meta.url))): string {
  const [a, b, c] = loadavg();
  const full = BenchResult.parse({
    ...r,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpus: cpus().length,
    loadavg: [a, b, c].map((x) => Math.round(x * 100) / 100),
    node: process.version,
  });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${r.bench}.json`);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(full, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
  process.stdout.write(`\nwrote ${RESULTS_DIR}/${r.bench}.json (npx hookmap docs renders ${PERFORMANCE_FILE})\n`);
  return file;
}

/** A ratio kept to three decimals (what the page shows is two). */
export const ratio = (x: number, base: number) => Math.round((x / base) * 1000) / 1000;
/** A figure kept to one decimal. */
export const r1 = (x: number) => Math.round(x * 10) / 10;
