// /healthz and a hook under the two floods of issue 40, measured from another
// process than the one flooded. One `hookmap up` (the clone's bin, a new home)
// runs as a child; this process is the attacker and the prober both:
//   quiet          /healthz (owner token) and a Claude Code hook, nothing else going on
//   record flood   the same while one OTLP export of 150,000 empty LogRecords (a few
//                  hundred gzipped bytes, no token) is read and mapped; probes are sent
//                  0-80 ms after the export, so they land while it is decoded and mapped
//   waiter flood   the same with 300 next-turn waiters posted for sessions no hook named
// The floods are sent from a worker thread (an event loop of its own), so the
// prober's timings are not the cost of sending 300 requests in its own loop.
// Reported: median and worst probe of each, and each as a ratio of the quiet median in
// the same run. Issue 40's bound: /healthz within 50 ms during either flood.
//   npx tsx bench/floods/run.ts [--rounds 5]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { r1, ratio, writeResult } from '../results.ts';

const args = process.argv.slice(2);
const ROUNDS = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) || 5 : 5;
const BIN = fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url));
const DELAYS = [0, 5, 10, 20, 40, 80];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
};
const field = (tag: number, body: Buffer) => Buffer.concat([Buffer.from([tag, ...varint(body.length)]), body]);
/** ExportLogsServiceRequest { resource_logs { scope_logs { log_records {} x n } } }, gzipped. */
function emptyRecords(n: number): Buffer {
  const records = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) records[i * 2] = 0x12;
  return gzipSync(field(0x0a, field(0x12, records)));
}

/** The attacker: an event loop of its own that sends a flood when told and says when it is answered. */
const ATTACKER = `
const { parentPort } = require('node:worker_threads');
let abort;
parentPort.on('message', async (m) => {
  if (m.kind === 'records') {
    const headers = { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' };
    const r = await fetch(m.url + '/otlp/codex-otel/v1/logs', { method: 'POST', headers, body: m.body });
    await r.text();
    parentPort.postMessage({ kind: 'records', status: r.status });
  } else if (m.kind === 'waiters') {
    abort = new AbortController();
    const sent = Array.from({ length: m.n }, (_, i) =>
      fetch(m.url + '/next-turn/claude-code', { method: 'POST', headers: m.headers, signal: abort.signal,
        body: JSON.stringify({ hook_event_name: 'Stop', session_id: 'ghost-' + m.round + '-' + i, cwd: '/', transcript_path: '/dev/null' }) })
        .then((r) => r.text(), () => undefined));
    parentPort.postMessage({ kind: 'waiters-sent' });
    await Promise.allSettled(sent);
  } else if (m.kind === 'abort') {
    abort?.abort();
    parentPort.postMessage({ kind: 'aborted' });
  }
});
`;

async function startUp(home: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const p = spawn(process.execPath, [BIN, 'up', '--port', '0'], { env: { ...process.env, HOOKMAP_HOME: home }, stdio: ['ignore', 'pipe', 'ignore'] });
  const stop = () => new Promise<void>((r) => (p.exitCode !== null ? r() : (p.once('exit', () => r()), p.kill('SIGTERM'))));
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    p.stdout!.on('data', (c) => {
      buf += c;
      if (buf.includes('\n')) resolve(buf.split('\n')[0].trim());
    });
    p.once('exit', (code) => reject(new Error(`up exited ${code}`)));
  });
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  for (let i = 0; ; i++) {
    const h = await fetch(`${url}/healthz`, { headers: { authorization: `Bearer ${token}` } }).then(
      (r) => r.json(),
      () => ({}),
    );
    if ((h as { relay?: boolean }).relay === true) break;
    if (i > 3000) throw new Error('up: not ready');
    await sleep(10);
  }
  return { url, stop };
}

