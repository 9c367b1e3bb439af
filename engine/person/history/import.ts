// `hookmap history import`: the sessions an agent kept before hookmap (its
// own transcript files, named by the descriptor's `transcript.import`) into
// the history. Each file becomes the AEP events of its session
// (engine/runtime/usage/import-events.ts), appended to a log of its own,
// $HOOKMAP_HOME/imported/<agent>/<session>.jsonl, which the indexer reads
// like any daemon's log, so `sessions`, `search`, `usage` and the inbox read
// imported sessions the same way (and a reindex brings them back). An event
// whose id is already in that log is not written again: a second import adds
// nothing, a session that grew adds what is new. A session hookmap logged
// itself is left alone (its usage is already counted). Every file is checked
// inside the agent's folders (symlinks resolved), every bound is the
// descriptor's (file size, line size, file count) plus a time limit, and a
// file that cannot be read is reported with a code and skipped.
import { closeSync, existsSync, lstatSync, openSync, readdirSync, readSync, statSync, writeSync, fstatSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Redactor } from '../../core/capture/redact.ts';
import { projectLabel } from '../../core/capture/project.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { evaluate } from '../../core/expr/compile.ts';
import { Mapper } from '../../core/map/mapper.ts';
import { sourceHost } from '../../core/map/envelope.ts';
import { importedEvents } from '../../runtime/usage/import-events.ts';
import { ImportDeadline, ImportFileChanged, readPastSession } from '../../runtime/usage/import-read.ts';
import type { PriceBook } from '../../runtime/usage/prices.ts';
import { resolveTranscript, TranscriptRefused } from '../../runtime/usage/transcript-file.ts';
import { Indexer } from './indexer.ts';
import { IMPORTED_DIR, type Db } from './store.ts';

/** A session id that may name a file: no path separator, no `..`, printable. */
const SAFE_SESSION = /^(?!\.)[A-Za-z0-9._:@+-]{1,200}$/;
const MAX_DEPTH = 8;
/** The history's `files` rows of files an import read (its size, and its modification time in `pos`): never a log path. */
const SEEN = 'import:';
/** The imported log of one session is read back for its ids: at most this much of it. */
const MAX_OWN_LOG = 256 * 1024 * 1024;

export type SkipCode =
  | 'transcript-outside-folders'
  | 'transcript-not-a-file'
  | 'transcript-unreadable'
  | 'import-file-too-large'
  | 'import-no-session'
  | 'import-bad-session'
  | 'import-logged-live'
  | 'import-file-changed'
  | 'import-failed';

export interface ImportReport {
  agent: string;
  folders: string[];
  files: number;
  /** Sessions that gained events in this import. */
  sessions: number;
  events: number;
  /** Sessions whose every event was imported before. */
  unchanged: number;
  /** Files read to their end by an earlier import and unchanged since: not read again. */
  unchangedFiles: number;
  /** Lines skipped inside files read (not JSON, over the line limit). */
  skippedLines: number;
  skipped: { file: string; code: SkipCode; message: string }[];
  /** Why the import stopped before the last file: the time limit or the file count (run it again to go on). */
  stopped?: 'time' | 'count';
}

export interface ImportOptions {
  home: string;
  /** The user's home (`~/` in the descriptor's folders). */
  userHome: string;
  descriptor: Descriptor;
  db: Db;
  prices: PriceBook;
  /** HOOKMAP_<AGENT>_<KEY> option values (RuntimeConfig.options). */
  optionVars?: Readonly<Record<string, string>>;
  hostId?: string;
  /** Give up after this long (default 10 minutes). */
  maxMs?: number;
  now?: () => number;
  progress?: (done: number, total: number) => void;
}

