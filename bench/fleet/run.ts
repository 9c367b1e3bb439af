// Fleet benchmark (issue 15): ingest-to-delivery through the NATS JetStream
// backplane (engine/runtime/relay/backplane/index.ts) with 3 relays x 50 SSE subscribers,
// against ONE relay without the backplane x 50 subscribers in the same run
// (the baseline: same per-relay fan-out, no NATS). NDJSON batches of 100
// are POSTed round-robin to the relays; a POST is answered once its events
// are acknowledged by JetStream (what a daemon's confirmation means in a
// fleet). Latency is ingest (just before the POST) to arrival at one
// subscriber per relay. Everything (relays, subscribers, the poster) shares
// this process and nats-server runs beside it on the same machine, so the
// numbers are a floor for relays with machines of their own.
//   node --import tsx bench/fleet/run.ts          (BENCH_MS=3000 per scenario)
import http from 'node:http';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createRelay, openBackplane, resolveLimits, type Relay } from '../../engine/runtime/relay/index.ts';
import { NATS_MISSING, NatsServer } from '../../test/fleet/nats.ts';
import { r1, ratio, writeResult } from '../results.ts';

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const BATCH = 100;
const IN_FLIGHT = 4;
const SUBS_PER_RELAY = 50;
const TOKEN = 'bench-fleet-token';

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Fixed-rate phase: FIXED_RATE events/s in batches of FIXED_BATCH, below saturation for both setups: the latency the backplane adds. */
const FIXED_RATE = Number(process.env.BENCH_RATE ?? 100);
const FIXED_BATCH = 10;

async function scenario(kind: 'baseline' | 'fleet', nats?: NatsServer, subsPerRelay = SUBS_PER_RELAY) {
  const n = kind === 'fleet' ? 3 : 1;
  const stream = `BENCH${process.pid}${Date.now() % 100000}`;
  const relays: { relay: Relay; port: number }[] = [];
  for (let i = 0; i < n; i++) {
    const store =
      kind === 'fleet' ? await openBackplane({ url: nats!.url, stream, prefix: stream.toLowerCase(), token: TOKEN }, resolveLimits({}), () => {}) : undefined;
    const relay = createRelay({ host: '127.0.0.1', port: 0, token: TOKEN, store });
    relays.push({ relay, port: (await relay.listen()).port });
  }
  const latencies: number[] = [];
  let delivered = 0;
  const reqs: http.ClientRequest[] = [];
  for (const [r, { port }] of relays.entries()) {
    await Promise.all(
      Array.from(
        { length: subsPerRelay },
        (_, i) =>
          new Promise<void>((resolve) => {
            const req = http.get(
              { host: '127.0.0.1', port, path: '/events', headers: { accept: 'text/event-stream', authorization: `Bearer ${TOKEN}` } },
              (res) => {
                res.setEncoding('utf8');
                let buf = '';
                resolve();
                res.on('data', (chunk: string) => {
                  buf += chunk;
                  let at: number;
                  const now = performance.now();
                  while ((at = buf.indexOf('\n\n')) >= 0) {
                    const msg = buf.slice(0, at);
                    buf = buf.slice(at + 2);
                    const m = /"t0":([\d.]+)/.exec(msg);
                    if (!m) continue;
                    delivered++;
                    // one sampled subscriber per relay keeps bookkeeping off the hot path
                    if (i === 0 && r < 3) latencies.push(now - Number(m[1]));
                  }
                });
              },
            );
            reqs.push(req);
          }),
      ),
    );
  }
  let seq = 0;
  let posted = 0;
  let rr = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT * n });
  const postBatch = (size = BATCH) =>
    new Promise<void>((resolve, reject) => {
      const t0 = performance.now();
      const lines: string[] = [];
      for (let i = 0; i < size; i++) {
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
      const port = relays[rr++ % n].port;
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/events',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/x-ndjson', 'aep-version': '0.1', authorization: `Bearer ${TOKEN}` },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 202) return reject(new Error(`POST answered ${res.statusCode}`));
            posted += size;
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(lines.join('\n'));
    });
  const subscribers = n * subsPerRelay;
  // warm-up (the validator compiles, the JIT settles, the consumers start): not measured
  for (let i = 0; i < 20; i++) await postBatch();
  const warm = BATCH * 20 * subscribers;
  const warmUntil = performance.now() + 30_000;
  while (delivered < warm && performance.now() < warmUntil) await new Promise((r) => setTimeout(r, 5));
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
  const target = posted * subscribers;
  const drainUntil = performance.now() + 20_000;
  while (delivered < target && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 5));
  const elapsed = (performance.now() - start) / 1000;
  const saturated = { posted, delivered, target, latencies: [...latencies].sort((a, b) => a - b) };
  // fixed rate, below saturation
  delivered = 0;
  posted = 0;
  latencies.length = 0;
  const every = (1000 * FIXED_BATCH) / FIXED_RATE;
  const fixedStart = performance.now();
  const sends: Promise<void>[] = [];
  for (let k = 0; performance.now() < fixedStart + DURATION_MS; k++) {
    const due = fixedStart + k * every;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    sends.push(postBatch(FIXED_BATCH));
  }
  await Promise.all(sends);
  const fixedTarget = posted * subscribers;
  const fixedUntil = performance.now() + 20_000;
  while (delivered < fixedTarget && performance.now() < fixedUntil) await new Promise((r) => setTimeout(r, 5));
  const fixed = [...latencies].sort((a, b) => a - b);
  const fixedComplete = delivered === fixedTarget;
  for (const r of reqs) r.destroy();
  agent.destroy();
  for (const { relay } of relays) await relay.close();
  return {
    stream,
    kind,
    relays: n,
    subsPerRelay,
    subscribers,
    posted: saturated.posted,
    complete: saturated.delivered === saturated.target && fixedComplete,
    ingestPerSec: saturated.posted / elapsed,
    deliveriesPerSec: saturated.delivered / elapsed,
    p50: percentile(saturated.latencies, 50),
    p99: percentile(saturated.latencies, 99),
    fixedP50: percentile(fixed, 50),
    fixedP99: percentile(fixed, 99),
  };
}

