// Relay tail latency at a fixed rate: one WebSocket emitter sends 1,000
// events/s (paced every millisecond, not in bursts) and 50 WebSocket
// subscribers each receive every event; latency is emit-to-receipt on each
// subscriber, every delivery sampled. Baseline: a bare `ws` broadcast server
// (fixed-rate-server.ts) with the same clients and pacing in the same run.
// Each server runs in its own child process, both for the whole run; the
// clients share this one. The two are measured in alternating rounds, so
// load from anything else on the machine falls on both alike.
// The figure: the relay's p99 against the bare p99 (target: within 2x),
// with 100% delivered.
//   npx tsx bench/relay/fixed-rate.ts [--seconds 12] [--rounds 4] [--rate 1000] [--subscribers 50]
// BENCH_PROF=<dir> writes each server's V8 CPU profile there (node --cpu-prof) when it stops.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { r1, ratio, writeResult } from '../results.ts';

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const SECONDS = arg('seconds', Number(process.env.BENCH_SECONDS ?? 12));
const ROUNDS = arg('rounds', 4);
const RATE = arg('rate', 1000);
const SUBSCRIBERS = arg('subscribers', 50);
const WARMUP_MS = 2000;
const SERVER = fileURLToPath(new URL('./fixed-rate-server.ts', import.meta.url));
const MARK = Buffer.from('"t0":');
const PING = Buffer.from('{"type":"ping"');

export interface FixedRateResult {
  kind: Kind;
  sent: number;
  delivered: number;
  expected: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  cpuUsPerEvent: number;
  closed: number;
}
type Kind = 'relay' | 'bare';

