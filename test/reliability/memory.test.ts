// Relay memory bounded in bytes: 300,000 events (400 sessions) POSTed to a
// relay running alone in its own process (the probe) with the default
// buffer budget, and the same 300,000 to a control relay whose buffer holds
// at most 1 MiB, in the same run. After collection, the first process's
// off-heap memory exceeds the control's by no more than the advertised total
// budget (buffer_bytes in discovery), and its RSS by no more than the budget
// plus RSS_NOISE: what ingesting costs either way (parsing, HTTP, the
// JavaScript heap's own growth) is the control's share, what the buffer
// holds is within its budget. The store's own count stays within it too,
// and the oldest sessions were evicted to make room.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('./memory-probe.ts', import.meta.url));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function startProbe(args: string[] = []): Promise<{ port: number; limits: any; measure: () => Promise<any> }> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', PROBE, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  let buf = '';
  child.stdout!.on('data', (c) => {
    buf += c;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const l = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiters.shift();
      if (w) w(l);
      else lines.push(l);
    }
  });
  const nextLine = () => new Promise<string>((r) => (lines.length ? r(lines.shift()!) : waiters.push(r)));
  return nextLine().then((first) => {
    const { port, limits } = JSON.parse(first);
    return {
      port,
      limits,
      measure: async () => {
        child.stdin!.write('measure\n');
        return JSON.parse(await nextLine());
      },
    };
  });
}

const TOTAL = 300_000;
const BATCH = 2_000;
const pad = 'm'.repeat(300);

async function feed(port: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const postBatch = (lines: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: '/events', method: 'POST', agent, headers: { 'content-type': 'application/x-ndjson' } },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 202 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(lines);
    });
  for (let i = 0; i < TOTAL; i += BATCH) {
    const lines: string[] = [];
    for (let j = i; j < i + BATCH; j++) {
      const s = `mem-${j % 400}`;
      lines.push(
        JSON.stringify({
          aep: '0.1',
          id: `m${j}`,
          type: 'tool.completed',
          subject: 'Bash',
          time: '2026-11-30T10:00:00.000Z',
          source: `aep://bench/agent/mem/session/${s}`,
          agent: 'mem',
          session: s,
          seq: j,
          data: { tool: { name: 'Bash', call_id: `c${j}` }, status: 'success', pad },
        }),
      );
    }
    await postBatch(lines.join('\n'));
  }
  agent.destroy();
}

const MiB = (n: number) => (n / 2 ** 20).toFixed(1);
/**
 * How far the RSS of two processes fed the same input may differ for reasons
 * other than what they hold (malloc arenas, freed pages not yet returned to
 * the OS): the RSS difference over the control measured 117-131 MiB across
 * runs for a buffer holding its full 128 MiB. A per-event overhead like the
 * one issue 11 found (~2.3 KB per held event, ~400 MiB here) is far past it.
 */
const RSS_NOISE = 16 * 2 ** 20;

describe('relay memory bounded in bytes', () => {
  it('300,000 events: memory above a same-run control relay stays within the advertised buffer budget', async () => {
    const [probe, control] = await Promise.all([startProbe(), startProbe([String(2 ** 20), String(2 ** 20)])]);
    await Promise.all([feed(probe.port), feed(control.port)]);
    const [held, ctl] = [await probe.measure(), await control.measure()];
    const budget = probe.limits.bufferBytes;
    const over = held.rss - ctl.rss;
    console.log(
      `300k events: buffer ${held.store.events} events, ${MiB(held.store.bytes)} MiB charged ` +
        `(budget ${MiB(budget)} MiB); RSS ${MiB(held.rss)} MiB vs control ${MiB(ctl.rss)} MiB (+${MiB(over)}); ` +
        `JS heap ${MiB(held.heapUsed)} vs ${MiB(ctl.heapUsed)} MiB, external ${MiB(held.external)} ` +
        `vs ${MiB(ctl.external)} MiB`,
    );
    expect(held.store.bytes).toBeLessThanOrEqual(budget);
    expect(held.store.events).toBeLessThan(TOTAL); // the byte budget, not the count caps, decided
    expect(held.store.evictedSessions + held.store.evictedEvents).toBeGreaterThan(0);
    // the buffer's bytes are off the JavaScript heap, charged in full: within the budget
    expect(held.external - ctl.external).toBeLessThanOrEqual(budget);
    expect(over).toBeLessThanOrEqual(budget + RSS_NOISE);
    // nothing per held event stays on the JavaScript heap: it is the control's size
    expect(held.heapUsed - ctl.heapUsed).toBeLessThan(16 * 2 ** 20);
  }, 180_000);
});
