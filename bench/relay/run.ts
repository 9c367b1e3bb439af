// Relay benchmark: ingest-to-delivery throughput and latency over loopback,
// with 1 and 50 SSE subscribers. Bounded in time (DURATION_MS per scenario).
// Relay and clients share this process (one core does both sides), so the
// numbers are a floor for a relay with the machine to itself.
//   node --import tsx bench/relay/run.ts
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createRelay } from '../../engine/runtime/relay/index.ts';
import { r1, ratio, writeResult } from '../results.ts';

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const BATCH = 100;
const IN_FLIGHT = 4;

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * The baseline, run in the same process: a bare node:http fan-out that
 * splits NDJSON POSTs into lines and writes each to every SSE subscriber.
 * No validation, no dedupe, no buffer, no filters, no capture ceilings: the
 * floor any relay on this machine sits above. The ratio is the figure.
 */
function bareFanout(): { listen(): Promise<{ port: number }>; close(): Promise<void> } {
  const subs = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': subscribed\n\n');
      subs.add(res);
      req.on('close', () => subs.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
        if (!line) continue;
        const frame = `data: ${line}\n\n`;
        for (const s of subs) s.write(frame);
      }
      res.writeHead(202).end();
    });
  });
  return {
    listen: () => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as any).port }))),
    close: () =>
      new Promise((resolve) => {
        for (const s of subs) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function scenario(subscribers: number, kind: 'relay' | 'baseline') {
  // token-less (explicit): the bench measures fan-out, not authentication
  const relay = kind === 'relay' ? createRelay({ host: '127.0.0.1', port: 0, noAuth: true }) : bareFanout();
  const { port } = await relay.listen();
  const latencies: number[] = [];
  let delivered = 0;
  const reqs: http.ClientRequest[] = [];
  await Promise.all(
    Array.from(
      { length: subscribers },
      (_, i) =>
        new Promise<void>((resolve) => {
          const req = http.get({ host: '127.0.0.1', port, path: '/events', headers: { accept: 'text/event-stream' } }, (res) => {
            res.setEncoding('utf8');
            let buf = '';
            res.on('data', (chunk: string) => {
              if (buf === '' && chunk.startsWith(': subscribed')) resolve();
              buf += chunk;
              let at: number;
              const now = performance.now();
              while ((at = buf.indexOf('\n\n')) >= 0) {
                const msg = buf.slice(0, at);
                buf = buf.slice(at + 2);
                const m = /"t0":([\d.]+)/.exec(msg);
                if (!m) continue;
                delivered++;
                // Sample latency on one subscriber per scenario to keep bookkeeping off the hot path.
                if (i === 0) latencies.push(now - Number(m[1]));
              }
            });
          });
          reqs.push(req);
        }),
    ),
  );

  let seq = 0;
  let posted = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const postBatch = () =>
    new Promise<void>((resolve, reject) => {
      const t0 = performance.now();
      const lines: string[] = [];
      for (let i = 0; i < BATCH; i++) {
        seq++;
        lines.push(
          JSON.stringify({
            aep: '0.1',
            id: `b${seq}`,
            type: 'tool.completed',
            subject: 'Bash',
            time: new Date().toISOString(),
            source: 'aep://bench/agent/bench/session/s',
            agent: 'bench',
            session: `s${seq % 20}`,
            seq,
            data: { tool: { name: 'Bash', call_id: `c${seq}` }, status: 'success', t0 },
          }),
        );
      }
      const req = http.request(
        { host: '127.0.0.1', port, path: '/events', method: 'POST', agent, headers: { 'content-type': 'application/x-ndjson', 'aep-version': '0.1' } },
        (res) => {
          res.resume();
          res.on('end', () => {
            posted += BATCH;
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(lines.join('\n'));
    });

  // Warm-up (ajv compiles the envelope validator on first use, the JIT settles); not measured.
  for (let i = 0; i < 20; i++) await postBatch();
  const warm = BATCH * 20 * subscribers;
  while (delivered < warm) await new Promise((r) => setTimeout(r, 5));
  delivered = 0;
  posted = 0;
  latencies.length = 0;
  const start = performance.now();
  const end = start + DURATION_MS;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < end) await postBatch();
    }),
  );
  // Let delivery catch up (bounded), then measure.
  const target = posted * subscribers;
  const drainUntil = performance.now() + 10_000;
  while (delivered < target && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 5));
  const elapsed = (performance.now() - start) / 1000;
  for (const r of reqs) r.destroy();
  agent.destroy();
  await relay.close();
  latencies.sort((a, b) => a - b);
  return {
    subscribers,
    posted,
    delivered,
    complete: delivered === target,
    ingestPerSec: posted / elapsed,
    deliveriesPerSec: delivered / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

const rows = [];
for (const n of [1, 50]) {
  const base = await scenario(n, 'baseline');
  const relay = await scenario(n, 'relay');
  rows.push({ base, relay });
}
const f = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
console.log(
  `Relay ingest-to-delivery, loopback, ${DURATION_MS / 1000}s per scenario, NDJSON batches of ${BATCH}, ${IN_FLIGHT} POSTs in flight, Node ${process.version}`,
);
console.log('Baseline: a bare node:http NDJSON-to-SSE fan-out in the same process (no validation, dedupe, buffer or filters).\n');
console.log(
  '| SSE subscribers | server | events ingested/s | deliveries/s (all subscribers) | p50 ' +
    'latency (ms) | p99 latency (ms) | all delivered | throughput vs baseline |',
);
console.log('|---:|---|---:|---:|---:|---:|:---:|---:|');
for (const { base, relay } of rows) {
  for (const [name, r] of [
    ['baseline', base],
    ['hookmap relay', relay],
  ] as const) {
    console.log(
      `| ${r.subscribers} | ${name} | ${f(r.ingestPerSec)} | ${f(r.deliveriesPerSec)} | ${f(r.p50, 1)} ` +
        `| ${f(r.p99, 1)} | ${r.complete ? 'yes' : 'no'} | ${(r.deliveriesPerSec / base.deliveriesPerSec).toFixed(2)} ` +
        `|`,
    );
  }
}
writeResult({
  bench: 'relay',
  title: 'Relay',
  command: `BENCH_MS=${DURATION_MS} npx tsx bench/relay/run.ts`,
  about:
    `ingest-to-delivery over loopback: NDJSON batches of ${BATCH} events, ${IN_FLIGHT} POSTs in flight, ` +
    'delivered to 1 and to 50 SSE subscribers, against a bare node:http NDJSON-to-SSE fan-out in the same ' +
    'process (no validation, dedupe, buffer, filters or capture ceilings: the floor any relay sits above). ' +
    'Relay and clients share one process, so the figures are a floor for a relay with the machine to itself.',
  tables: [
    {
      caption: `${DURATION_MS / 1000} s per scenario; latency from POST to each delivery.`,
      label: 'subscribers, server',
      columns: [
        { name: 'ingested', unit: 'events/s' },
        { name: 'deliveries (all subscribers)', unit: '/s' },
        { name: 'p50 latency', unit: 'ms' },
        { name: 'p99 latency', unit: 'ms' },
        { name: 'all delivered (1 yes, 0 no)', unit: '' },
      ],
      ratio: 'deliveries vs baseline',
      rows: rows.flatMap(({ base, relay }) =>
        (
          [
            ['bare fan-out', base],
            ['hookmap relay', relay],
          ] as const
        ).map(([name, r]) => ({
          name: `${r.subscribers}, ${name}`,
          values: [Math.round(r.ingestPerSec), Math.round(r.deliveriesPerSec), r1(r.p50), r1(r.p99), r.complete ? 1 : 0],
          ratio: ratio(r.deliveriesPerSec, base.deliveriesPerSec),
          ...(r === base ? { baseline: true } : {}),
        })),
      ),
    },
  ],
});
