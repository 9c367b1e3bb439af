// The history database's costs, against a baseline in the same run:
// indexing the JSONL logs (history/indexer.ts, batched transactions, FTS5)
// against writing the same events to those logs (the daemon's SessionLog,
// the baseline), and full-text search p50/p99 over the indexed events.
// Events are real envelopes from a real daemon (claude-code, capture full),
// copied with fresh ids, sessions and words.
//   npx tsx bench/history/run.ts [--events 1000000] [--queries 200]
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ulid } from 'ulid';
import { Daemon } from '../../engine/daemon/daemon.ts';
import { SessionLog } from '../../engine/daemon/session-log.ts';
import { loadVendor } from '../../engine/descriptor/registry.ts';
import { Indexer } from '../../engine/history/indexer.ts';
import { search } from '../../engine/history/search.ts';
import { openHistory } from '../../engine/history/store.ts';

const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const EVENTS = opt('--events', 1_000_000);
const QUERIES = opt('--queries', 200);
const PER_SESSION = 500;
const root = mkdtempSync(join(tmpdir(), 'hookmap-bench-history-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

// real envelopes: one turn of a real daemon
const seedDir = join(root, 'seed');
const d = Daemon.open({ descriptor: loadVendor('claude-code'), logDir: seedDir, capture: 'full' });
const base = { session_id: 'seed', cwd: '/work/shop' };
await d.handle({ hook: 'SessionStart', payload: { ...base, hook_event_name: 'SessionStart', source: 'startup' } });
await d.handle({ hook: 'UserPromptSubmit', payload: { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'WORD in the billing service' } });
await d.handle({
  hook: 'PreToolUse',
  payload: { ...base, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'grep -rn WORD src/' } },
});
await d.handle({
  hook: 'PostToolUse',
  payload: { ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'x' }, tool_response: 'src/a.ts: WORD' },
});
await d.handle({ hook: 'Stop', payload: { ...base, hook_event_name: 'Stop' } });
await d.close();
const seed = readdirSync(seedDir)
  .filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) =>
    readFileSync(join(seedDir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  );
const turn = seed.filter((e) => e.type !== 'session.started');

// a vocabulary: words of varying frequency (word i in about 1 of i+1 turns)
const VOCAB = Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}x`);
let rnd = 42;
const next = () => (rnd = (rnd * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const word = () => VOCAB[Math.min(VOCAB.length - 1, Math.floor(1 / (next() + 1e-3)) - 1)];

console.log(
  `history bench: ${EVENTS.toLocaleString()} events (${PER_SESSION} a session), ${turn.length}-event turns from a real claude-code daemon, capture full`,
);
// baseline: the same events written to the JSONL logs the way the daemon does (SessionLog.append)
const logDir = join(root, 'logs', 'claude-code');
const log = new SessionLog(logDir, { maxOpenFiles: 64 });
let writeMs = 0;
let written = 0;
for (let s = 0; written < EVENTS; s++) {
  const session = `bench-${s}`;
  const batch: Record<string, unknown>[] = [];
  for (let i = 0; i < PER_SESSION && written + batch.length < EVENTS; i++) {
    const tpl = i === 0 ? seed[0] : turn[i % turn.length];
    const ev = JSON.parse(JSON.stringify(tpl).replaceAll('WORD', word()));
    batch.push({ ...ev, id: ulid(), session, seq: i });
  }
  // only the appends are timed (building the events is not what the daemon pays for)
  const t0 = performance.now();
  for (const ev of batch) log.append(ev as never);
  writeMs += performance.now() - t0;
  written += batch.length;
}
log.close();

const db = openHistory(join(root, 'history.db'));
const t1 = performance.now();
const r = new Indexer(db, [join(root, 'logs')]).catchUp();
const indexMs = performance.now() - t1;
if (r.events !== EVENTS) throw new Error(`indexed ${r.events} of ${EVENTS}`);
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));
console.log(`write to JSONL (baseline): ${rate(EVENTS, writeMs).toLocaleString()} events/s (${(writeMs / 1000).toFixed(1)} s)`);
console.log(
  `index into SQLite+FTS5:    ${rate(EVENTS, indexMs).toLocaleString()} events/s (${(indexMs / 1000).toFixed(1)} s), ` +
    `${(indexMs / writeMs).toFixed(2)}x the time of writing them`,
);

const lat: number[] = [];
let hits = 0;
for (let i = 0; i < QUERIES; i++) {
  const q = i % 4 === 0 ? `${word()} ${word()}` : word();
  const t = performance.now();
  hits += search(db, q, { limit: 50, perSession: 20 }).length;
  lat.push(performance.now() - t);
}
lat.sort((a, b) => a - b);
const p = (x: number) => lat[Math.min(lat.length - 1, Math.floor(x * lat.length))].toFixed(1);
console.log(
  `search over ${EVENTS.toLocaleString()} events, ${QUERIES} queries (one or two words, Zipf-like frequency): ` +
    `p50 ${p(0.5)} ms, p99 ${p(0.99)} ms (${(hits / QUERIES).toFixed(1)} sessions a query)`,
);
const size = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
console.log(`database ${(size / 2 ** 20).toFixed(0)} MiB for ${EVENTS.toLocaleString()} events`);
db.close();
