// The sh shim's scratch (engine/runtime/shim/sh.ts, sh-http.ts): the request
// writes the daemon's reply into $HOOKMAP_HOME/shims/io/<pid> (its status line)
// and <pid>.b (the body), and bash's request reads the payload from <pid>.in,
// so each runs as a plain command (vfork) rather than in a `$(...)` subshell:
// one fork less per firing. The shim empties the payload once sent and the
// body once printed; what stays are empty files named by pids, swept here when
// their shim is no longer running.
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { processExists } from './pid.ts';

/** The folder under the home (beside the shims that write into it). */
export const SHIM_IO_DIR = 'shims/io';
/** A file whose pid is running is kept this long at most (the pid may be another program's by now). */
const OLDEST_MS = 24 * 3600_000;

export function shimIoDir(home: string): string {
  return join(home, SHIM_IO_DIR);
}

/** Removes the scratch files of shims that have ended; returns how many. Anything not named like the shim's is left alone. */
export function sweepShimIo(home: string, now = Date.now()): number {
  const dir = shimIoDir(home);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0; // no scratch yet
  }
  let gone = 0;
  for (const n of names) {
    const m = /^(\d{1,10})(\.b|\.in)?$/.exec(n);
    if (!m) continue;
    const p = join(dir, n);
    try {
      const st = lstatSync(p);
      if (!st.isFile() || (processExists(Number(m[1])) && now - st.mtimeMs < OLDEST_MS)) continue;
      unlinkSync(p);
      gone++;
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return gone;
}
