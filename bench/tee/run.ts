// Pass-through latency of `hookmap tee`, loopback only. An "editor" (this
// process) writes one ACP line at a time to its agent command and waits for
// the line to come back; the agent is `cat`, which echoes it. So each round
// trip crosses the tee twice (editor -> agent, agent -> editor):
//   bare cat          the agent command is `cat` itself (the baseline)
//   tee, daemon up    `hookmap tee acp --url <up> -- cat`, every line framed and
//                     forwarded to a real `hookmap up` (its own process)
//   tee, daemon down  `hookmap tee acp --url <closed port> -- cat`
// Variants are interleaved round-robin (one line each in turn) so machine
// noise hits all alike. Reported: median and p99 round trip, the tee's added
// latency per line (half the median round-trip difference: one crossing),
// and the median as a ratio against bare cat in the same run. Lines are real
// ACP shapes (a session/update of ~600 bytes, a tool_call, a prompt).
//   npx tsx bench/tee/run.ts [--n 2000]
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ratio, writeResult } from '../results.ts';

const BIN = fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url));
const args = process.argv.slice(2);
const N = Number(args[args.indexOf('--n') + 1]) || 2000;
const home = mkdtempSync(join(tmpdir(), 'hookmap-bench-tee-'));
const env = { ...process.env, HOME: home, HOOKMAP_HOME: home, HOOKMAP_TOKEN: '' };
const children: ChildProcessWithoutNullStreams[] = [];
const cleanup = () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(home, { recursive: true, force: true });
};
process.on('exit', cleanup);

const LINES = [
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 'bench-s1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x'.repeat(500) } } },
  }),
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 'bench-s1',
      update: { sessionUpdate: 'tool_call', toolCallId: 'call_1', title: 'run tests', kind: 'execute', status: 'pending', rawInput: { command: 'npm test' } },
    },
  }),
  JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'session/prompt',
    params: { sessionId: 'bench-s1', prompt: [{ type: 'text', text: 'fix the failing build' }] },
  }),
];

interface Variant {
  name: string;
  p: ChildProcessWithoutNullStreams;
  buf: string;
  wait?: () => void;
  rtt: number[];
}

function variant(name: string, cmd: string, argv: string[]): Variant {
  const p = spawn(cmd, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(p);
  const v: Variant = { name, p, buf: '', rtt: [] };
  p.stdout.on('data', (c) => {
    v.buf += c;
    if (v.buf.includes('\n')) {
      v.buf = v.buf.slice(v.buf.lastIndexOf('\n') + 1);
      const w = v.wait;
      v.wait = undefined;
      w?.();
    }
  });
  p.stderr.resume();
  return v;
}

function roundTrip(v: Variant, line: string): Promise<number> {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    v.wait = () => resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    v.p.stdin.write(`${line}\n`);
  });
}

async function startUp(): Promise<string> {
  const p = spawn(process.execPath, [BIN, 'up', '--port', '0'], { env: { ...env, HOOKMAP_HOME: join(home, 'up') }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(p);
  p.stderr.resume();
  return new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error('hookmap up printed no URL in 60 s')), 60_000);
    p.stdout.on('data', (c) => {
      out += c;
      const m = /^(http:\/\/\S+)\n/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
  });
}

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

const url = await startUp();
const variants = [
  variant('bare cat (baseline)', 'cat', []),
  variant('tee, daemon up', process.execPath, [BIN, 'tee', 'acp', '--url', url, '--', 'cat']),
  variant('tee, daemon down', process.execPath, [BIN, 'tee', 'acp', '--url', 'http://127.0.0.1:9', '--', 'cat']),
];
// warm up: every process started and its first lines through
for (let i = 0; i < 50; i++) for (const v of variants) await roundTrip(v, LINES[i % LINES.length]);
for (let i = 0; i < N; i++) for (const v of variants) v.rtt.push(await roundTrip(v, LINES[i % LINES.length]));
const base = q(variants[0].rtt, 0.5);
console.log(
  `hookmap tee pass-through, ${N} lines per variant (round trip editor -> agent command -> editor, agent = cat), ${new Date().toISOString().slice(0, 10)}`,
);
console.log('| variant | median round trip | p99 | added per line (one crossing) | median vs bare cat |');
console.log('|---|---:|---:|---:|---:|');
for (const v of variants) {
  const med = q(v.rtt, 0.5);
  const added = (med - base) / 2;
  console.log(
    `| ${v.name} | ${med.toFixed(3)} ms | ${q(v.rtt, 0.99).toFixed(3)} ms | ${v === variants[0] ? '—' : `${added.toFixed(3)} ms`} ` +
      `| ${(med / base).toFixed(2)} |`,
  );
}
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const NAME: Record<string, string> = {
  'bare cat (baseline)': 'bare `cat`',
  'tee, daemon up': '`hookmap tee acp -- cat`, daemon up (every line framed and forwarded)',
  'tee, daemon down': '`hookmap tee acp -- cat`, daemon down',
};
writeResult({
  bench: 'tee',
  title: 'Tee pass-through',
  command: `npx tsx bench/tee/run.ts --n ${N}`,
  about:
    `${N} ACP lines per variant, one at a time: the editor writes a line and waits for it to come back through the agent ` +
    'command, `cat`, so each round trip crosses the tee twice; variants interleaved; `hookmap up` in its own process; ' +
    'against bare `cat`. The tee writes each chunk on before it frames it, so a line is never held for mapping ' +
    '(`test/runtime/surface/tee.test.ts`).',
  tables: [
    {
      caption: 'Round trip per line; the added latency of one crossing is half the median difference.',
      label: 'agent command',
      columns: [
        { name: 'median round trip', unit: 'ms' },
        { name: 'p99', unit: 'ms' },
        { name: 'added per line, one crossing', unit: 'ms' },
      ],
      ratio: 'median vs bare `cat`',
      rows: variants.map((v, i) => ({
        name: NAME[v.name],
        values: [r3(q(v.rtt, 0.5)), r3(q(v.rtt, 0.99)), i === 0 ? null : r3((q(v.rtt, 0.5) - base) / 2)],
        ratio: ratio(q(v.rtt, 0.5), base),
        ...(i === 0 ? { baseline: true } : {}),
      })),
    },
  ],
});
for (const v of variants) v.p.stdin.end();
await new Promise((r) => setTimeout(r, 1500));
cleanup();
process.exit(0);