function startServer(kind: Kind): Promise<{ child: ChildProcess; port: number; cpu: () => Promise<number> }> {
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROF] : []), '--import', 'tsx', SERVER, kind],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const waiting: ((line: string) => void)[] = [];
  let buf = '';
  child.stdout!.on('data', (c) => {
    buf += c;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      waiting.shift()?.(line);
    }
  });
  const next = () => new Promise<string>((r) => waiting.push(r));
  const cpu = async () => {
    child.stdin!.write('cpu\n');
    return JSON.parse(await next()).cpu as number;
  };
  return new Promise((resolve, reject) => {
    next().then((first) => resolve({ child, port: Number(first.trim()), cpu }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited ${code}`)));
  });
}

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function frame(ws: WebSocket, pred: (m: any) => boolean): Promise<any> {
  return new Promise((resolve) => {
    const on = (d: WebSocket.RawData) => {
      const m = JSON.parse(d.toString());
      if (pred(m)) {
        ws.off('message', on);
        resolve(m);
      }
    };
    ws.on('message', on);
  });
}

const pad = 'x'.repeat(160); // ~ the size of a daemon's tool event

/** One server with its subscribers and emitter; `round(ms, tag)` paces events and collects this round's latencies. */
async function rig(kind: Kind) {
  const { child, port, cpu } = await startServer(kind);
  const base = `ws://127.0.0.1:${port}`;
  let lat: number[] = [];
  let tag = -1;
  let delivered = 0;
  /** Subscribers the server closed (the relay closes one past pending_bytes_per_consumer): what they missed is lost to this bench, not late. */
  let closed = 0;
  const tagMark = (t: number) => Buffer.from(`"r":${t},`);
  let current = tagMark(-1);
  const subs: WebSocket[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const ws = await open(kind === 'relay' ? `${base}/socket` : `${base}/sub`);
    if (kind === 'relay') {
      ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'consumer' }));
      await frame(ws, (m) => m.type === 'hello');
      ws.send(JSON.stringify({ type: 'subscribe', id: 'all' }));
      await frame(ws, (m) => m.type === 'subscribed');
    }
    ws.on('message', (d: Buffer) => {
      const now = performance.now();
      const at = d.indexOf(MARK);
      if (at < 0) {
        // the relay's liveness probe (AEP-0003 §3.5 rule 5), answered as hookmap's own client does: a silent peer is closed after idleMs
        if (d.indexOf(PING) === 0) ws.send(JSON.stringify({ type: 'pong', t: JSON.parse(d.toString()).t }));
        return;
      }
      if (d.indexOf(current) < 0) return;
      delivered++;
      lat.push(now - parseFloat(d.toString('latin1', at + MARK.length, at + MARK.length + 24)));
    });
    ws.once('close', (code: number, reason: Buffer) => {
      closed++;
      if (closed === 1) console.error(`${kind}: a subscriber was closed: ${code} ${reason.toString()}`);
    });
    subs.push(ws);
  }
  const emitter = await open(kind === 'relay' ? `${base}/socket` : `${base}/emit`);
  if (kind === 'relay') {
    emitter.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'emitter', identity: { agent: 'bench' } }));
    await frame(emitter, (m) => m.type === 'hello');
  }
  let seq = 0;
  const emit = (r: number) => {
    seq++;
    emitter.send(
      JSON.stringify({
        aep: '0.1',
        id: `f${seq}`,
        type: 'tool.completed',
        subject: 'Bash',
        time: new Date().toISOString(),
        source: 'aep://bench/agent/bench/session/s',
        agent: 'bench',
        session: `s${seq % 10}`,
        seq,
        data: { tool: { name: 'Bash', call_id: `c${seq}` }, status: 'success', pad, r, t0: performance.now() },
      }),
    );
  };
  const pace = async (ms: number, r: number) => {
    const start = performance.now();
    let sent = 0;
    for (;;) {
      const now = performance.now();
      if (now - start >= ms) return sent;
      const due = Math.floor(((now - start) / 1000) * RATE);
      while (sent < due) {
        emit(r);
        sent++;
      }
      await new Promise((res) => setTimeout(res, 1));
    }
  };
  return {
    kind,
    warm: () => pace(WARMUP_MS, -2),
    async round(ms: number, r: number) {
      tag = r;
      current = tagMark(tag);
      lat = [];
      delivered = 0;
      const cpu0 = await cpu();
      const sent = await pace(ms, r);
      const until = performance.now() + 10_000;
      while (delivered < sent * SUBSCRIBERS && performance.now() < until) await new Promise((res) => setTimeout(res, 10));
      return { sent, delivered, lat, cpuUs: (await cpu()) - cpu0 };
    },
    closed: () => closed,
    async stop() {
      for (const ws of [...subs, emitter]) ws.removeAllListeners('close');
      for (const ws of [...subs, emitter]) ws.terminate();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

export async function runFixedRate(seconds = SECONDS, rounds = ROUNDS): Promise<Record<Kind, FixedRateResult>> {
  const rigs = { bare: await rig('bare'), relay: await rig('relay') };
  await rigs.bare.warm();
  await rigs.relay.warm();
  const acc: Record<Kind, { sent: number; delivered: number; lat: number[]; cpuUs: number }> = {
    bare: { sent: 0, delivered: 0, lat: [], cpuUs: 0 },
    relay: { sent: 0, delivered: 0, lat: [], cpuUs: 0 },
  };
  let r = 0;
  for (let i = 0; i < rounds; i++) {
    for (const kind of (i % 2 ? ['relay', 'bare'] : ['bare', 'relay']) as Kind[]) {
      const out = await rigs[kind].round((seconds * 1000) / rounds, r++);
      acc[kind].sent += out.sent;
      acc[kind].delivered += out.delivered;
      acc[kind].cpuUs += out.cpuUs;
      for (const x of out.lat) acc[kind].lat.push(x);
    }
  }
  const closed = { bare: rigs.bare.closed(), relay: rigs.relay.closed() };
  await rigs.bare.stop();
  await rigs.relay.stop();
  const result = {} as Record<Kind, FixedRateResult>;
  for (const kind of ['bare', 'relay'] as Kind[]) {
    const a = acc[kind];
    const sorted = Float64Array.from(a.lat).sort();
    const n = sorted.length;
    const q = (p: number) => (n ? sorted[Math.min(n - 1, Math.floor(p * n))] : NaN);
    result[kind] = {
      kind,
      sent: a.sent,
      delivered: a.delivered,
      expected: a.sent * SUBSCRIBERS,
      p50: q(0.5),
      p99: q(0.99),
      p999: q(0.999),
      max: n ? sorted[n - 1] : NaN,
      cpuUsPerEvent: a.cpuUs / a.sent,
      closed: closed[kind],
    };
  }
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { bare, relay } = await runFixedRate();
  const f = (x: number) => x.toFixed(1);
  console.log(
    `Fixed rate: ${RATE} events/s, ${SUBSCRIBERS} WebSocket subscribers, ${SECONDS} s per ` +
      `server in ${ROUNDS} alternating rounds (after ${WARMUP_MS / 1000} s warm-up each), every ` +
      `delivery sampled, Node ${process.version}`,
  );
  console.log('Baseline: a bare `ws` broadcast server, same clients and pacing, same run; each server in its own process.\n');
  console.log(
    '| server | delivered | subscribers closed | p50 (ms) | p99 (ms) | p99.9 (ms) | max (ms) | p99 vs bare p99 | server CPU per event | CPU vs bare |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of [bare, relay]) {
    console.log(
      `| ${r.kind === 'bare' ? 'bare `ws` broadcast' : 'hookmap relay'} | ${((100 * r.delivered) / r.expected).toFixed(2)}% ` +
        `| ${r.closed} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.p999)} | ${f(r.max)} | ${(r.p99 / bare.p99).toFixed(2)} ` +
        `| ${Math.round(r.cpuUsPerEvent)} µs | ${(r.cpuUsPerEvent / bare.cpuUsPerEvent).toFixed(2)} ` +
        `|`,
    );
  }
  writeResult({
    bench: 'relay-fixed-rate',
    title: 'Relay at a fixed rate',
    command: `npx tsx bench/relay/fixed-rate.ts --seconds ${SECONDS} --rounds ${ROUNDS} --rate ${RATE} --subscribers ${SUBSCRIBERS}`,
    about:
      `one WebSocket emitter paced at ${RATE} events/s, ${SUBSCRIBERS} WebSocket subscribers each receiving every event, ` +
      "emit-to-receipt latency of every delivery, against a bare `ws` server writing each received frame's bytes to every " +
      `subscriber (same clients and pacing, each server in its own process, ${ROUNDS} alternating rounds of ${SECONDS} s); ` +
      'target: p99 within 2x the bare p99, 100% delivered.',
    tables: [
      {
        caption: 'Every delivery sampled.',
        label: 'server',
        columns: [
          { name: 'delivered', unit: '%' },
          { name: 'subscribers closed', unit: '' },
          { name: 'p50', unit: 'ms' },
          { name: 'p99', unit: 'ms' },
          { name: 'server CPU per event', unit: 'µs' },
          { name: 'CPU vs bare', unit: '' },
        ],
        ratio: 'p99 vs bare p99',
        rows: [bare, relay].map((r) => ({
          name: r.kind === 'bare' ? 'bare `ws` broadcast' : 'hookmap relay',
          values: [
            Math.round((10000 * r.delivered) / r.expected) / 100,
            r.closed,
            r1(r.p50),
            r1(r.p99),
            Math.round(r.cpuUsPerEvent),
            ratio(r.cpuUsPerEvent, bare.cpuUsPerEvent),
          ],
          ratio: ratio(r.p99, bare.p99),
          ...(r === bare ? { baseline: true } : {}),
        })),
      },
    ],
  });
}
