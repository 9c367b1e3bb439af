// The trace a shim leaves when it fails open: one line per hook that got the
// agent's neutral reply because hookmap did not answer (daemon down, hung
// past the bound, or answering junk). Without it, runs made while `up` was
// not running leave nothing behind (issue 31 item 14).
//
//   $HOOKMAP_HOME/failed-open.log       appended by the shims (failed-open-trace.mjs beside this file; sh.ts)
//   $HOOKMAP_HOME/failed-open.log.1     the previous one, once the log passed 1 MiB
//   $HOOKMAP_HOME/failed-open.seen.log  what the last `hookmap up` start reported
//
// A line is `<UTC ISO time>\t<agent>\t<hook or ->\t<why>`, why one of
// `down` (connection refused), `timeout` (no answer within the bound) or
// `error` (anything else). Tab-separated text because the sh shim writes it
// with one printf. Readers take at most the last MAX_READ bytes of a file:
// a week of failures must not cost a start or a doctor run seconds.
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FAILED_OPEN_LOG } from './failed-open-trace.mjs';

export const FAILED_OPEN_SEEN = 'failed-open.seen.log';
const MAX_READ = 256 * 1024;

export type FailedOpenWhy = 'down' | 'timeout' | 'error';

export interface FailedOpenAgent {
  agent: string;
  count: number;
  first: string;
  last: string;
  why: Partial<Record<FailedOpenWhy, number>>;
}

export interface FailedOpenSummary {
  count: number;
  first: string | null;
  last: string | null;
  agents: FailedOpenAgent[];
  /** Lines were cut off (the file was larger than what is read): the counts are a lower bound. */
  truncated: boolean;
}

export function failedOpenPaths(home: string): { log: string; rotated: string; seen: string } {
  const log = join(home, FAILED_OPEN_LOG);
  return { log, rotated: `${log}.1`, seen: join(home, FAILED_OPEN_SEEN) };
}

export function emptySummary(): FailedOpenSummary {
  return { count: 0, first: null, last: null, agents: [], truncated: false };
}

function tail(path: string): { text: string; cut: boolean } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { text: '', cut: false };
  }
  try {
    const size = fstatSync(fd).size;
    const len = Math.min(size, MAX_READ);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    let text = buf.toString('utf8');
    const cut = size > len;
    if (cut) text = text.slice(text.indexOf('\n') + 1); // the first line is likely partial
    return { text, cut };
  } finally {
    closeSync(fd);
  }
}

const WHYS = new Set<FailedOpenWhy>(['down', 'timeout', 'error']);
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const AGENT = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Parses log text into `into`; malformed lines are skipped, never fatal. */
function add(into: Map<string, FailedOpenAgent>, text: string): number {
  let n = 0;
  for (const line of text.split('\n')) {
    const [t, agent, , why] = line.split('\t');
    if (!t || !TIME.test(t) || !agent || !AGENT.test(agent)) continue;
    const w: FailedOpenWhy = WHYS.has(why as FailedOpenWhy) ? (why as FailedOpenWhy) : 'error';
    let a = into.get(agent);
    if (!a) into.set(agent, (a = { agent, count: 0, first: t, last: t, why: {} }));
    a.count++;
    if (t < a.first) a.first = t;
    if (t > a.last) a.last = t;
    a.why[w] = (a.why[w] ?? 0) + 1;
    n++;
  }
  return n;
}

function summarize(into: Map<string, FailedOpenAgent>, truncated: boolean): FailedOpenSummary {
  const agents = [...into.values()].sort((a, b) => b.count - a.count || (a.agent < b.agent ? -1 : 1));
  if (!agents.length) return { ...emptySummary(), truncated };
  return {
    count: agents.reduce((s, a) => s + a.count, 0),
    first: agents.reduce((m, a) => (a.first < m ? a.first : m), agents[0].first),
    last: agents.reduce((m, a) => (a.last > m ? a.last : m), agents[0].last),
    agents,
    truncated,
  };
}

/** What the shims have written and no `up` start has reported yet (log and its rotation). */
export function readFailedOpen(home: string): FailedOpenSummary {
  const p = failedOpenPaths(home);
  const into = new Map<string, FailedOpenAgent>();
  let cut = false;
  for (const file of [p.rotated, p.log]) {
    const t = tail(file);
    cut ||= t.cut;
    add(into, t.text);
  }
  return summarize(into, cut);
}

/** What the last `up` start reported (doctor shows it after the fact). */
export function readSeenFailedOpen(home: string): FailedOpenSummary {
  const into = new Map<string, FailedOpenAgent>();
  const t = tail(failedOpenPaths(home).seen);
  add(into, t.text);
  return summarize(into, t.cut);
}

/** Merges two summaries (what `up` found at its start, and what came after). */
export function mergeFailedOpen(a: FailedOpenSummary, b: FailedOpenSummary): FailedOpenSummary {
  const into = new Map<string, FailedOpenAgent>();
  for (const s of [a, b])
    for (const x of s.agents) {
      const have = into.get(x.agent);
      if (!have) {
        into.set(x.agent, { ...x, why: { ...x.why } });
        continue;
      }
      have.count += x.count;
      if (x.first < have.first) have.first = x.first;
      if (x.last > have.last) have.last = x.last;
      for (const [w, n] of Object.entries(x.why) as [FailedOpenWhy, number][]) have.why[w] = (have.why[w] ?? 0) + n;
    }
  return summarize(into, a.truncated || b.truncated);
}

/**
 * `up` at start: take what the shims wrote while nothing answered, and move
 * it to the seen file so the next start does not report it again. Returns
 * what was taken. A failure to move it is not fatal (the next start reports
 * it once more).
 */
export function takeFailedOpen(home: string): FailedOpenSummary {
  const s = readFailedOpen(home);
  if (!s.count) return s;
  const p = failedOpenPaths(home);
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    rmSync(p.seen, { force: true });
    if (existsSync(p.rotated)) rmSync(p.rotated, { force: true }); // its lines are counted in s; the seen file keeps the newest
    renameSync(p.log, p.seen);
  } catch {
    // keep going: reported again next time
  }
  return s;
}

const WHY_WORDS: Record<FailedOpenWhy, string> = { down: 'nothing listening', timeout: 'no answer in time', error: 'a broken answer' };

/** One line a person reads: "6 hooks (agent-a 5, agent-b 1) between <first> and <last>: nothing listening". */
export function describeFailedOpen(s: FailedOpenSummary): string {
  if (!s.count) return 'no hook failed open';
  const per = s.agents.map((a) => `${a.agent} ${a.count}`).join(', ');
  const why: Partial<Record<FailedOpenWhy, number>> = {};
  for (const a of s.agents) for (const [w, n] of Object.entries(a.why) as [FailedOpenWhy, number][]) why[w] = (why[w] ?? 0) + n;
  const whyText = (Object.entries(why) as [FailedOpenWhy, number][])
    .sort((x, y) => y[1] - x[1])
    .map(([w, n]) => `${WHY_WORDS[w]}${Object.keys(why).length > 1 ? ` ${n}` : ''}`)
    .join(', ');
  const when = s.first === s.last ? `at ${s.first}` : `between ${s.first} and ${s.last}`;
  return `${s.count}${s.truncated ? '+' : ''} hook${s.count === 1 ? '' : 's'} (${per}) ${when}: ${whyText}`;
}
