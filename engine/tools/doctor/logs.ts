// The daemon's durable record lives in $HOOKMAP_HOME/logs/<agent>/*.jsonl:
// doctor checks it can be written, how big it grew, and the space left.
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Finding } from './types.ts';

const LARGE = 1024 ** 3; // 1 GiB of session logs: time to prune
const LOW_FREE = 200 * 1024 ** 2;

export function human(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n < 10 && i ? n.toFixed(1) : Math.round(n)} ${units[i]}`;
}

function walk(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      const sub = walk(p);
      files += sub.files;
      bytes += sub.bytes;
    } else if (e.isFile()) {
      files++;
      bytes += statSync(p).size;
    }
  }
  return { files, bytes };
}

export function checkLogs(dir: string): Finding[] {
  const out: Finding[] = [];
  const add = (status: Finding['status'], message: string, fix?: string) => out.push({ area: 'logs', subject: dir, status, message, fix });
  if (!existsSync(dir)) {
    // Not created yet: fine if its parent (or the nearest existing ancestor) is writable.
    let p = dirname(dir);
    while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
    try {
      accessSync(p, constants.W_OK);
      add('info', `${dir} does not exist yet (the daemon creates it on the first event)`);
    } catch {
      add('problem', `${dir} does not exist and ${p} is not writable: the daemon cannot keep its logs`, `mkdir -p ${dir}`);
    }
    return out;
  }
  try {
    rmSync(mkdtempSync(join(dir, '.doctor-')), { recursive: true, force: true });
  } catch (err) {
    add(
      'problem',
      `${dir} is not writable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): events are not recorded`,
      `check the permissions of ${dir}`,
    );
    return out;
  }
  const { files, bytes } = walk(dir);
  add(bytes > LARGE ? 'warn' : 'ok', `${dir} writable: ${files} files, ${human(bytes)}`, bytes > LARGE ? 'prune old session logs' : undefined);
  try {
    const fs = statfsSync(dir);
    const free = fs.bavail * fs.bsize;
    if (free < LOW_FREE) add('warn', `only ${human(free)} free on the log volume`);
  } catch {
    // statfs unsupported here: nothing to say
  }
  return out;
}