/** The agent's folders, as the descriptor names them (`~/`, `$config`, `$home`). */
async function foldersOf(d: Descriptor, mapper: Mapper, userHome: string): Promise<string[]> {
  const out: string[] = [];
  for (const f of d.transcript?.folders ?? []) {
    let v: unknown = f;
    if (typeof f !== 'string') {
      try {
        v = await evaluate(f, {}, { agent: d.vendor, config: mapper.effectiveConfig, home: userHome });
      } catch {
        v = undefined;
      }
    }
    if (typeof v === 'string' && v) out.push(v.startsWith('~/') ? join(userHome, v.slice(2)) : v);
  }
  return out;
}

/** The files under `folder` whose names match, depth-first in name order, symlinked folders not followed; at most `max`. */
function filesUnder(folder: string, files: RegExp, max: number, wanted: (path: string) => boolean): { list: string[]; more: boolean } {
  const list: string[] = [];
  let more = false;
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const n of names) {
      if (list.length >= max) {
        more = true;
        return;
      }
      const p = join(dir, n);
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (depth < MAX_DEPTH) walk(p, depth + 1);
      } else if (files.test(n) && (st.isFile() || st.isSymbolicLink()) && wanted(p)) list.push(p);
    }
  };
  walk(folder, 0);
  return { list, more };
}

interface OwnLog {
  ids: Set<string>;
  /** The next seq in the session (after the last one the log holds). */
  seq: number;
}

/** The ids an imported log already holds, and where its seq goes on. */
function ownLog(file: string): OwnLog {
  const ids = new Set<string>();
  let seq = 0;
  if (!existsSync(file)) return { ids, seq };
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const size = Math.min(fstatSync(fd).size, MAX_OWN_LOG);
    const buf = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    for (const line of buf.toString('utf8', 0, got).split('\n')) {
      const m = /^\{"aep":"[^"]*","id":"([^"]+)".*?,"seq":(\d+)/.exec(line);
      if (!m) continue;
      ids.add(m[1]);
      seq = Math.max(seq, Number(m[2]) + 1);
    }
  } finally {
    closeSync(fd);
  }
  return { ids, seq };
}

function append(file: string, lines: string[]): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, lines.join(''));
  } finally {
    closeSync(fd);
  }
}

