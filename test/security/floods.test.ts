// Issue 40, bounded where it looked bounded, through a whole `up`:
// - one OTLP export of 150,000 empty LogRecords (a few hundred gzipped bytes)
//   once was mapped whole: every agent's hooks stalled for seconds and the
//   process grew by hundreds of MB. Now at most 2,000 records of an export are
//   decoded and mapped (the rest rejected in partial_success), a receiver's
//   rate is bounded (429 past it), and /healthz and the hooks answer meanwhile.
// - next-turn waiters for session ids that do not exist, each held for up to
//   50 minutes, once filled the connection limit (/healthz, the inbox and every
//   hook refused). Now a waiter of a session no firing named is one of 16,
//   held 10 s at most; the flood is answered at once, a real session's waiter
//   still waits and gets the owner's steer.
// - sockets that never finish their headers (or sit idle) once filled the
//   listener's connection limit. Now the oldest connection with no request in
//   flight gives way past maxConnections - reserve: /healthz and a hook get in,
//   a held request (a waiter, a stream) is never shed.
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_UNKNOWN_WAITERS } from '../../engine/runtime/daemon/next-turn.ts';
import { upStack, type UpStack } from '../helpers/up-stack.ts';

let s: UpStack | undefined;
afterEach(async () => {
  await s?.done();
  s = undefined;
});

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

/** ExportLogsServiceRequest { resource_logs { scope_logs { log_records {} x n } } } as protobuf. */
function emptyRecords(n: number): Buffer {
  const records = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) records[i * 2] = 0x12; // log_records (2), length 0
  return field(0x0a, field(0x12, records));
}

async function timed(url: string, init?: RequestInit): Promise<{ ms: number; status: number; body: string }> {
  const t0 = performance.now();
  const r = await fetch(url, init);
  const body = await r.text();
  return { ms: performance.now() - t0, status: r.status, body };
}