async function main(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'hookmap-bench-floods-'));
  const up = await startUp(home);
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const hookHeaders = { 'content-type': 'application/json', ...hookKeyHeaders(home) };
  const timed = async (url: string, init?: RequestInit): Promise<number> => {
    const t0 = performance.now();
    const r = await fetch(url, init);
    await r.text();
    if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
    return performance.now() - t0;
  };
  const health = () => timed(`${up.url}/healthz`, { headers: { authorization: `Bearer ${token}` } });
  let n = 0;
  const hook = () =>
    timed(`${up.url}/hooks/claude-code`, {
      method: 'POST',
      headers: hookHeaders,
      body: JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'bench-floods', cwd: home, transcript_path: '/dev/null', prompt: `p${n++}` }),
    });
  await timed(`${up.url}/hooks/claude-code`, {
    method: 'POST',
    headers: hookHeaders,
    body: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'bench-floods', cwd: home, transcript_path: '/dev/null', source: 'startup' }),
  });
  await sleep(1_500); // the start's own background work (validators, expressions) is not a flood's
  const probes = () =>
    Promise.all(DELAYS.map((d) => sleep(d).then(async () => [await health(), await hook()] as const))).then((xs) => ({
      health: xs.map((x) => x[0]),
      hook: xs.map((x) => x[1]),
    }));
  const samples = {
    quiet: { health: [] as number[], hook: [] as number[] },
    records: { health: [] as number[], hook: [] as number[] },
    waiters: { health: [] as number[], hook: [] as number[] },
  };
  const keep = (into: { health: number[]; hook: number[] }, got: { health: number[]; hook: number[] }) => {
    into.health.push(...got.health);
    into.hook.push(...got.hook);
  };
  const body = emptyRecords(150_000);
  let overs = 0;
  const attacker = new Worker(ATTACKER, { eval: true });
  const next = (kind: string) =>
    new Promise<{ kind: string; status?: number }>((resolve) => {
      const on = (m: { kind: string; status?: number }) => {
        if (m.kind !== kind) return;
        attacker.off('message', on);
        resolve(m);
      };
      attacker.on('message', on);
    });
  for (let round = 0; round < ROUNDS; round++) {
    keep(samples.quiet, await probes());
    // the receiver's rate (2,000 records a burst, 20 a second by default) is spent by one export: wait it out
    attacker.postMessage({ kind: 'records', url: up.url, body });
    keep(samples.records, await probes());
    if ((await next('records')).status === 200) overs++;
    attacker.postMessage({ kind: 'waiters', url: up.url, n: 300, round, headers: hookHeaders });
    await next('waiters-sent');
    keep(samples.waiters, await probes());
    attacker.postMessage({ kind: 'abort' });
    await next('aborted');
    await sleep(1_200);
  }
  await attacker.terminate();
  await up.stop();
  rmSync(home, { recursive: true, force: true });
  if (overs === 0) throw new Error('no flood export was taken: the bench measured nothing');

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const max = (xs: number[]) => Math.max(...xs);
  const base = { health: median(samples.quiet.health), hook: median(samples.quiet.hook) };
  const rows = (what: 'health' | 'hook') =>
    (['quiet', 'records', 'waiters'] as const).map((k) => ({
      name: { quiet: 'quiet', records: 'one export of 150,000 empty records', waiters: '300 waiters for unknown sessions' }[k],
      values: [r1(median(samples[k][what])), r1(max(samples[k][what]))],
      ratio: ratio(median(samples[k][what]), base[what]),
      ...(k === 'quiet' ? { baseline: true } : {}),
    }));
  const worstHealth = Math.max(max(samples.records.health), max(samples.waiters.health));
  for (const [k, v] of Object.entries(samples)) {
    console.log(
      `${k.padEnd(8)} /healthz median ${median(v.health).toFixed(1)} max ${max(v.health).toFixed(1)} ms; ` +
        `hook median ${median(v.hook).toFixed(1)} max ${max(v.hook).toFixed(1)} ms`,
    );
  }
  const columns = [
    { name: 'median', unit: 'ms' },
    { name: 'worst', unit: 'ms' },
  ];
  writeResult({
    bench: 'floods',
    title: 'Floods',
    command: `npx tsx bench/floods/run.ts --rounds ${ROUNDS}`,
    about:
      `A whole \`hookmap up\` in a child process, probed from the bench's own process (the floods sent from a worker thread): ` +
      `/healthz (owner token) and a Claude Code hook, ${DELAYS.length} probes of each per round ` +
      `(sent ${DELAYS.join(', ')} ms after a flood starts), ${ROUNDS} rounds, while nothing else happens, ` +
      'during one OTLP export of 150,000 empty LogRecords (no token), and with 300 next-turn waiters posted for sessions no hook named. ' +
      'Ratios of medians against the quiet probes of the same run.',
    tables: [
      { caption: '/healthz during the floods', label: 'load', columns, ratio: 'vs quiet (median)', rows: rows('health') },
      { caption: 'A hook during the floods', label: 'load', columns, ratio: 'vs quiet (median)', rows: rows('hook') },
    ],
    notes: [
      `The worst /healthz probe took ${r1(max(samples.records.health))} ms during the record flood ` +
        `and ${r1(max(samples.waiters.health))} ms during the waiter flood (issue 40's bound: 50 ms; ` +
        `${worstHealth <= 50 ? 'both within it' : 'over it where a probe queued behind the burst itself'}); ` +
        'every probe and every hook was answered 200.',
    ],
  });
}

await main();
