// What `durability: fsync` costs: a real daemon (`hookmap serve codex`
// in-process, no relay) answering PreToolUse firings POSTed over loopback,
// with the default `none` (answer once the OS has the line) against `fsync`
// (answer once the disk has it: fdatasync, group commit), same run,
// alternating rounds, at 1 and 16 firings in flight. Logs go to a temp
// folder on the same disk hookmap would use.
//   npx tsx bench/durability/run.ts [--n 2000]
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServe } from '../../engine/app/serve.ts';
import type { Durability } from '../../engine/runtime/daemon/session-log.ts';
import { loadVendor } from '../../engine/core/descriptor/registry.ts';
import { ratio, writeResult } from '../results.ts';

const args = process.argv.slice(2);
const N = Number(args[args.indexOf('--n') + 1]) || 2000;
const ROUNDS = 4;
const root = mkdtempSync(join(tmpdir(), 'hookmap-bench-durability-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

async function server(durability: Durability) {
  const s = await startServe({ descriptor: loadVendor('codex'), port: 0, logDir: join(root, durability), durability });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let i = 0;
  const fire = () =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({
        hook_event_name: 'PreToolUse',
        session_id: `bench-${i % 8}`,
        turn_id: 't',
        tool_name: 'Bash',
        tool_input: { command: 'ls -la' },
        tool_use_id: `c${++i}`,
      });
      const t0 = performance.now();
      const req = http.request(
        { host: '127.0.0.1', port: s.port, path: '/hooks/codex', method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(performance.now() - t0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { s, agent, fire };
}

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

const servers = { none: await server('none'), fsync: await server('fsync') };
const results: Record<string, { lat: number[]; ms: number; n: number; flushes: number }> = {};
for (const inflight of [1, 16]) {
  for (const d of ['none', 'fsync'] as Durability[]) results[`${d}/${inflight}`] = { lat: [], ms: 0, n: 0, flushes: 0 };
  for (let r = 0; r < ROUNDS; r++) {
    for (const d of (r % 2 ? ['fsync', 'none'] : ['none', 'fsync']) as Durability[]) {
      const { fire, s } = servers[d];
      const acc = results[`${d}/${inflight}`];
      const before = s.daemon.log.flushes;
      let left = N / ROUNDS;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: inflight }, async () => {
          while (left-- > 0) acc.lat.push(await fire());
        }),
      );
      acc.ms += performance.now() - t0;
      acc.n += N / ROUNDS;
      acc.flushes += s.daemon.log.flushes - before;
    }
  }
}
for (const { s, agent } of Object.values(servers)) {
  agent.destroy();
  await s.close();
}
console.log(
  `Durability cost: ${N} PreToolUse firings per row (${ROUNDS} alternating rounds), codex ` +
    `daemon in-process, loopback HTTP, logs on ${root.split('/')[1] === 'tmp' ? '/tmp' : root}, ` +
    `Node ${process.version}\n`,
);
console.log('| durability | in flight | firings/s | p50 | p99 | flushes per firing | p50 vs none |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const inflight of [1, 16]) {
  const base = results[`none/${inflight}`];
  for (const d of ['none', 'fsync']) {
    const r = results[`${d}/${inflight}`];
    console.log(
      `| ${d} | ${inflight} | ${Math.round((r.n / r.ms) * 1000).toLocaleString('en-US')} | ${q(r.lat, 0.5).toFixed(2)} ` +
        `ms | ${q(r.lat, 0.99).toFixed(2)} ms | ${d === 'fsync' ? (r.flushes / r.n).toFixed(2) : '-'} ` +
        `| ${(q(r.lat, 0.5) / q(base.lat, 0.5)).toFixed(2)} |`,
    );
  }
}
const r2 = (x: number) => Math.round(x * 100) / 100;
writeResult({
  bench: 'durability',
  title: 'Durability',
  command: `npx tsx bench/durability/run.ts --n ${N}`,
  about:
    'what `durability: fsync` costs: a real daemon (`hookmap serve codex` in process, no relay) answering PreToolUse firings ' +
    'POSTed over loopback, with the default `none` (answered once the OS has the line) as the baseline against `fsync` ' +
    `(answered once the disk has it: fdatasync, group commit), same run, ${ROUNDS} alternating rounds, at 1 and 16 firings in flight; ` +
    'logs in a temporary folder.',
  tables: [
    {
      caption: `${N} PreToolUse firings per row.`,
      label: 'durability, in flight',
      columns: [
        { name: 'firings/s', unit: '' },
        { name: 'p50', unit: 'ms' },
        { name: 'p99', unit: 'ms' },
        { name: 'flushes per firing', unit: '' },
      ],
      ratio: 'p50 vs none',
      rows: [1, 16].flatMap((inflight) =>
        (['none', 'fsync'] as const).map((d) => {
          const r = results[`${d}/${inflight}`];
          const base = results[`none/${inflight}`];
          return {
            name: `${d}, ${inflight}`,
            values: [Math.round((r.n / r.ms) * 1000), r2(q(r.lat, 0.5)), r2(q(r.lat, 0.99)), d === 'fsync' ? r2(r.flushes / r.n) : null],
            ratio: ratio(q(r.lat, 0.5), q(base.lat, 0.5)),
            ...(d === 'none' ? { baseline: true } : {}),
          };
        }),
      ),
    },
  ],
});

process.exit(0);
