// bench/redact: redaction throughput (AEP-0003 §9.4 pipeline, the rule table
// in engine/core/capture/redaction/) on realistic inputs, against a plain string
// scan of the same input in the same run: one case-insensitive keyword regex
// pass (/password|secret|token|bearer/gi, what a naive scrubber does) and
// JSON.stringify (what the daemon does to every event anyway). The ratio is
// the figure; absolute numbers vary by machine and load.
// Run: node --import tsx bench/redact/run.ts [--seconds 2]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Redactor } from '../../engine/core/capture/redact.ts';
import { FIXTURES_DIR, ROOT } from '../../engine/core/descriptor/registry.ts';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 2;
const redactor = new Redactor({ env: {} });

// realistic inputs
const payloads: unknown[] = [];
for (const agent of readdirSync(FIXTURES_DIR)) {
  const dir = join(FIXTURES_DIR, agent, 'recorded');
  if (!existsSync(dir)) continue;
  for (const f of readdirSync(dir)) payloads.push(parse(readFileSync(join(dir, f), 'utf8')).payload);
}
const code = ['engine/core/map/mapper.ts', 'engine/runtime/daemon/daemon.ts', 'engine/runtime/relay/core.ts', 'README.md', 'vendors/claude-code.yaml']
  .filter((f) => existsSync(join(ROOT, f)))
  .map((f) => readFileSync(join(ROOT, f), 'utf8'))
  .join('\n');
const toMB = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);
const commands = toMB(
  [
    'cd ~/proj && npm test -- --reporter=dot',
    'git log --oneline -20 && git diff HEAD~3 -- src/',
    'DATABASE_URL=postgres://app:S3cretPw@db.internal:5432/app npm run migrate',
    "curl -sS -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.SflKxwRJSMeKKF2QT4fwpM' https://api.example.test/v1/items",
    'docker build -t app:latest . && docker run --rm -p 8080:8080 app:latest',
    'export STRIPE_KEY=sk_live_51HqLyjWDarjtT1zdp7dcABCDEF && node scripts/charge.js',
    'rg -n "TODO|FIXME" src | head -50',
    'python -m pytest -q tests/ -k "not slow"',
  ].join('\n') + '\n',
  1_000_000,
);
const blob =
  `curl -d '${Buffer.from(Array.from({ length: 750_000 }, (_, i) => (i * 7919 + (i >> 5)) & 255)).toString('base64url')}' ` + `https://upload.example.test`;
const tool = toMB(code, 1_000_000);

const naive = /password|secret|token|bearer/gi;
const scan = (s: string) => {
  naive.lastIndex = 0;
  let n = 0;
  while (naive.exec(s)) n++;
  return n;
};

function rate(fn: () => void, bytes: number): number {
  fn();
  let n = 0;
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  while (performance.now() < until) {
    fn();
    n++;
  }
  return (n * bytes) / ((performance.now() - t0) / 1000) / 1e6;
}

const json = JSON.stringify(payloads);
const cases: { name: string; bytes: number; redact: () => void; base: () => void; stringify: () => void }[] = [
  {
    name: `recorded hook payloads (${payloads.length}, deep)`,
    bytes: json.length,
    redact: () => redactor.deep(payloads),
    base: () => scan(json),
    stringify: () => JSON.stringify(payloads),
  },
  {
    name: 'shell commands, 1 MB',
    bytes: commands.length,
    redact: () => redactor.text(commands),
    base: () => scan(commands),
    stringify: () => JSON.stringify(commands),
  },
  {
    name: 'tool output (source code), 1 MB',
    bytes: tool.length,
    redact: () => redactor.text(tool),
    base: () => scan(tool),
    stringify: () => JSON.stringify(tool),
  },
  {
    name: 'base64url blob in a command, 1 MB',
    bytes: blob.length,
    redact: () => redactor.text(blob),
    base: () => scan(blob),
    stringify: () => JSON.stringify(blob),
  },
  {
    name: 'tool output streamed in 40-char fragments, 1 MB',
    bytes: tool.length,
    redact: () => {
      const st = redactor.stream();
      for (let i = 0; i < tool.length; i += 40) st.push(tool.slice(i, i + 40));
      st.flush();
    },
    base: () => scan(tool),
    stringify: () => JSON.stringify(tool),
  },
];

console.log(`| input | redactor MB/s | keyword regex scan MB/s | JSON.stringify MB/s | redactor vs regex scan | vs stringify |`);
console.log('|---|---:|---:|---:|---:|---:|');
for (const c of cases) {
  const r = rate(c.redact, c.bytes);
  const b = rate(c.base, c.bytes);
  const j = rate(c.stringify, c.bytes);
  console.log(`| ${c.name} | ${r.toFixed(1)} | ${b.toFixed(1)} | ${j.toFixed(1)} | ${(r / b).toFixed(3)} | ${(r / j).toFixed(3)} |`);
}
