// Records per second through the OTLP receiver (issue 30), protobuf vs JSON,
// against decoding alone in the same run. One in-process `hookmap up` with
// the codex-otel descriptor; each export is a batch of real-shaped Codex
// records (a tool_decision, a tool_result, three sse_events, an api_request)
// POSTed over loopback HTTP and answered only once every record is mapped and
// logged. Variants are interleaved round-robin (one batch each in turn) so
// machine noise hits all alike:
//   decode protobuf / decode JSON   readLogsBody alone (the wire reader, no HTTP, no mapping)
//   receiver protobuf / JSON        POST /otlp/codex-otel/v1/logs end to end
// Reported: records per second of each, and the receiver's as a ratio of
// decoding alone (the share of the cost that is the wire format).
//   npx tsx bench/otlp/run.ts [--batches 200] [--batch 64]
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startUp } from '../../engine/app/up.ts';
import { readLogsBody } from '../../engine/runtime/surface/otlp-logs.ts';
import { writeResult, ratio as ratioOf } from '../results.ts';

const args = process.argv.slice(2);
const flag = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) || d : d);
const BATCHES = flag('--batches', 200);
const BATCH = flag('--batch', 64);

const require = createRequire(import.meta.url);
const root = require('otlp-proto-root/build/src/generated/root.js');
const LogsRequest = root.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;

const kv = (key: string, v: string | number) => ({ key, value: typeof v === 'string' ? { stringValue: v } : { intValue: String(v) } });
const SHAPES: [string, Record<string, string | number>][] = [
  ['codex.tool_decision', { tool_name: 'exec_command', call_id: 'call_1', decision: 'approved', source: 'Config' }],
  [
    'codex.tool_result',
    {
      tool_name: 'exec_command',
      call_id: 'call_1',
      duration_ms: '169',
      success: 'true',
      arguments: '{"cmd":"ls"}',
      output: 'Process exited with code 0\nOutput:\nREADME.md\n',
    },
  ],
  ['codex.sse_event', { 'event.kind': 'response.output_item.done', duration_ms: '0' }],
  ['codex.sse_event', { 'event.kind': 'response.completed', input_token_count: 1200, output_token_count: 80 }],
  ['codex.sse_event', { 'event.kind': 'response.created', duration_ms: '0' }],
  ['codex.api_request', { duration_ms: '32', attempt: 0, 'http.response.status_code': 200 }],
];
function exportOf(session: string, n: number) {
  const common = [
    kv('conversation.id', session),
    kv('app.version', '0.169.0'),
    kv('originator', 'codex_exec'),
    kv('model', 'gpt-5'),
    kv('terminal.type', 'xterm'),
  ];
  return {
    resourceLogs: [
      {
        resource: { attributes: [kv('service.name', 'codex_exec'), kv('service.version', '0.169.0'), kv('host.name', 'bench')] },
        scopeLogs: [
          {
            scope: { name: 'codex_otel.log_only' },
            logRecords: Array.from({ length: n }, (_, i) => {
              const [name, attrs] = SHAPES[i % SHAPES.length];
              return {
                timeUnixNano: String(1764612000000000000n + BigInt(i)),
                severityNumber: 9,
                attributes: [kv('event.name', name), ...common, ...Object.entries(attrs).map(([k, v]) => kv(k, v))],
              };
            }),
          },
        ],
      },
    ],
  };
}

const home = mkdtempSync(join(tmpdir(), 'hookmap-bench-otlp-'));
const up = await startUp({
  port: 0,
  home,
  logDir: join(home, 'logs'),
  stateDir: join(home, 'state'),
  noAuth: true,
  agents: [{ descriptor: 'codex-otel' }],
  say: () => {},
});
const url = `${up.url}/otlp/codex-otel/v1/logs`;

