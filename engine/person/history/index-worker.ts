// The history's indexer in a child process of `hookmap up` (worker-host.ts
// starts it; it lowers its own priority): the only writer of the database, on its own connection,
// so a step of indexing (parsing log lines, one transaction into SQLite and
// FTS5) never runs in the process that answers hooks. Its input is the first
// message on the IPC channel; it exits when that channel closes (up gone). It steps through the logs on
// a timer (back to back while more waits; small steps with pauses while up sends the stream's lines: agents at work), indexes the lines the host sends
// (a fleet's stream), applies the retention hourly and, told to stop,
// finishes the step it is in and closes: every step is one transaction that
// moves the logs' positions with it, so a stop (or a kill) at any moment
// loses nothing and indexes nothing twice.
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { Indexer, type StepResult } from './indexer.ts';
import { prune, type Retention } from './retention.ts';
import { indexedEvent, type IndexedEvent } from './rows.ts';
import { HistoryWriter, openHistory } from './store.ts';

export interface WorkerInput {
  file: string;
  roots: string[];
  stepBytes: number;
  everyMs: number;
  retention?: Retention;
  /** While the stream is active (its lines came within windowMs): steps of stepBytes, each followed by a pause so that indexing takes `duty` of a core. */
  active?: { windowMs: number; stepBytes: number; duty: number };
}

/** What the host sends: its input (first), lines to index (the stream's), index everything now (and say so), or stop. */
export type ToWorker = { start: WorkerInput } | { lines: { line: string; agent: string }[] } | { catchUp: number } | { stop: true };
/** What the worker says: ready, a step's result, everything indexed, a line for up's log, stopped. */
export type FromWorker =
  { ready: true } | { step: StepResult; total: number; yielding: boolean } | { caughtUp: number; total: number } | { say: string } | { stopped: true };

// the lowest priority for every thread of this process (Linux's nice is per thread: each is named by its id in
// /proc/self/task; threads started later inherit it), once its code is loaded: its garbage collector's helpers too,
// so on a busy machine the process answering hooks runs first and indexing takes what is left
function lowest(): void {
  let tids: number[] = [0];
  try {
    tids = readdirSync('/proc/self/task').map(Number);
  } catch {
    /* not Linux: this thread alone */
  }
  for (const t of tids)
    try {
      setPriority(t, 19);
    } catch {
      /* not allowed here: the same priority as up */
    }
}
lowest();

const post = (m: FromWorker) => process.connected && process.send!(m);
let input: WorkerInput;
let db: ReturnType<typeof openHistory>;
let indexer: Indexer;
let writer: HistoryWriter;
let stopped = false;
let timer: NodeJS.Timeout | undefined;
let soon: NodeJS.Immediate | undefined;
let lastPrune = 0;
let total = 0;
/** What the host last heard: a step is said when either changed (the stream's lines are counted without a step of their own). */
let told = { total: 0, yielding: false };
/** When up last sent the stream's lines: agents are at work. */
let lastLines = 0;

function tick(): void {
  timer = soon = undefined;
  if (stopped) return;
  let r: StepResult;
  // agents at work: a small step and a pause after it. Priority alone did not keep this process off the hook's path:
  // with it indexing back to back, a hook's p99 rose 1.2-1.3x (bench/history), at a tenth of a core it did not
  const a = input.active;
  const yielding = !!a && Date.now() - lastLines < a.windowMs;
  const t0 = performance.now();
  try {
    r = indexer.step(yielding ? a.stepBytes : input.stepBytes);
    total += r.events;
    if (r.events || r.more || total !== told.total || yielding !== told.yielding) {
      told = { total, yielding };
      post({ step: r, total, yielding });
    }
    if (Date.now() - lastPrune > 3_600_000) {
      lastPrune = Date.now();
      const n = prune(db, input.retention);
      if (n) post({ say: `history: ${n} session(s) past the retention pruned` });
    }
  } catch (e) {
    post({ say: `history: indexing failed: ${(e as Error).message}` });
    r = { events: 0, bytes: 0, more: false };
  }
  // more waiting: the next step at once, after the messages already queued (the stream's lines, a stop); while agents
  // work, after a pause that leaves the core to them (duty 0.1: nine times the step's own time)
  if (r.more && yielding) timer = setTimeout(tick, Math.max(1, (performance.now() - t0) * (1 / a.duty - 1)));
  else if (r.more) soon = setImmediate(tick);
  else timer = setTimeout(tick, input.everyMs);
}

/** Finish: the step in hand is done (each is one transaction), the connection closed, the channel let go. */
function stop(): void {
  if (stopped) return;
  stopped = true;
  clearTimeout(timer);
  clearImmediate(soon);
  db?.close();
  post({ stopped: true });
  if (process.connected) process.disconnect();
}

process.on('message', (m: ToWorker) => {
  if ('start' in m) {
    if (db) return;
    input = m.start;
    db = openHistory(input.file);
    indexer = new Indexer(db, input.roots);
    writer = new HistoryWriter(db);
    post({ ready: true });
    return tick();
  }
  if ('stop' in m) return stop();
  if (stopped || !db) return;
  if ('catchUp' in m) {
    try {
      total += indexer.catchUp(input.stepBytes).events;
    } catch (e) {
      post({ say: `history: indexing failed: ${(e as Error).message}` });
    }
    return void post({ caughtUp: m.catchUp, total });
  }
  lastLines = Date.now();
  try {
    const rows = m.lines.map((l) => indexedEvent(l.line, l.agent)).filter((r): r is IndexedEvent => r !== undefined);
    if (rows.length) total += writer.batch(rows, []) as number;
  } catch (e) {
    post({ say: `history: indexing the stream failed: ${(e as Error).message}` });
  }
});
// up gone (its end of the channel closed, a crash included): nothing is left to index for
process.on('disconnect', stop);
