// The fail-open trace a shim leaves (format and readers: engine/core/io/failed-open.ts).
// Plain JS so the portable Node shim writes it without loading TypeScript;
// the sh shim writes the same line with one printf (engine/runtime/shim/sh.ts).
import { appendFileSync, existsSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const FAILED_OPEN_LOG = 'failed-open.log';
/** Past this size a shim moves the log to `.1` before appending. */
export const FAILED_OPEN_ROTATE_BYTES = 1024 * 1024;

/**
 * Appends `<UTC time>\t<agent>\t<hook or ->\t<why>` to $home/failed-open.log.
 * Only where the home exists (a shim never creates hookmap's folder), and
 * never throws: the agent's neutral reply must not wait on a disk error.
 */
export function traceFailedOpen(home, agent, hook, why) {
  try {
    if (!existsSync(home)) return;
    const file = join(home, FAILED_OPEN_LOG);
    try {
      if (statSync(file).size > FAILED_OPEN_ROTATE_BYTES) renameSync(file, `${file}.1`);
    } catch {
      // no log yet
    }
    const clean = (s) => String(s).replace(/[\t\r\n]/g, ' ');
    const t = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    appendFileSync(file, `${t}\t${clean(agent)}\t${clean(hook || '-')}\t${why}\n`);
  } catch {
    // a trace is best effort
  }
}