interface Variant {
  name: string;
  records: number;
  ms: number;
  run: (i: number) => Promise<void>;
}
const bodies = { proto: [] as Buffer[], json: [] as Buffer[] };
for (let i = 0; i < BATCHES; i++) {
  // a session per batch for the receiver (each batch its own log file, as exports of many sessions would be)
  const e = exportOf(`bench-${i}`, BATCH);
  bodies.proto.push(Buffer.from(LogsRequest.encode(LogsRequest.fromObject(e)).finish()));
  bodies.json.push(Buffer.from(JSON.stringify(e)));
}
const post = async (body: Buffer, type: string) => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(body) });
  if (r.status !== 200) throw new Error(`receiver answered ${r.status}: ${await r.text()}`);
  await r.arrayBuffer();
};
const variants: Variant[] = [
  {
    name: 'decode protobuf',
    records: 0,
    ms: 0,
    run: async (i) => void readLogsBody({ contentType: 'application/x-protobuf', body: bodies.proto[i], maxBytes: 1 << 24 }),
  },
  { name: 'decode JSON', records: 0, ms: 0, run: async (i) => void readLogsBody({ contentType: 'application/json', body: bodies.json[i], maxBytes: 1 << 24 }) },
  { name: 'receiver protobuf', records: 0, ms: 0, run: (i) => post(bodies.proto[i], 'application/x-protobuf') },
  { name: 'receiver JSON', records: 0, ms: 0, run: (i) => post(bodies.json[i], 'application/json') },
];
// warm up (JIT, the validators, the first log files)
for (const v of variants) for (let i = 0; i < 5; i++) await v.run(i);
for (let i = 0; i < BATCHES; i++) {
  for (const v of variants) {
    const t0 = process.hrtime.bigint();
    await v.run(i);
    v.ms += Number(process.hrtime.bigint() - t0) / 1e6;
    v.records += BATCH;
  }
}
await up.close();
rmSync(home, { recursive: true, force: true });

const rate = (v: Variant) => v.records / (v.ms / 1000);
const by = Object.fromEntries(variants.map((v) => [v.name, rate(v)]));
console.log(`OTLP receiver: ${BATCHES} batches of ${BATCH} records, interleaved, loopback HTTP, one daemon (durability none)`);
for (const v of variants) console.log(`  ${v.name.padEnd(18)} ${Math.round(rate(v)).toLocaleString('en-US').padStart(12)} records/s`);
const ratio = (a: string, b: string, digits: number) => (by[a] / by[b]).toFixed(digits);
console.log(`  receiver / decode alone: protobuf ${ratio('receiver protobuf', 'decode protobuf', 3)}, JSON ${ratio('receiver JSON', 'decode JSON', 3)}`);
console.log(`  protobuf / JSON: decode ${ratio('decode protobuf', 'decode JSON', 2)}x, receiver ${ratio('receiver protobuf', 'receiver JSON', 2)}x`);
writeResult({
  bench: 'otlp',
  title: 'OTLP receiver',
  command: `npx tsx bench/otlp/run.ts --batches ${BATCHES} --batch ${BATCH}`,
  about:
    `${BATCHES} exports of ${BATCH} real-shaped Codex records each, POSTed over loopback to a whole \`hookmap up\` with ` +
    '`codex-otel` and answered once every record is mapped and logged, against decoding the same bodies alone (the wire ' +
    'reader, no HTTP, no mapping), interleaved batch by batch in the same run. Mapping each record as one daemon firing ' +
    '(rules, capture gate, validation, the session log, the relay) is the cost, not the wire format.',
  tables: [
    {
      caption: 'Records per second; each receiver row against decoding its own format alone.',
      label: 'variant',
      columns: [{ name: 'records/s', unit: '' }],
      ratio: 'vs decoding alone',
      rows: [
        { name: 'decode protobuf', values: [Math.round(by['decode protobuf'])], ratio: 1, baseline: true },
        { name: 'decode JSON', values: [Math.round(by['decode JSON'])], ratio: 1, baseline: true },
        { name: 'receiver, protobuf', values: [Math.round(by['receiver protobuf'])], ratio: ratioOf(by['receiver protobuf'], by['decode protobuf']) },
        { name: 'receiver, JSON', values: [Math.round(by['receiver JSON'])], ratio: ratioOf(by['receiver JSON'], by['decode JSON']) },
      ],
    },
  ],
});
process.exit(0);
