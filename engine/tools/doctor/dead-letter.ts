// Dead-letter files: the lines a daemon's relay link set aside instead of
// sending (engine/runtime/daemon/relay-link.ts: over the relay's frame limit, a 1009
// close, or an `invalid-event` error naming the event), one JSON record per
// line in `<log dir>/dead-letter.ndjson`. The events stay in their session
// logs, but nobody on the stream saw them: doctor names each file, how many
// lines it holds, the newest entry's time and code, and what to do.
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { DEAD_LETTER_FILE } from '../../runtime/daemon/relay-link.ts';
import type { Finding } from './types.ts';

const CHUNK = 64 * 1024;

/** Every dead-letter file under the logs folder: its own and each agent's (one level down). */
export function deadLetterFiles(logsDir: string): string[] {
  if (!existsSync(logsDir)) return [];
  const out: string[] = [];
  const own = join(logsDir, DEAD_LETTER_FILE);
  if (existsSync(own)) out.push(own);
  let entries: Dirent[];
  try {
    entries = readdirSync(logsDir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isDirectory()) continue;
    const p = join(logsDir, e.name, DEAD_LETTER_FILE);
    if (existsSync(p)) out.push(p);
  }
  return out;
}

export interface DeadLetterSummary {
  lines: number;
  bytes: number;
  /** The last complete record, parsed (undefined when it does not parse). */
  newest?: Record<string, unknown>;
}

/** Line count and the last record, reading the file once in bounded chunks. */
export function summarize(path: string): DeadLetterSummary {
  const fd = openSync(path, 'r');
  try {
    const size = statSync(path).size;
    const buf = Buffer.alloc(CHUNK);
    let lines = 0;
    let lastStart = 0; // start of the last non-empty line
    let lineStart = 0;
    for (let pos = 0; pos < size;) {
      const n = readSync(fd, buf, 0, Math.min(CHUNK, size - pos), pos);
      if (n <= 0) break;
      for (let i = 0; i < n; i++) {
        if (buf[i] !== 10) continue;
        const at = pos + i;
        if (at > lineStart) {
          lines++;
          lastStart = lineStart;
        }
        lineStart = at + 1;
      }
      pos += n;
    }
    if (size > lineStart) {
      lines++; // a last line without its newline (a write cut short)
      lastStart = lineStart;
    }
    const len = size - lastStart;
    let newest: Record<string, unknown> | undefined;
    if (lines && len <= 64 * 1024 * 1024) {
      const last = Buffer.alloc(len);
      readSync(fd, last, 0, len, lastStart);
      try {
        const v = JSON.parse(last.toString('utf8'));
        if (v && typeof v === 'object' && !Array.isArray(v)) newest = v;
      } catch {
        /* a torn last line: counted, not shown */
      }
    }
    return { lines, bytes: size, newest };
  } finally {
    closeSync(fd);
  }
}

/**
 * The code of a record: its own `code` when it has one, else read from the
 * reason relay-link.ts writes (`refused by the relay: <code>[: detail]`, or
 * `<n> bytes exceed the relay's frame limit (<m> bytes)`).
 */
export function codeOf(rec: Record<string, unknown>): string {
  if (typeof rec.code === 'string' && rec.code) return rec.code;
  const reason = typeof rec.reason === 'string' ? rec.reason : '';
  const refused = /^refused by the relay: ([a-z0-9][a-z0-9._-]*)/.exec(reason);
  if (refused) return refused[1];
  if (/exceed the relay's frame limit|1009/.test(reason)) return 'over-frame-limit';
  return 'unknown';
}

const WHAT_TO_DO: Record<string, string> = {
  'over-frame-limit':
    "the event is larger than the relay's frame limit: lower the agent's capture ceiling " +
    '(content is what makes events large) or, on a relay that lets you, raise its limit',
  'invalid-event': "the relay refused the envelope: the record's reason carries the relay's detail (often a relay that speaks another AEP version)",
};

export function checkDeadLetters(logsDir: string): Finding[] {
  const files = deadLetterFiles(logsDir);
  if (!files.length) return [{ area: 'logs', subject: logsDir, status: 'ok', message: 'no dead-letter files: the relay refused no event' }];
  return files.map((path): Finding => {
    let s: DeadLetterSummary;
    try {
      s = summarize(path);
    } catch (err) {
      return {
        area: 'logs',
        subject: path,
        status: 'warn',
        message: `${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): it holds events the relay refused`,
        fix: `check the permissions of ${path}`,
      };
    }
    const code = s.newest ? codeOf(s.newest) : undefined;
    const newest = s.newest
      ? `newest ${typeof s.newest.time === 'string' ? s.newest.time : '(no time)'} ${code}` +
        `${typeof s.newest.type === 'string' ? ` (${s.newest.type}${typeof s.newest.id === 'string' ? ` ${s.newest.id}` : ''})` : ''}`
      : 'newest entry unreadable';
    const n = `${s.lines} event${s.lines === 1 ? '' : 's'}`;
    return {
      area: 'logs',
      subject: path,
      status: 'warn',
      message: `${path}: ${n} the relay refused, set aside (still in the session logs, never seen on the stream); ${newest}`,
      fix:
        `${(code && WHAT_TO_DO[code]) ?? 'read the reason in each record'}; each record names its ` +
        `session log file and offset. Then move ${path} away: doctor reports it while it is there`,
    };
  });
}