if (NATS_MISSING) {
  console.log(`bench/fleet skipped: ${NATS_MISSING}`);
  process.exit(0);
}
const nats = await NatsServer.start();
try {
  const base = await scenario('baseline');
  // the same total fan-out as the fleet on one relay: what is left of the difference is the backplane
  const base150 = await scenario('baseline', undefined, 3 * SUBS_PER_RELAY);
  const fleet = await scenario('fleet', nats);
  // a relay joining the fleet: how fast it mirrors what the stream holds (every relay consumes every event, so
  // this bounds the fleet-wide event rate one relay can follow)
  const t = performance.now();
  const joiner = await openBackplane({ url: nats.url, stream: fleet.stream, prefix: fleet.stream.toLowerCase(), token: TOKEN }, resolveLimits({}), () => {});
  const catchUpMs = performance.now() - t;
  const mirrored = joiner!.stats().events;
  const health = await joiner!.health();
  await joiner!.close();
  const f = (x: number, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log(
    `Fleet ingest-to-delivery, loopback, ${DURATION_MS / 1000}s per scenario, NDJSON batches of ` +
      `${BATCH}, ${IN_FLIGHT} POSTs in flight, ${SUBS_PER_RELAY} SSE subscribers per relay, Node ${process.version}, ` +
      `${cpus().length} cores shared by relays, clients and nats-server`,
  );
  console.log(
    'Baseline: one relay without the backplane in the same run (x 50: the same load per relay; ' +
      'x 150: the same total fan-out). Fleet: 3 relays on one JetStream stream (file storage), ' +
      'POSTs round-robin, answered after the JetStream ack.\n',
  );
  console.log(
    `Saturated: ${IN_FLIGHT} POSTs of ${BATCH} in flight (latency there is queueing). Fixed ` +
      `rate: ${FIXED_RATE} events/s in POSTs of ${FIXED_BATCH}, below saturation for both (the ` +
      `latency the backplane adds).\n`,
  );
  console.log(
    '| setup | relays x subscribers | events ingested/s (saturated) | deliveries/s (all ' +
      'subscribers) | p50 / p99 saturated (ms) | p50 / p99 at fixed rate (ms) | all delivered | ' +
      'ingest vs baseline | deliveries vs baseline | fixed-rate p50 vs baseline |',
  );
  console.log('|---|---:|---:|---:|---:|---:|:---:|---:|---:|---:|');
  for (const r of [base, base150, fleet]) {
    console.log(
      `| ${r.kind === 'fleet' ? 'fleet (NATS JetStream)' : 'one relay, no backplane'} | ${r.relays} ` +
        `x ${r.subsPerRelay} | ${f(r.ingestPerSec)} | ${f(r.deliveriesPerSec)} | ${f(r.p50, 1)} / ${f(r.p99, 1)} ` +
        `| ${f(r.fixedP50, 1)} / ${f(r.fixedP99, 1)} | ${r.complete ? 'yes' : 'no'} | ${(r.ingestPerSec / base.ingestPerSec).toFixed(2)} ` +
        `| ${(r.deliveriesPerSec / base.deliveriesPerSec).toFixed(2)} | ${(r.fixedP50 / base.fixedP50).toFixed(2)} ` +
        `|`,
    );
  }
  console.log(
    `\nA relay joining afterwards mirrored the stream's ${f(mirrored)} events (${f(health.bytes / mirrored)} ` +
      `bytes each as stored) in ${f(catchUpMs)} ms: ${f(mirrored / (catchUpMs / 1000))} events/s ` +
      `consumed by one relay.`,
  );
  writeResult({
    bench: 'fleet',
    title: 'Fleet',
    command: `BENCH_MS=${DURATION_MS} npx tsx bench/fleet/run.ts`,
    about:
      `NDJSON POSTs (batches of ${BATCH}, ${IN_FLIGHT} in flight) spread over 3 relays on one NATS JetStream stream, ` +
      `${SUBS_PER_RELAY} SSE subscribers per relay, POSTs answered after the JetStream ack, against one relay without the ` +
      'backplane in the same run (x 50: the same load per relay; x 150: the same total fan-out); relays, clients and ' +
      `nats-server share the machine. Latency also at a fixed ${FIXED_RATE} events/s, below saturation. What 1,000 ` +
      'machines would take: [fleet.md](fleet.md).',
    tables: [
      {
        caption: `${DURATION_MS / 1000} s per scenario.`,
        label: 'setup, relays x subscribers',
        columns: [
          { name: 'ingested', unit: 'events/s' },
          { name: 'deliveries', unit: '/s' },
          { name: `p50 at ${FIXED_RATE} events/s`, unit: 'ms' },
          { name: `p99 at ${FIXED_RATE} events/s`, unit: 'ms' },
          { name: 'fixed-rate p50 vs 1 x 50', unit: '' },
        ],
        ratio: 'deliveries vs 1 x 50',
        rows: [base, base150, fleet].map((r) => ({
          name: `${r.kind === 'fleet' ? 'fleet (NATS JetStream)' : 'one relay, no backplane'}, ${r.relays} x ${r.subsPerRelay}`,
          values: [Math.round(r.ingestPerSec), Math.round(r.deliveriesPerSec), r1(r.fixedP50), r1(r.fixedP99), ratio(r.fixedP50, base.fixedP50)],
          ratio: ratio(r.deliveriesPerSec, base.deliveriesPerSec),
          ...(r === base ? { baseline: true } : {}),
        })),
      },
    ],
    notes: [`A relay joining afterwards mirrored the stream's ${f(mirrored)} events at ${f(mirrored / (catchUpMs / 1000))} events/s.`],
  });
} finally {
  await nats.stop();
}
