// Per-firing overhead of hookmap's shims, loopback only:
//   bare curl     curl POSTing the payload to a static server (the floor: one curl exec)
//   native HTTP   curl POSTing straight to the daemon (what an agent's own HTTP hook costs, plus a curl exec)
//   sh shim       the generated sh shim -> daemon (bash's /dev/tcp where bash and timeout are on PATH, else curl)
//   sh shim, curl the same shim made to post through curl (HOOKMAP_SHIM_TRANSPORT=curl: what it does without bash or timeout)
//   sh + curl     `sh -c 'exec curl ...'` -> daemon: one sh exec before the curl, the least a shim that runs curl can cost
//   Node shim     `node bin/hookmap.mjs hook codex PreToolUse` -> daemon
// Each variant fires N times (default 1000), interleaved round-robin so
// machine noise hits all alike; median and p99 of the wall time from spawn to
// exit. Then fail-open: each shim against a stopped daemon (N/20 firings) and
// a hung one (3 firings, the generated bound for PreToolUse).
// Uses the real daemon (`hookmap serve codex --no-relay`) when it starts,
// else a static stub daemon, and says which.
//   npx tsx bench/hook-latency/run.ts [--n 1000] [--stub]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadVendor } from '../../engine/core/descriptor/registry.ts';
import { writeShims } from '../../engine/runtime/shim/generate.ts';
import { boundFor } from '../../engine/runtime/shim/plan.mjs';
import { planFor } from '../../engine/runtime/shim/generate.ts';
import { resolveTarget } from '../../engine/cli/config.ts';
import { r1, ratio, writeResult } from '../results.ts';
import { hookKeyPath } from '../../engine/runtime/auth/hook-key.mjs';
import { FAILED_OPEN_LOG } from '../../engine/core/io/failed-open-trace.mjs';

const BIN = fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url));
const args = process.argv.slice(2);
const N = Number(args[args.indexOf('--n') + 1]) || 1000;
const FORCE_STUB = args.includes('--stub');
const PAYLOAD = JSON.stringify({
  session_id: 'bench-session',
  turn_id: 'bench-turn',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'ls -la' },
  tool_use_id: 'call-1',
  cwd: '/work',
});

const home = mkdtempSync(join(tmpdir(), 'hookmap-bench-'));
const env = { ...process.env, HOME: home, HOOKMAP_HOME: home };
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(home, { recursive: true, force: true });
});

/** Starts a process whose first stdout line is its base URL. */
function startServer(cmd: string, argv: string[], timeoutMs = 20000): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(p);
    let buf = '';
    const t = setTimeout(() => reject(new Error(`${argv.join(' ')}: no URL within ${timeoutMs} ms`)), timeoutMs);
    p.stdout!.on('data', (c) => {
      buf += c;
      const line = buf.split('\n')[0];
      if (buf.includes('\n')) {
        clearTimeout(t);
        resolve(line.trim());
      }
    });
    p.on('exit', (code) => reject(new Error(`${argv.join(' ')} exited ${code}`)));
  });
}

// Tiny servers in their own processes, so they never share an event loop with the timer.
const SERVER = (mode: string) => `
const http = require('node:http');
const s = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (${JSON.stringify(mode)} === 'hung') return;
    if (req.url === '/healthz') return res.end('{"ok":true,"relay":false}');
    res.setHeader('x-hookmap-exit', '0');
    res.end('');
  });
});
s.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + s.address().port));`;

function fire(cmd: string, argv: string[], extraEnv: Record<string, string> = {}): Promise<{ ms: number; out: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(cmd, argv, { env: { ...env, ...extraEnv }, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    p.stdout!.on('data', (c) => (out += c));
    p.on('error', reject);
    p.on('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, out, code }));
    p.stdin!.on('error', () => {});
    p.stdin!.end(PAYLOAD);
  });
}

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  return { n: s.length, median: q(0.5), p99: q(0.99), max: s[s.length - 1] };
}
const f1 = (x: number) => x.toFixed(1);
/** A word for sh -c, single-quoted. */
const shWord = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

