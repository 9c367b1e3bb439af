// bench/bridge: bridge throughput, events/s, as a ratio against reading the
// same JSONL file without projecting (read + parse + envelope validation +
// dedupe: what every bridge pays before its projection). Each bridge runs
// the `--from-file` path end to end: projection, the OpenTelemetry /
// cloudevents serializers, batching and HTTP delivery to a loopback sink
// that accepts everything. Same process, same file, best of RUNS.
//   node --import tsx bench/bridge/run.ts [--events N] [--runs N]
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { readEventFile } from '../../engine/person/bridge/file-source.ts';
import { runBridge } from '../../engine/person/bridge/run.ts';
import { cloudEventsTarget, ocsfTarget, otlpTarget, type BridgeTarget } from '../../engine/person/bridge/targets.ts';
import { ratio, writeResult } from '../results.ts';

const arg = (name: string, d: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : d);
const EVENTS = arg('--events', 30_000);
const RUNS = arg('--runs', 3);

/** Sessions shaped like a coding agent's: a run per prompt, tool calls, now and then a permission wait. */
function sessionFile(path: string, total: number): number {
  const lines: string[] = [];
  let s = 0;
  const t0 = Date.UTC(2026, 10, 30, 9);
  while (lines.length < total) {
    const session = `bench-${s++}`;
    const source = `aep://bench/agent/bench-agent/session/${session}`;
    let seq = 0;
    let t = t0 + s * 1000;
    const ev = (type: string, extra: Record<string, unknown> = {}) => {
      const e = {
        aep: '0.1',
        id: `${session}-${seq}`,
        type,
        time: new Date((t += 37)).toISOString(),
        source,
        agent: 'bench-agent',
        session,
        seq: seq++,
        epoch: 0,
        capture: 'metadata',
        ...extra,
      };
      lines.push(JSON.stringify(e));
      return e;
    };
    const start = ev('session.started', { data: { client: { name: 'bench-agent', version: '1.0.0' }, 'gen_ai.request.model': 'model-x' } });
    for (let r = 0; r < 4; r++) {
      const run = `r${r}`;
      const rs = ev('run.started', { run, cause: start.id, data: { trigger: 'user' } });
      for (let c = 0; c < 8; c++) {
        const call = `${run}-c${c}`;
        const req = ev('tool.requested', {
          run,
          subject: 'Bash',
          cause: rs.id,
          data: { tool: { name: 'Bash', call_id: call }, args_digest: '0f1e2d3c4b5a69780f1e2d3c4b5a6978' },
        });
        if (c === 3) {
          const a = ev('attention.requested', {
            run,
            subject: 'Bash',
            cause: req.id,
            capture: 'redacted',
            data: {
              kind: 'permission',
              prompt: 'Permission requested: Bash',
              options: [
                { id: 'allow', label: 'Allow' },
                { id: 'deny', label: 'Deny' },
              ],
              respond_via: ['control'],
            },
          });
          ev('attention.answered', { subject: a.id, cause: a.id, data: { answer: { option: 'allow' }, via: 'control' } });
          ev('attention.resolved', { subject: a.id, cause: a.id, data: { resolution: 'answered', latency_ms: 900 } });
        }
        ev('tool.completed', { run, subject: 'Bash', cause: req.id, data: { tool: { name: 'Bash', call_id: call }, status: 'success', duration_ms: 40 } });
      }
      ev('run.finished', { run, cause: rs.id, data: { duration_ms: 9000, 'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 300 } });
    }
    ev('session.ended', { data: { reason: 'normal' } });
  }
  writeFileSync(path, lines.slice(0, total).join('\n') + '\n');
  return Math.min(lines.length, total);
}

async function best(fn: () => Promise<number>): Promise<{ eps: number; items: number }> {
  let eps = 0;
  let items = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    items = await fn();
    eps = Math.max(eps, EVENTS / ((performance.now() - t) / 1000));
  }
  return { eps, items };
}

const dir = mkdtempSync(join(tmpdir(), 'hookmap-bench-bridge-'));
const file = join(dir, 'sessions.jsonl');
sessionFile(file, EVENTS);
let received = 0;
const sink = http.createServer((req, res) => {
  req.on('data', (c) => (received += c.length));
  req.on('end', () => res.writeHead(200).end());
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

const baseline = await best(async () => {
  let n = 0;
  for await (const _ of readEventFile(file, () => {})) n++;
  return n;
});

const cases: [string, () => BridgeTarget][] = [
  ['otlp logs + traces, http/protobuf', () => otlpTarget({ endpoint: url, ceiling: 'metadata' }) as BridgeTarget],
  ['otlp logs + traces, http/json', () => otlpTarget({ endpoint: url, ceiling: 'metadata', protocol: 'http/json' }) as BridgeTarget],
  ['cloudevents, batch', () => cloudEventsTarget({ endpoint: url, ceiling: 'metadata', mode: 'batch' }) as BridgeTarget],
  ['ocsf, NDJSON', () => ocsfTarget({ endpoint: url, ceiling: 'metadata' }) as BridgeTarget],
];

const rows: string[] = [];
const measured: { name: string; values: number[]; ratio: number; baseline?: boolean }[] = [
  { name: 'read + parse + validate + dedupe', values: [Math.round(baseline.eps), baseline.items], ratio: 1, baseline: true },
];
rows.push(`| path | events/s | output items | vs reading the file |`);
rows.push(`|---|---:|---:|---:|`);
rows.push(`| read + parse + validate + dedupe (baseline) | ${Math.round(baseline.eps).toLocaleString('en-US')} | ${baseline.items} events | 1.00 |`);
for (const [name, make] of cases) {
  const r = await best(async () => {
    const h = runBridge({ target: make(), input: { kind: 'file', path: file }, batchMax: 512 });
    const st = await h.done;
    if (st.droppedItems) throw new Error(`${name}: ${st.droppedItems} items not delivered`);
    return st.items;
  });
  rows.push(`| ${name} | ${Math.round(r.eps).toLocaleString('en-US')} | ${r.items} | ${(r.eps / baseline.eps).toFixed(2)} |`);
  measured.push({ name, values: [Math.round(r.eps), r.items], ratio: ratio(r.eps, baseline.eps) });
}
console.log(`bench/bridge: ${EVENTS} events (${RUNS} runs each, best), node ${process.version}, ${new Date().toISOString().slice(0, 10)}`);
console.log(rows.join('\n'));
writeResult({
  bench: 'bridge',
  title: 'Bridges',
  command: `npx tsx bench/bridge/run.ts --events ${EVENTS}`,
  about:
    `${EVENTS.toLocaleString('en-US')} events of simulated coding sessions in a JSONL file through each bridge's \`--from-file\` path end to end ` +
    '(projection at the `metadata` ceiling, the serializers, batches of 512, HTTP delivery to a loopback sink), against ' +
    `reading the same file without projecting (read, parse, envelope validation, dedupe), same process, best of ${RUNS}.`,
  tables: [
    {
      caption: 'Events per second.',
      label: 'path',
      columns: [
        { name: 'events/s', unit: '' },
        { name: 'output items', unit: '' },
      ],
      ratio: 'vs reading the file',
      rows: measured,
    },
  ],
  notes: ['The OTLP bridge writes two signals (a LogRecord per event and the span tree) in two requests per batch, so it pays the most per event.'],
});
sink.close();
rmSync(dir, { recursive: true, force: true });
