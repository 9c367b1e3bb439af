// `hookmap up`'s side of the history's indexer (index-worker.ts): starts it
// in a child process of its own, which puts every thread of it at the lowest
// priority once loaded (its garbage collector's helper threads too, which in a
// worker thread of up were up's own and took the CPU from the thread answering
// hooks), from the sources through tsx or from the bundle as
// dist/engine/history-worker.js (an entry point of its own in
// codegen/bundle.mjs); hands it its input and the stream's lines over IPC,
// and, when it dies, says so and starts it again after a growing pause, at
// most MAX_RESTARTS times in RESTART_WINDOW_MS: hooks never depended on it.
// close() asks it to finish its step and waits (a bounded time) for it; it
// exits by itself when up goes away (its IPC channel closes).
import { spawn as spawnChild, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FromWorker, ToWorker, WorkerInput } from './index-worker.ts';

export interface IndexerStatus {
  /** starting | running | restarting (it died, a new one follows) | failed (died too often: not restarted) | stopped */
  state: 'starting' | 'running' | 'restarting' | 'failed' | 'stopped';
  /** Times it was started again after dying. */
  restarts: number;
  /** Events this worker indexed since it started. */
  indexed: number;
  /** Why it last died. */
  error?: string;
  /** Its last step yielded to agents at work (smaller, with a pause after it: history.ts ACTIVE). */
  yielding: boolean;
}

export const MAX_RESTARTS = 5;
export const RESTART_WINDOW_MS = 10 * 60_000;
const PAUSES_MS = [200, 1000, 5000, 15_000, 60_000];
const STOP_WAIT_MS = 5000;

/** What the worker's stderr said last (its crash), kept for the line that says it died. */
const STDERR_TAIL = 2000;

/** The worker, from the sources (this module is .ts: through tsx's loader) or from the bundle (a chunk beside history-worker.js). */
function spawn(input: WorkerInput): ChildProcess {
  const here = import.meta.url;
  const node = here.endsWith('.ts')
    ? [process.execPath, '--import', pathToFileURL(createRequire(here).resolve('tsx')).href, fileURLToPath(new URL('./index-worker.ts', here))]
    : [process.execPath, fileURLToPath(new URL('./history-worker.js', here))];
  const child = spawnChild(node[0], node.slice(1), { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
  child.send({ start: input });
  return child;
}

export class IndexerHost {
  private worker?: ChildProcess;
  private s: IndexerStatus = { state: 'starting', restarts: 0, indexed: 0, yielding: false };
  private deaths: number[] = [];
  private retry?: NodeJS.Timeout;
  private closing?: Promise<void>;
  private asked = 0;
  private readonly waiting = new Map<number, () => void>();

  constructor(
    private readonly input: WorkerInput,
    private readonly say: (l: string) => void = () => {},
    /** The pauses before each start again (the last one repeats). */
    private readonly pausesMs: readonly number[] = PAUSES_MS,
  ) {}

  start(): this {
    const w = spawn(this.input);
    this.worker = w;
    this.s.state = 'starting';
    this.s.indexed = 0;
    // never what keeps a process alive: close() stops it
    w.unref();
    w.channel?.unref();
    let why: string | undefined;
    let stderr = '';
    w.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-STDERR_TAIL)));
    (w.stderr as { unref?: () => void } | null)?.unref?.();
    w.on('message', (m: FromWorker) => {
      if ('ready' in m) this.s.state = 'running';
      else if ('step' in m) {
        this.s.indexed = m.total;
        this.s.yielding = m.yielding;
      } else if ('caughtUp' in m) {
        this.s.indexed = m.total;
        this.waiting.get(m.caughtUp)?.();
        this.waiting.delete(m.caughtUp);
      } else if ('say' in m) this.say(m.say);
    });
    w.on('error', (e) => (why = e.message));
    w.on('exit', (code, signal) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      for (const done of this.waiting.values()) done();
      this.waiting.clear();
      if (this.closing) return;
      const said = stderr.trim().split('\n').filter(Boolean).at(-1)?.slice(0, 300);
      this.died(why ?? `${signal ? `killed by ${signal}` : `exit code ${code}`}${said ? `: ${said}` : ''}`);
    });
    return this;
  }

  private died(why: string): void {
    const now = Date.now();
    this.deaths = [...this.deaths.filter((t) => now - t < RESTART_WINDOW_MS), now];
    this.s.error = why;
    if (this.deaths.length > MAX_RESTARTS) {
      this.s.state = 'failed';
      this.say(
        `history: the indexer stopped (${why}) ${this.deaths.length} times in ${RESTART_WINDOW_MS / 60_000} minutes: not started again; ` +
          'hooks are answered as before, search finds what was indexed until up restarts',
      );
      return;
    }
    const pause = this.pausesMs[Math.min(this.pausesMs.length - 1, this.deaths.length - 1)];
    this.s.state = 'restarting';
    this.say(`history: the indexer stopped (${why}): hooks are answered as before; starting it again in ${pause / 1000} s`);
    this.retry = setTimeout(() => {
      this.s.restarts++;
      this.start();
    }, pause);
    this.retry.unref();
  }

  status(): IndexerStatus {
    return { ...this.s };
  }

  /** The running worker's process (undefined while it is restarted or after close). */
  get process(): ChildProcess | undefined {
    return this.worker;
  }

  /** Index the stream's lines (dropped while no worker runs: the logs are indexed at its next start). */
  indexLines(lines: { line: string; agent: string }[]): void {
    this.send({ lines });
  }

  /** Resolves once the worker indexed everything the logs hold now (or is gone). */
  caughtUp(): Promise<void> {
    if (!this.worker) return Promise.resolve();
    const id = ++this.asked;
    return new Promise((done) => {
      this.waiting.set(id, done);
      this.send({ catchUp: id });
    });
  }

  private send(m: ToWorker): void {
    const w = this.worker;
    if (w?.connected) w.send(m, (e) => e && this.say(`history: the indexer did not take a message: ${e.message}`));
  }

  /** Let the worker finish its step and close its connection; after STOP_WAIT_MS it is terminated (its step rolls back). */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      clearTimeout(this.retry);
      const w = this.worker;
      this.s.state = 'stopped';
      if (!w) return;
      const gone = new Promise<void>((done) => (w.exitCode !== null || w.signalCode !== null ? done() : w.once('exit', () => done())));
      this.send({ stop: true });
      const timer = setTimeout(() => void w.kill('SIGKILL'), STOP_WAIT_MS);
      await gone;
      clearTimeout(timer);
    })());
  }
}