/** Which way the generated shim posts here (engine/runtime/shim/sh-http.ts): bash's /dev/tcp when bash and timeout are on PATH. */
const TRANSPORT = ['bash', 'timeout'].every((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0)
  ? "bash's /dev/tcp (bash and timeout are on PATH)"
  : 'curl (bash or timeout is not on PATH)';

async function main() {
  const d = loadVendor('codex');
  const { sh } = writeShims(d, resolveTarget(env));
  const plan = planFor(d, resolveTarget(env));
  const staticUrl = await startServer(process.execPath, ['-e', SERVER('up')]);
  let daemonUrl: string;
  let daemonKind: string;
  try {
    if (FORCE_STUB) throw new Error('--stub');
    daemonUrl = await startServer(process.execPath, [BIN, 'serve', 'codex', '--port', '0', '--no-relay']);
    daemonKind = 'the real daemon (`hookmap serve codex --no-relay`: maps, envelopes, appends the JSONL log, replies)';
  } catch (err) {
    daemonUrl = await startServer(process.execPath, ['-e', SERVER('up')]);
    daemonKind = `a static stub daemon (the real one did not start: ${(err as Error).message})`;
  }
  const curl = ['-q', '-s', '-H', 'content-type: application/json', '--data-binary', '@-'];
  const floorArgs = [...curl, '-H', `@${hookKeyPath(home)}`].map(shWord).join(' ');
  const variants: { name: string; cmd: string; argv: string[]; env?: Record<string, string> }[] = [
    { name: 'bare curl -> static server', cmd: 'curl', argv: [...curl, `${staticUrl}/`] },
    // the agent's own HTTP hook presents the home's hook key as a header, as setup writes it (the file is that header line)
    { name: 'native HTTP (curl -> daemon)', cmd: 'curl', argv: [...curl, '-H', `@${hookKeyPath(home)}`, `${daemonUrl}/hooks/codex`] },
    { name: 'sh shim -> daemon', cmd: 'sh', argv: [sh, 'PreToolUse'], env: { HOOKMAP_URL: daemonUrl } },
    // the least a shim that runs curl costs: sh starts and replaces itself with the same curl (no fork, nothing after it)
    { name: 'sh shim, curl transport -> daemon', cmd: 'sh', argv: [sh, 'PreToolUse'], env: { HOOKMAP_URL: daemonUrl, HOOKMAP_SHIM_TRANSPORT: 'curl' } },
    { name: 'sh + curl floor (sh -c exec curl) -> daemon', cmd: 'sh', argv: ['-c', `exec curl ${floorArgs} "$0"`, `${daemonUrl}/hooks/codex`] },
    { name: 'Node shim -> daemon', cmd: process.execPath, argv: [BIN, 'hook', 'codex', 'PreToolUse'], env: { HOOKMAP_URL: daemonUrl } },
  ];
  // sanity: every path reaches the daemon and exits 0
  for (const v of variants) {
    const r = await fire(v.cmd, v.argv, v.env);
    if (r.code !== 0) throw new Error(`${v.name}: exit ${r.code}`);
  }
  // a shim the daemon refused (no hook key, a non-200) answers neutral and exits 0 too: it leaves a fail-open trace
  if (existsSync(join(home, FAILED_OPEN_LOG))) throw new Error(`a shim failed open: ${readFileSync(join(home, FAILED_OPEN_LOG), 'utf8')}`);
  const times = variants.map(() => [] as number[]);
  for (let w = 0; w < 20; w++) for (const v of variants) await fire(v.cmd, v.argv, v.env); // warm-up
  for (let i = 0; i < N; i++) {
    for (let k = 0; k < variants.length; k++) times[k].push((await fire(variants[k].cmd, variants[k].argv, variants[k].env)).ms);
  }
  const rows = variants.map((v, k) => ({ name: v.name, ...stats(times[k]) }));
  const base = rows[0].median;
  console.log(`\n### Hook firing latency (${N} firings each, loopback; daemon: ${daemonKind})\n`);
  console.log('| path | median ms | p99 ms | max ms | median vs bare curl |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.name} | ${f1(r.median)} | ${f1(r.p99)} | ${f1(r.max)} | ${(r.median / base).toFixed(2)}x |`);
  const shRow = rows[2];
  const curlShRow = rows[3];
  const floorRow = rows[4];
  const nodeRow = rows[5];
  console.log(
    `\nsh shim median / Node shim median = ${(shRow.median / nodeRow.median).toFixed(3)} (bar: ` +
      `<= 0.25): ${shRow.median <= nodeRow.median / 4 ? 'MET' : 'NOT MET'}`,
  );
  const over = (r: (typeof rows)[number]) => `${shRow.median >= r.median ? '+' : ''}${f1(shRow.median - r.median)} ms`;
  console.log(`sh shim over native HTTP: ${over(rows[1])} median; its curl transport over the sh + curl floor: +${f1(curlShRow.median - floorRow.median)} ms`);

  // Fail-open: a stopped daemon (a port that refuses) and a hung one.
  const downUrl = await (async () => {
    const p = spawn(process.execPath, ['-e', SERVER('up')], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const url: string = await new Promise((r) => p.stdout!.once('data', (c) => r(String(c).trim())));
    p.kill('SIGKILL');
    await new Promise((r) => p.on('exit', r));
    return url;
  })();
  const hungUrl = await startServer(process.execPath, ['-e', SERVER('hung')]);
  const shims = [variants[2], variants[3], variants[5]];
  const down = Math.max(10, Math.round(N / 20));
  console.log(`\n### Fail-open (neutral bytes, exit 0)\n`);
  console.log('| shim | daemon | firings | median ms | p99 ms | max ms | all neutral + exit 0 |');
  console.log('|---|---|---:|---:|---:|---:|---|');
  const failOpen: { name: string; values: number[] }[] = [];
  for (const v of shims) {
    const xs: number[] = [];
    let okAll = true;
    for (let i = 0; i < down; i++) {
      const r = await fire(v.cmd, v.argv, { HOOKMAP_URL: downUrl });
      xs.push(r.ms);
      okAll &&= r.code === 0 && r.out === '';
    }
    const s = stats(xs);
    console.log(`| ${v.name.replace(' -> daemon', '')} | stopped | ${s.n} | ${f1(s.median)} | ${f1(s.p99)} | ${f1(s.max)} | ${okAll ? 'yes' : 'NO'} |`);
    if (!okAll) throw new Error(`${v.name}: a firing against a stopped daemon did not answer neutral with exit 0`);
    failOpen.push({ name: `${v.name.replace(' -> daemon', '')}, daemon stopped`, values: [s.n, r1(s.median), r1(s.p99), r1(s.max)] });
  }
  const bound = boundFor(plan, 'PreToolUse');
  for (const v of shims) {
    const xs: number[] = [];
    let okAll = true;
    for (let i = 0; i < 3; i++) {
      const r = await fire(v.cmd, v.argv, { HOOKMAP_URL: hungUrl });
      xs.push(r.ms);
      okAll &&= r.code === 0 && r.out === '';
    }
    const s = stats(xs);
    console.log(
      `| ${v.name.replace(' -> daemon', '')} | hung (bound ${bound} ms) | ${s.n} | ${f1(s.median)} | ${f1(s.p99)} | ${f1(s.max)} | ${okAll ? 'yes' : 'NO'} |`,
    );
    if (!okAll) throw new Error(`${v.name}: a firing against a hung daemon did not answer neutral with exit 0`);
    failOpen.push({ name: `${v.name.replace(' -> daemon', '')}, daemon hung (bound ${bound} ms)`, values: [s.n, r1(s.median), r1(s.p99), r1(s.max)] });
  }
  console.log(
    `\nGenerated bounds (codex): non-held hooks ${plan.bound_ms} ms, PermissionRequest ${boundFor(plan, 'PermissionRequest')} ` +
      `ms (hold 55000 + 2000 grace), connect ${plan.connect_ms} ms; agent timeout ${plan.agent_timeout_ms} ` +
      `ms.`,
  );
  writeResult({
    bench: 'hook-latency',
    title: 'Hook firing',
    command: `npx tsx bench/hook-latency/run.ts --n ${N}`,
    about:
      `wall time from spawn to exit of one PreToolUse firing (Codex), ${N} firings per path interleaved round-robin, ` +
      `against a bare \`curl\` POST to a static server (one curl exec: the floor); daemon: ${daemonKind}. Then ` +
      'fail-open: each shim against a stopped daemon and a hung one, every firing answered with the neutral bytes and exit 0.',
    tables: [
      {
        caption: `Hook firing, ${N} firings each.`,
        label: 'path',
        columns: [
          { name: 'median', unit: 'ms' },
          { name: 'p99', unit: 'ms' },
          { name: 'max', unit: 'ms' },
        ],
        ratio: 'median vs bare curl',
        rows: rows.map((r, k) => ({
          name: r.name,
          values: [r1(r.median), r1(r.p99), r1(r.max)],
          ratio: ratio(r.median, base),
          ...(k === 0 ? { baseline: true } : {}),
        })),
      },
      {
        caption: 'Fail-open: the neutral bytes and exit 0 (checked for every firing).',
        label: 'shim, daemon',
        columns: [
          { name: 'firings', unit: '' },
          { name: 'median', unit: 'ms' },
          { name: 'p99', unit: 'ms' },
          { name: 'max', unit: 'ms' },
        ],
        rows: failOpen,
      },
    ],
    notes: [
      `The \`sh\` shim's median is ${(shRow.median / nodeRow.median).toFixed(3)} of the Node shim's (\`hookmap setup\` registers the \`sh\` shim).`,
      `The sh shim posts through ${TRANSPORT}. A curl start is mostly dynamic linking: through curl the shim is ` +
        `${(curlShRow.median / base).toFixed(2)}x of bare curl, ${f1(curlShRow.median - floorRow.median)} ms over the least a shim around ` +
        `curl costs (\`sh -c 'exec curl'\`, ${(floorRow.median / base).toFixed(2)}x).`,
      `Generated bounds (codex): non-held hooks ${plan.bound_ms} ms, PermissionRequest ${boundFor(plan, 'PermissionRequest')} ms ` +
        `(hold 55,000 + 2,000 grace), connect ${plan.connect_ms} ms; the agent's own hook timeout ${plan.agent_timeout_ms} ms.`,
    ],
  });
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
