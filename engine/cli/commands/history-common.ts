// What `hookmap sessions | search | usage | history` share: the home's
// history database, brought up to the logs first (so it answers whether or
// not `up` runs), and the table printing.
import { ArgError } from '../args.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { historyRoots, openCaughtUp } from '../../person/history/history.ts';
import type { Db } from '../../person/history/store.ts';

export function openHomeHistory(config: RuntimeConfig, logDir?: string): Db {
  return openCaughtUp(config.home, historyRoots(config.home, logDir)).db;
}

export function usageError(cmd: string, e: unknown): number {
  if (e instanceof ArgError) {
    process.stderr.write(`hookmap ${cmd}: ${e.message}\n`);
    return 2;
  }
  throw e;
}

/** Rows as aligned columns (a header, then one line each). */
export function table(rows: Record<string, unknown>[], cols: string[]): string[] {
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') || '-' : String(v));
  const w = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(w[i]))
      .join('  ')
      .trimEnd();
  return [line(cols), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))];
}

export const usd = (v: number | null): string => (v === null ? '-' : `$${v.toFixed(v < 1 ? 4 : 2)}`);
