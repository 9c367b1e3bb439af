// One daemon per agent log folder: two writers would interleave session
// logs and race the epoch file. The lock names its pid; a lock whose pid is
// gone (SIGKILL, power loss) is stale and taken over.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { processExists } from '../../core/io/pid.ts';

export class LockHeldError extends Error {}

/** Take `<dir>/daemon.lock`; returns the release function. */
export function acquireLock(dir: string, what: string): () => void {
  const path = join(dir, 'daemon.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let pid = NaN;
      try {
        pid = Number(readFileSync(path, 'utf8').trim());
      } catch {
        /* vanished between open and read: retry */
      }
      if (Number.isSafeInteger(pid) && processExists(pid)) {
        throw new LockHeldError(`another hookmap daemon for ${what} is running (pid ${pid}${pid === process.pid ? ', this process' : ''}; lock ${path})`);
      }
      try {
        unlinkSync(path); // stale: its owner is gone
      } catch {
        /* raced with another taker */
      }
    }
  }
  throw new LockHeldError(`could not take ${path}`);
}
