// The first hook a fresh daemon answers, against the hooks after it:
// `hookmap serve codex --no-relay` is started, left one second (an agent
// starts its first tool call no sooner), then fired a PreToolUse; then 20
// more. The first one used to compile the AEP validators (ajv) while the
// agent waited; the daemon now compiles them in the background once
// listening (engine/core/aep/schemas.ts warmValidators). Reported per round and as
// medians: first-hook time, warm-hook median, and their ratio (the baseline
// is the same daemon's warm hooks, so machine load cancels out).
//   npx tsx bench/first-hook/run.ts [--rounds 5] [--settle-ms 1000]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { r1, ratio, writeResult } from '../results.ts';
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';

const BIN = fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url));
const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const ROUNDS = opt('--rounds', 5);
const SETTLE_MS = opt('--settle-ms', 1000);
const WARM = 20;

function startDaemon(home: string): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', 'codex', '--port', '0', '--no-relay'], {
      env: { ...process.env, HOME: home, HOOKMAP_HOME: home },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let buf = '';
    const t = setTimeout(() => {
      child.kill('SIGKILL'); // never left running behind a failed bench
      reject(new Error('hookmap serve: no URL within 60 s'));
    }, 60_000);
    child.stdout!.on('data', (c) => {
      buf += c;
      // its first stdout line is its base URL (what it says goes to stderr)
      if (buf.includes('\n')) {
        clearTimeout(t);
        resolve({ url: buf.split('\n')[0].trim(), child });
      }
    });
    child.on('exit', (code) => reject(new Error(`hookmap serve exited ${code}`)));
  });
}

const agent = new http.Agent({ keepAlive: false });
/** The hook key of the daemon's home, as every shim presents it (engine/runtime/auth/hook-key.mjs). */
let key: Record<string, string> = {};
function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      `${url}/hooks/codex/PreToolUse`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...key } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
const payload = (session: string, i: number) =>
  JSON.stringify({
    session_id: session,
    turn_id: 't1',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: `ls ${i}` },
    tool_use_id: `call-${i}`,
    cwd: '/work',
  });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const rows: { first: number; warm: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const home = mkdtempSync(join(tmpdir(), 'hookmap-bench-first-'));
  const { url, child } = await startDaemon(home);
  key = hookKeyHeaders(home);
  try {
    // the client side warmed on another server path first, so only the daemon's cold work is timed
    await new Promise<void>((res) => http.get(`${url}/healthz`, { agent }, (x) => (x.resume(), x.on('end', () => res()))));
    await new Promise((res) => setTimeout(res, SETTLE_MS));
    const first = await post(url, payload(`first-${r}`, 0));
    const warm: number[] = [];
    for (let i = 1; i <= WARM; i++) warm.push(await post(url, payload(`first-${r}`, i)));
    rows.push({ first, warm: median(warm) });
    console.log(`round ${r + 1}: first hook ${first.toFixed(1)} ms, warm median ${median(warm).toFixed(1)} ms, ratio ${(first / median(warm)).toFixed(1)}x`);
  } finally {
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
}
const f = median(rows.map((x) => x.first));
const w = median(rows.map((x) => x.warm));
console.log(
  `\nmedian of ${ROUNDS} rounds (settle ${SETTLE_MS} ms): first hook ${f.toFixed(1)} ms, warm ` +
    `${w.toFixed(1)} ms: the first hook costs ${(f / w).toFixed(1)}x a warm one`,
);
writeResult({
  bench: 'first-hook',
  title: 'First hook of a fresh daemon',
  command: `npx tsx bench/first-hook/run.ts --rounds ${ROUNDS} --settle-ms ${SETTLE_MS}`,
  about:
    `\`hookmap serve codex --no-relay\` started, left ${SETTLE_MS} ms (an agent starts its first tool call no sooner), fired one ` +
    "PreToolUse, then 20 more; the baseline is the same daemon's warm hooks, so machine load falls on both. The daemon " +
    'compiles the AEP validators in the background once listening, not in the first hook.',
  tables: [
    {
      caption: `Medians of ${ROUNDS} rounds.`,
      label: 'hook',
      columns: [{ name: 'time', unit: 'ms' }],
      ratio: 'vs a warm hook',
      rows: [
        { name: 'a warm hook (median of 20 per round)', values: [r1(w)], ratio: 1, baseline: true },
        { name: 'the first hook', values: [r1(f)], ratio: ratio(f, w) },
      ],
    },
  ],
});
