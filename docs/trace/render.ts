// Renders docs/bridge-trace.png: the trace `hookmap bridge otlp` exports for
// one simulated Claude Code session. The session is real engine output:
// `hookmap up` (in-process, temp HOOKMAP_HOME, a token) receives Claude
// Code's hook payloads, a human answers two permission prompts over the
// relay (allow, then deny), the classifier denies a write. The daemon's
// JSONL log is then projected by the OTLP trace projection, serialized with
// the OpenTelemetry JSON trace serializer, drawn as a waterfall (HTML) and
// screenshotted with Debian's chromium (playwright-core).
//   node --import tsx docs/trace/render.ts [--out docs/bridge-trace.png]   (regenerates the picture)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { startUp } from '../../engine/app/up.ts';
import { makeCommand, openSocket, sendCommand } from '../../engine/runtime/relay/client.ts';
import { TraceProjector } from '../../engine/person/bridge/projection/otlp-traces.ts';

const out = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : join(import.meta.dirname, '..', 'bridge-trace.png');
const TOKEN = 'render-token';
const SESSION = 'cc-demo-7f3a';
const home = mkdtempSync(join(tmpdir(), 'hookmap-render-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const up = await startUp({
  agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 30_000 }],
  logDir: join(home, 'logs'),
  stateDir: join(home, 'state'),
  port: 0,
  token: TOKEN,
});
for (let i = 0; i < 100 && !(await (await fetch(`${up.url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).relay; i++) await sleep(50);
const human = await openSocket(up.url, TOKEN, 'both');
await new Promise<void>((resolve) => {
  const off = human.on((m) => m.type === 'subscribed' && (off(), resolve()));
  human.send({ type: 'subscribe', id: 'w', filter: { session: SESSION } });
});
const hook = (body: Record<string, unknown>) =>
  fetch(`${up.url}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: SESSION, transcript_path: '/tmp/t.jsonl', cwd: '/work/app', ...body }),
  }).then((r) => r.text());
const tool = async (name: string, id: string, input: Record<string, unknown>, ms: number) => {
  await hook({ hook_event_name: 'PreToolUse', tool_name: name, tool_use_id: id, tool_input: input });
  await sleep(ms);
  await hook({ hook_event_name: 'PostToolUse', tool_name: name, tool_use_id: id, tool_input: input, tool_response: {}, duration_ms: ms });
};
const permission = async (name: string, id: string, input: Record<string, unknown>, option: 'allow' | 'deny', waitMs: number) => {
  const asked = new Promise<any>((resolve) => {
    const off = human.on((m) => m.type === 'attention.requested' && m.data?.kind === 'permission' && (off(), resolve(m)));
  });
  const held = hook({ hook_event_name: 'PermissionRequest', tool_name: name, tool_use_id: id, tool_input: input });
  const req = await asked;
  await sleep(waitMs); // the human reads the prompt
  await sendCommand(human, makeCommand('control.attention.respond', SESSION, { subject: req.id, data: { answer: { option } } }), {
    ackWindowMs: 5000,
    outcomeWindowMs: 5000,
    isFinal: (e) => e.type === 'attention.resolved',
  });
  await held;
};

await hook({ hook_event_name: 'SessionStart', source: 'startup', model: 'claude-opus-5' });
await sleep(150);
await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'fix the failing test and deploy' });
await sleep(300);
await tool('Read', 'toolu_01', { file_path: '/work/app/test/api.test.ts' }, 180);
await sleep(120);
await tool('Grep', 'toolu_02', { pattern: 'retry' }, 90);
await sleep(150);
await hook({ hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_use_id: 'toolu_03', tool_input: { file_path: '/work/app/src/api.ts' } });
await permission('Edit', 'toolu_03', { file_path: '/work/app/src/api.ts' }, 'allow', 900);
await sleep(220);
await hook({ hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_use_id: 'toolu_03', tool_input: {}, tool_response: {}, duration_ms: 220 });
await sleep(100);
await tool('Bash', 'toolu_04', { command: 'npm test' }, 1100);
await sleep(150);
await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'toolu_05', tool_input: { command: 'npm run deploy -- --prod' } });
await permission('Bash', 'toolu_05', { command: 'npm run deploy -- --prod' }, 'deny', 1400);
await sleep(120);
await hook({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_use_id: 'toolu_06', tool_input: { file_path: '/work/app/.env' } });
await sleep(60);
await hook({ hook_event_name: 'PermissionDenied', tool_name: 'Write', tool_use_id: 'toolu_06', tool_input: {} });
await sleep(200);
await hook({ hook_event_name: 'Stop' });
await sleep(150);
await hook({ hook_event_name: 'SessionEnd', reason: 'other' });
await sleep(200);
human.close();
await up.close();

const logDir = join(home, 'logs', 'claude-code');
const events = readdirSync(logDir)
  .filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) =>
    readFileSync(join(logDir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  );
rmSync(home, { recursive: true, force: true });
const p = new TraceProjector({ ceiling: 'metadata' });
const spans = [...events.flatMap((e) => p.add(e)), ...p.closeAll()];
const otlp = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)));
const flat = otlp.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans));

const html = waterfall(flat);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1200, height: 200 }, deviceScaleFactor: 2 });
await page.setContent(html);
const box = await page.locator('#trace').boundingBox();
await page.setViewportSize({ width: 1200, height: Math.ceil((box?.height ?? 600) + 40) });
await page.locator('#trace').screenshot({ path: out });
await browser.close();
console.log(`${out}: ${flat.length} spans`);

