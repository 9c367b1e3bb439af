// Durable resume for the embedded default (`hookmap up`): before the relay
// listens, its replay buffer is refilled from the daemons' session logs,
// the durable record every acknowledged event reached first. A subscriber
// resuming by (epoch, seq) after a restart (SIGTERM or SIGKILL) then gets
// every acknowledged event it had not seen, from the buffer (AEP-0003 §5);
// a position older than what is refilled gets the replay-exhausted marker.
// The daemons' links re-send what the relay never confirmed; buffer
// admission dedupes those on (source, id).
//
// Bounded like the buffer itself: the most recently written session files
// first, each read backwards from its end only as far as the per-session
// bounds (events, bytes) allow, stopping at the total byte budget.
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chargeOf, type Held, type RelayStore } from '../relay/store.ts';
import type { RelayLimits } from '../relay/options.ts';
import { AGENT_FILE } from './session-log.ts';

export interface RestoreReport {
  files: number;
  sessions: number;
  events: number;
  bytes: number;
  skipped: number;
  ms: number;
}

type Prepare = (line: string) => Held | { code: string; detail: string };

interface Candidate {
  path: string;
  mtime: number;
  size: number;
}

export function restoreFromLogs(store: RelayStore, prepare: Prepare, logDirs: string[], limits: RelayLimits): RestoreReport {
  const t0 = Date.now();
  const report: RestoreReport = { files: 0, sessions: 0, events: 0, bytes: 0, skipped: 0, ms: 0 };
  const candidates: Candidate[] = [];
  for (const dir of logDirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // a daemon that never logged
    }
    for (const name of names) {
      if (!name.endsWith('.jsonl') || name === AGENT_FILE) continue;
      try {
        const st = statSync(join(dir, name));
        if (st.isFile() && st.size > 0) candidates.push({ path: join(dir, name), mtime: st.mtimeMs, size: st.size });
      } catch {
        /* vanished */
      }
    }
  }
  candidates.sort((a, b) => b.mtime - a.mtime);
  // newest first until the budget is spent; restored oldest first so write recency matches the logs
  const picked: { session: string; events: Held[]; truncated: boolean }[] = [];
  let budget = limits.bufferBytes;
  for (const c of candidates) {
    if (budget <= 0 || picked.length >= limits.maxSessions) break;
    const tail = readTail(c.path, limits.buffer, Math.min(limits.sessionBufferBytes, budget), prepare);
    report.files++;
    report.skipped += tail.skipped;
    if (!tail.events.length) continue;
    budget -= tail.bytes;
    report.bytes += tail.bytes;
    const session = tail.events[0].ev.session!;
    picked.push({ session, events: tail.events.filter((h) => h.ev.session === session), truncated: tail.truncated });
  }
  for (const p of picked.reverse()) {
    store.restore(p.session, p.events, p.truncated);
    report.events += p.events.length;
  }
  report.sessions = picked.length;
  report.ms = Date.now() - t0;
  return report;
}

const CHUNK = 256 * 1024;

/** The last events of one log file within (count, bytes), oldest first; torn or invalid lines skipped. */
function readTail(path: string, maxEvents: number, maxBytes: number, prepare: Prepare): { events: Held[]; bytes: number; truncated: boolean; skipped: number } {
  const fd = openSync(path, 'r');
  const out: Held[] = [];
  let bytes = 0;
  let skipped = 0;
  let truncated = false;
  try {
    let end = fstatSync(fd).size;
    // A last line without its newline was torn by a crash: never acknowledged, never restored.
    let torn = true;
    let carry: Buffer = Buffer.alloc(0); // the end of a line that began before the chunk just read
    outer: while (end > 0) {
      const from = Math.max(0, end - CHUNK);
      let buf: Buffer = Buffer.alloc(end - from);
      let off = 0;
      while (off < buf.length) {
        const n = readSync(fd, buf, off, buf.length - off, from + off);
        if (n === 0) break;
        off += n;
      }
      buf = buf.subarray(0, off);
      if (torn) {
        const nl = buf.lastIndexOf(10);
        if (nl < 0) {
          end = from;
          continue;
        }
        buf = buf.subarray(0, nl + 1);
        torn = false;
      } else if (carry.length) buf = Buffer.concat([buf, carry]);
      // buf ends at a line boundary; its first piece is partial unless it starts the file
      const firstNl = from > 0 ? buf.indexOf(10) : -1;
      // each line decoded on its own: a held event must not pin the whole chunk's string
      let stop = buf.length - 1; // the newline ending the current line
      while (stop > firstNl) {
        const startAt = stop > 0 ? buf.lastIndexOf(10, stop - 1) + 1 : 0;
        const lineStart = Math.max(startAt, firstNl + 1);
        const line = buf.toString('utf8', lineStart, stop);
        stop = lineStart - 1;
        if (!line) continue;
        const h = prepare(line);
        if (!('ev' in h) || h.ev.seq === undefined || h.ev.session === undefined) {
          skipped++;
          continue;
        }
        const cost = chargeOf(h.raw);
        if (out.length >= maxEvents || bytes + cost > maxBytes) {
          truncated = true;
          break outer;
        }
        out.push(h);
        bytes += cost;
      }
      carry = firstNl >= 0 ? Buffer.from(buf.subarray(0, firstNl + 1)) : Buffer.alloc(0);
      end = from;
    }
  } finally {
    closeSync(fd);
  }
  return { events: out.reverse(), bytes, truncated, skipped };
}