describe('floods', () => {
  it('an export of 150,000 empty records: 2,000 mapped, the rest rejected unread; /healthz and a hook answer meanwhile; the rate is bounded', async () => {
    // a rate of 100 records a second: the bucket (2,000) is spent by the first export and not refilled within this test
    s = await upStack({ prefix: 'hookmap-flood-otlp-', agents: [{ descriptor: 'claude-code' }, { descriptor: 'codex-otel' }], otlpRecordsPerSecond: 100 });
    const body = gzipSync(emptyRecords(150_000));
    expect(body.length).toBeLessThan(2_000);
    await s.up.warmed; // the start's own background work (validators, expressions) is not the flood's
    const quiet = await timed(`${s.url}/healthz`, { headers: { authorization: `Bearer ${s.token}` } });
    const quiet2 = await timed(`${s.url}/healthz`, { headers: { authorization: `Bearer ${s.token}` } });
    console.log(`[floods] /healthz quiet ${quiet.ms.toFixed(1)} / ${quiet2.ms.toFixed(1)} ms`);
    const before = process.memoryUsage().rss;
    const flood = fetch(`${s.url}/otlp/codex-otel/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
      body,
    });
    const health = await timed(`${s.url}/healthz`, { headers: { authorization: `Bearer ${s.token}` } });
    const hook = await timed(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'flood-1', cwd: '/w', transcript_path: '/dev/null', source: 'startup' }),
    });
    const r = await flood;
    expect(r.status).toBe(200);
    expect(health.status).toBe(200);
    expect(hook.status).toBe(200);
    // the receiver counted what it refused to read; the daemon mapped at most one export's worth
    expect(s.up.otlp.counts.over).toBe(148_000);
    expect(s.up.otlp.counts.accepted + s.up.otlp.counts.rejected).toBe(2_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
    console.log(`[floods] /healthz ${health.ms.toFixed(1)} ms and a hook ${hook.ms.toFixed(1)} ms during a 150,000-record export`);
    // the same again at once: the receiver's rate is spent
    const again = await fetch(`${s.url}/otlp/codex-otel/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
      body,
    });
    expect(again.status).toBe(429);
    expect(again.headers.get('x-hookmap-error')).toBe('rate-limited');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(s.lines.filter((l) => l.includes('rate-limited')).length).toBeLessThanOrEqual(1);
  });

  it('300 next-turn waiters for sessions nobody named: at most 16 held, the rest answered at once; /healthz answers; a real session still waits', async () => {
    s = await upStack({
      prefix: 'hookmap-flood-waiters-',
      agents: [{ descriptor: 'claude-code', config: { instruct: true, next_turn: true } }],
    });
    const post = (session: string, signal?: AbortSignal) =>
      fetch(`${s!.url}/next-turn/claude-code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ hook_event_name: 'Stop', session_id: session, cwd: '/w', transcript_path: '/dev/null' }),
        signal,
      });
    const abort = new AbortController();
    const flood = Array.from({ length: 300 }, (_, i) =>
      post(`ghost-${i}`, abort.signal).then(
        (r) => r.status,
        () => 'aborted',
      ),
    );
    // the flood's answered part comes back at once
    const settled = await Promise.race([Promise.allSettled(flood.slice(MAX_UNKNOWN_WAITERS + 10)), new Promise((r) => setTimeout(r, 8_000, 'slow'))]);
    expect(settled).not.toBe('slow');
    const health = await timed(`${s.url}/healthz`, { headers: { authorization: `Bearer ${s.token}` } });
    expect(health.status).toBe(200);
    console.log(`[floods] /healthz ${health.ms.toFixed(1)} ms with 300 ghost waiters posted`);
    // a real session: its first hook names it, its waiter is held
    const start = await fetch(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'real-1', cwd: '/w', transcript_path: '/dev/null', source: 'startup' }),
    });
    expect(start.status).toBe(200);
    const real = post('real-1');
    const early = await Promise.race([real.then(() => 'answered'), new Promise((r) => setTimeout(r, 1_500, 'waiting'))]);
    expect(early).toBe('waiting');
    expect(s.lines.some((l) => /waiter of session ghost-\d+ refused/.test(l))).toBe(true);
    abort.abort();
    await Promise.allSettled(flood);
    await s.up.close();
    await real.catch(() => undefined);
  });

  it('a flood of sockets that never finish their headers: /healthz, a hook and the owner get in, a held waiter is not shed', async () => {
    s = await upStack({
      prefix: 'hookmap-flood-sockets-',
      agents: [{ descriptor: 'claude-code', config: { instruct: true, next_turn: true } }],
      serverLimits: { maxConnections: 48, reserve: 8 },
    });
    const { port } = new URL(s.url);
    // a real session's waiter, held: a request in flight
    await fetch(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'held-1', cwd: '/w', transcript_path: '/dev/null', source: 'startup' }),
    });
    const waiter = fetch(`${s.url}/next-turn/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'Stop', session_id: 'held-1', cwd: '/w', transcript_path: '/dev/null' }),
    }).then(
      (r) => `answered ${r.status}`,
      () => 'dropped',
    );
    await new Promise((r) => setTimeout(r, 200));
    // 200 sockets (four times the limit), each sending half a request line and nothing more
    const flood: Socket[] = [];
    let closed = 0;
    for (let i = 0; i < 200; i++) {
      const c = connect(Number(port), '127.0.0.1');
      c.on('error', () => undefined);
      c.on('close', () => closed++);
      c.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      flood.push(c);
      if (i % 20 === 19) await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 200));
    const health = await timed(`${s.url}/healthz`, { headers: { authorization: `Bearer ${s.token}` } });
    const hook = await timed(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'held-1', cwd: '/w', transcript_path: '/dev/null', prompt: 'hi' }),
    });
    console.log(`[floods] /healthz ${health.ms.toFixed(1)} ms and a hook ${hook.ms.toFixed(1)} ms with 200 half-open sockets (limit 48)`);
    expect(health.status).toBe(200);
    expect(hook.status).toBe(200);
    // the flood gave way (at least all but the limit), the held waiter did not
    expect(closed).toBeGreaterThanOrEqual(200 - 48);
    expect(await Promise.race([waiter, new Promise((r) => setTimeout(r, 300, 'still held'))])).toBe('still held');
    for (const c of flood) c.destroy();
    await s.up.close();
    await waiter;
  });
});