function waterfall(list: any[]): string {
  const attr = (s: any, k: string) => {
    const v = s.attributes.find((a: any) => a.key === k)?.value;
    return v?.stringValue ?? v?.intValue ?? v?.boolValue;
  };
  const byParent = new Map<string, any[]>();
  for (const s of list) byParent.set(s.parentSpanId ?? '', [...(byParent.get(s.parentSpanId ?? '') ?? []), s]);
  const ordered: { s: any; depth: number }[] = [];
  const walk = (id: string, depth: number) => {
    for (const s of (byParent.get(id) ?? []).sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)))) {
      ordered.push({ s, depth });
      walk(s.spanId, depth + 1);
    }
  };
  walk('', 0);
  const t0 = Math.min(...list.map((s) => Number(BigInt(s.startTimeUnixNano) / 1000n))) / 1000;
  const t1 = Math.max(...list.map((s) => Number(BigInt(s.endTimeUnixNano) / 1000n))) / 1000;
  const span = t1 - t0 || 1;
  const esc = (x: string) => x.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
  const rows = ordered.map(({ s, depth }) => {
    const a = Number(BigInt(s.startTimeUnixNano) / 1000n) / 1000;
    const b = Number(BigInt(s.endTimeUnixNano) / 1000n) / 1000;
    const op = attr(s, 'gen_ai.operation.name');
    const outcome = attr(s, 'aep.tool.outcome') ?? attr(s, 'aep.run.outcome') ?? attr(s, 'aep.attention.outcome') ?? attr(s, 'aep.session.outcome');
    const kind =
      `${s.name.startsWith('session') ? 'session' : op === 'invoke_agent' ? 'run' : op === 'execute_tool' ? (s.status?.code === 2 ? 'error' : 'tool') : 'attention'}` +
      `${attr(s, 'aep.unterminated') ? ' open' : ''}`;
    const details = [
      attr(s, 'gen_ai.tool.call.id'),
      attr(s, 'aep.attention.answer.option') ? `answer: ${attr(s, 'aep.attention.answer.option')}` : undefined,
      attr(s, 'aep.tool.denied_by') ? `denied by ${attr(s, 'aep.tool.denied_by')}` : undefined,
      attr(s, 'aep.closed_by')
        ? `no terminal event: ended with its ${String(attr(s, 'aep.closed_by')).replace('.ended', '')}`
        : attr(s, 'aep.tool.denied_by')
          ? undefined
          : outcome,
    ]
      .filter(Boolean)
      .join(' · ');
    const ms = b - a;
    return `<div class="row"><div class="name" style="padding-left:${depth * 18 + 8}px"><b>${esc(s.name)}</b><span>${esc(details)}</span></div>
      <div class="lane"><div class="bar ${kind}" style="left:${((a - t0) / span) * 90}%;width:max(3px,${(ms / span) * 90}%)"></div><div class="dur" style="left:calc(${((b - t0) / span) * 90}% + 6px)">${ms >= 1000 ? (ms / 1000).toFixed(2) + ' s' : Math.round(ms) + ' ms'}</div></div></div>`;
  });
  const traceId = list[0]?.traceId ?? '';
  return `<!doctype html><html><head><meta charset="utf-8"><style>
  body{margin:0;background:#f6f7f9;font:13px/1.35 -apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1d2330}
  #trace{margin:16px;background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:14px 16px 10px}
  h1{font-size:15px;margin:0 0 2px} .sub{color:#5b6472;font-size:12px;margin-bottom:10px}
  .row{display:flex;align-items:center;border-top:1px solid #eef0f3;min-height:38px}
  .name{width:430px;flex:none;display:flex;flex-direction:column;overflow:hidden}
  .name b{font-weight:600;font-family:"DejaVu Sans Mono",monospace;font-size:12.5px} .name span{color:#6b7380;font-size:11.5px;white-space:nowrap}
  .lane{position:relative;flex:1;height:38px;background:repeating-linear-gradient(90deg,transparent 0 calc(10% - 1px),#f1f3f6 calc(10% - 1px) 10%)}
  .bar{position:absolute;top:11px;height:16px;border-radius:3px}
  .session{background:#8d99ae}.run{background:#3a7bd5}.tool{background:#2a9d8f}.error{background:#d1495b}.attention{background:#f4a259}
  .open{background-image:repeating-linear-gradient(135deg,rgba(255,255,255,.45) 0 6px,transparent 6px 12px)}
  .dur{position:absolute;top:11px;font-size:11.5px;color:#5b6472;white-space:nowrap}
  .legend{margin-top:8px;color:#5b6472;font-size:11.5px}.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 12px;vertical-align:-1px}
  </style></head><body><div id="trace">
  <h1>One Claude Code session as an OpenTelemetry trace</h1>
  <div class="sub">hookmap bridge otlp · trace ${traceId} · ${list.length} spans · GenAI semantic conventions (invoke_agent, execute_tool) · capture ceiling metadata</div>
  ${rows.join('\n')}
  <div class="legend"><i class="session"></i>session<i class="run"></i>run (invoke_agent)<i class="tool"></i>tool call (execute_tool)<i class="error"></i>denied / failed<i class="attention"></i>waiting for a human (attention)<i class="tool open"></i>no terminal event (ended with its parent)</div>
  </div></body></html>`;
}