/** Import one agent's past sessions into the history `o.db` (then indexed); what was done, per file skipped and why. */
export async function importHistory(o: ImportOptions): Promise<ImportReport> {
  const d = o.descriptor;
  const now = o.now ?? Date.now;
  const deadline = now() + (o.maxMs ?? 600_000);
  const imp = d.transcript?.import;
  const report: ImportReport = {
    agent: d.vendor,
    folders: [],
    files: 0,
    sessions: 0,
    events: 0,
    unchanged: 0,
    unchangedFiles: 0,
    skippedLines: 0,
    skipped: [],
  };
  if (!d.transcript || !imp) return report;
  const mapper = new Mapper(d, { optionVars: o.optionVars, host: sourceHost(o.hostId) });
  const redactor = new Redactor({ secretNames: d.capture.secretNames });
  report.folders = await foldersOf(d, mapper, o.userHome);
  // a file read to its end before and unchanged since (its size and time) is not read again, nor counted against max_files
  const seenAt = o.db.prepare('SELECT size, pos FROM files WHERE path = ?');
  const setSeen = o.db.prepare(
    'INSERT INTO files (path, pos, size) VALUES (?, ?, ?) ON CONFLICT (path) DO UPDATE SET pos = excluded.pos, size = excluded.size',
  );
  const stamp = (path: string): { size: number; mtime: number } | undefined => {
    try {
      const st = statSync(path);
      return { size: st.size, mtime: Math.floor(st.mtimeMs) };
    } catch {
      return undefined;
    }
  };
  const unchanged = (path: string): boolean => {
    const was = seenAt.get(`${SEEN}${path}`) as { size: number; pos: number } | undefined;
    const now = stamp(path);
    return !!was && !!now && was.size === now.size && was.pos === now.mtime;
  };
  const files: string[] = [];
  for (const f of report.folders) {
    const r = filesUnder(f, imp.files, imp.maxFiles - files.length, (p) => {
      if (!unchanged(p)) return true;
      report.unchangedFiles++;
      return false;
    });
    files.push(...r.list);
    if (r.more) report.stopped = 'count';
  }
  const outDir = join(o.home, IMPORTED_DIR, d.agent);
  mkdirSync(outDir, { recursive: true, mode: 0o700 });
  // the session, or a resumed part of it (<id>~2), logged by a daemon
  const live = o.db.prepare(
    "SELECT 1 FROM sessions WHERE agent = @agent AND (session = @s OR substr(session, 1, length(@s) + 1) = @s || '~') AND state != 'imported' LIMIT 1",
  );
  const known = new Map<string, OwnLog>();
  const touched = new Set<string>();
  const bindings = { agent: d.vendor, config: mapper.effectiveConfig, home: o.userHome };
  const ctx = { agent: d.agent, host: sourceHost(o.hostId), ceilingFor: (t: string) => mapper.ceilingFor(t), redactor, prices: o.prices, client: d.vendor };
  /** Import one file; its skip code when it is skipped. */
  const one = async (file: string): Promise<[SkipCode, string] | undefined> => {
    const real = resolveTranscript(file, report.folders);
    const st = statSync(real);
    if (st.size > imp.maxFileBytes)
      return ['import-file-too-large', `${st.size} bytes, over the limit of ${imp.maxFileBytes} (transcript.import.max_file_bytes)`];
    const s = await readPastSession(real, d.transcript!, { bindings, deadline, now, fallbackTime: new Date(st.mtimeMs).toISOString() });
    report.skippedLines += s.skipped;
    const session = s.session;
    if (!session) return ['import-no-session', 'no line names a session'];
    if (!SAFE_SESSION.test(session) || session.includes('..'))
      return ['import-bad-session', 'the session id is not a plain name (a path separator, `..` or another character a file name cannot take)'];
    if (live.get({ agent: d.agent, s: session }))
      return ['import-logged-live', `session ${session} is in the history from hookmap's own logs (its usage is counted there)`];
    const out = join(outDir, `${session}.jsonl`);
    let own = known.get(session);
    if (!own) known.set(session, (own = ownLog(out)));
    const evs = importedEvents({ ...s, session }, { ...ctx, project: projectLabel(s.cwd) }, own.ids, own.seq);
    if (!evs.length) return undefined;
    append(
      out,
      evs.map((e) => `${JSON.stringify(e)}\n`),
    );
    for (const e of evs) own.ids.add(e.id);
    own.seq += evs.length;
    report.events += evs.length;
    touched.add(session);
    return undefined;
  };
  for (const [i, file] of files.entries()) {
    o.progress?.(i, files.length);
    if (now() > deadline) {
      report.stopped = 'time';
      break;
    }
    report.files++;
    // the file as it was before the read: recorded once the outcome is known, so an unchanged file is not read again
    const before = stamp(file);
    try {
      const skipped = await one(file);
      if (skipped) report.skipped.push({ file, code: skipped[0], message: skipped[1] });
    } catch (e) {
      if (e instanceof ImportDeadline) {
        report.stopped = 'time';
        break;
      }
      const [code, message]: [SkipCode, string] =
        e instanceof TranscriptRefused ? [e.code, e.message] : [e instanceof ImportFileChanged ? 'import-file-changed' : 'import-failed', (e as Error).message];
      report.skipped.push({ file, code, message });
      if (code === 'import-file-changed' || code === 'import-failed') continue;
    }
    if (before) setSeen.run(`${SEEN}${file}`, before.mtime, before.size);
  }
  o.progress?.(files.length, files.length);
  report.sessions = touched.size;
  report.unchanged = [...known.keys()].filter((k) => !touched.has(k)).length;
  new Indexer(o.db, [join(o.home, IMPORTED_DIR)]).catchUp();
  return report;
}
