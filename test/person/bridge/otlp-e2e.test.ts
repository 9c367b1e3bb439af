// End to end: `hookmap up --bridge otlp=<receiver>` (in-process, ephemeral
// port, a token) with a simulated Claude Code posting its hooks, a human
// denying a permission over the relay, and a real OTLP/HTTP receiver that
// decodes the protobuf export with the OpenTelemetry packages' own protobuf
// root (generated from the official opentelemetry-proto definitions,
// @opentelemetry/otlp-transformer 0.214's `generated/root`, the last release that ships it). Checks the span
// tree (session → run → tool calls, an attention wait, a denied tool), the
// GenAI semantic-convention attribute names, the LogRecords, and that no
// content above the metadata ceiling reached the receiver.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBridgeSpec } from '../../../engine/person/bridge/config.ts';
import { startUp, type Up } from '../../../engine/app/up.ts';
import { makeCommand, openSocket, sendCommand, type SocketSession } from '../../../engine/runtime/relay/client.ts';
import { tempDir, until } from '../../runtime/daemon/helpers.ts';

const require = createRequire(import.meta.url);
// the official OTLP message definitions, compiled by protobufjs (pbjs) in the OpenTelemetry JS repository
const root = require('otlp-proto-root/build/src/generated/root.js');
const TraceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const LogsRequest = root.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;

const TOKEN = 'otlp-e2e-token';
const SESSION = 'cc-otlp-e2e';
const SECRET_PROMPT = 'deploy with the key sk_live_51Hx0TOPSECRET please';
const SECRET_COMMAND = 'rm -rf /srv/prod-data';

interface Received {
  path: string;
  contentType: string;
  bytes: Buffer;
}

let up: Up;
let tmp: { dir: string; done: () => void };
let receiver: http.Server;
let receiverUrl: string;
const received: Received[] = [];
let human: SocketSession;

beforeAll(async () => {
  tmp = tempDir('hookmap-otlp-e2e-');
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: String(req.headers['content-type']), bytes: Buffer.concat(chunks) });
      // an OTLP/HTTP success: an empty Export*ServiceResponse
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  up = await startUp({
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 30_000 }],
    logDir: `${tmp.dir}/logs`,
    stateDir: `${tmp.dir}/state`,
    port: 0,
    token: TOKEN,
    bridges: [{ ...parseBridgeSpec(`otlp=${receiverUrl}`), batchMs: 50 }],
  });
  await until(
    'the daemon to say hello to the relay',
    async () => (await (await fetch(`${up.url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).relay === true,
  );
  human = await openSocket(up.url, TOKEN, 'both');
}, 60_000);

afterAll(async () => {
  human?.close();
  await up?.close();
  await new Promise<void>((r) => receiver.close(() => r()));
  tmp?.done();
});

async function hook(body: Record<string, unknown>): Promise<string> {
  const r = await fetch(`${up.url}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: SESSION, transcript_path: '/tmp/t.jsonl', cwd: '/work/app', ...body }),
  });
  return r.text();
}

const hex = (b: Uint8Array | undefined) => (b && b.length ? Buffer.from(b).toString('hex') : undefined);
function attrs(kvs: any[] = []): Record<string, unknown> {
  const val = (v: any): unknown =>
    v?.stringValue ?? (v?.intValue !== undefined && v?.intValue !== null ? Number(v.intValue) : undefined) ?? v?.boolValue ?? v?.doubleValue;
  return Object.fromEntries(kvs.map((kv) => [kv.key, val(kv.value)]));
}

function decodedSpans(): any[] {
  return received
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) => TraceRequest.decode(r.bytes).resourceSpans)
    .flatMap((rs: any) =>
      rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => ({ ...s, resource: attrs(rs.resource.attributes), scope: ss.scope.name }))),
    )
    .map((s: any) => ({
      name: s.name,
      traceId: hex(s.traceId),
      spanId: hex(s.spanId),
      parentSpanId: hex(s.parentSpanId),
      kind: s.kind,
      start: BigInt(s.startTimeUnixNano.toString()),
      end: BigInt(s.endTimeUnixNano.toString()),
      status: s.status,
      attributes: attrs(s.attributes),
      events: s.events.map((e: any) => e.name),
      resource: s.resource,
      scope: s.scope,
    }));
}

function decodedLogs(): any[] {
  return received
    .filter((r) => r.path === '/v1/logs')
    .flatMap((r) => LogsRequest.decode(r.bytes).resourceLogs)
    .flatMap((rl: any) => rl.scopeLogs.flatMap((sl: any) => sl.logRecords))
    .map((l: any) => ({ eventName: l.eventName, severityNumber: l.severityNumber, severityText: l.severityText, attributes: attrs(l.attributes) }));
}

describe('a simulated Claude Code session exported over OTLP/HTTP protobuf', () => {
  it('runs the session: a read, a bash call a human denies, a write the classifier denies', async () => {
    await hook({ hook_event_name: 'SessionStart', source: 'startup', model: 'claude-opus-5' });
    await hook({ hook_event_name: 'UserPromptSubmit', prompt: SECRET_PROMPT });
    await hook({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_use_id: 'toolu_read', tool_input: { file_path: '/work/app/README.md' } });
    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_use_id: 'toolu_read',
      tool_input: { file_path: '/work/app/README.md' },
      tool_response: { content: 'hello' },
    });
    await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'toolu_bash', tool_input: { command: SECRET_COMMAND } });
    // the held permission: the human sees attention.requested on the relay and denies it
    const watch = new Promise<any>((resolve) => {
      const off = human.on((m) => {
        if (m.type === 'attention.requested' && m.session === SESSION) {
          off();
          resolve(m);
        }
      });
    });
    await new Promise<void>((resolve) => {
      const off = human.on((m) => m.type === 'subscribed' && m.id === 'watch' && (off(), resolve()));
      human.send({ type: 'subscribe', id: 'watch', filter: { session: SESSION } });
    });
    const held = hook({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_use_id: 'toolu_bash', tool_input: { command: SECRET_COMMAND } });
    const request = await watch;
    const cmd = makeCommand('control.attention.respond', SESSION, { subject: request.id, data: { answer: { option: 'deny' } } });
    const r = await sendCommand(human, cmd, { ackWindowMs: 10_000, outcomeWindowMs: 10_000, isFinal: (e) => e.type === 'attention.resolved' });
    expect(r.kind).toBe('acked');
    expect(await held).toContain('"behavior":"deny"');
    await hook({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_use_id: 'toolu_write', tool_input: { file_path: '/work/app/.env', content: 'X=1' } });
    await hook({
      hook_event_name: 'PermissionDenied',
      tool_name: 'Write',
      tool_use_id: 'toolu_write',
      tool_input: { file_path: '/work/app/.env' },
      reason: 'writes to secrets',
    });
    await hook({ hook_event_name: 'Stop' });
    await hook({ hook_event_name: 'SessionEnd', reason: 'other' });
    await until('the session span at the receiver', () => decodedSpans().some((s) => s.name === 'session claude-code'), 20_000);
  }, 60_000);

  it('the receiver got OTLP protobuf on /v1/traces and /v1/logs', () => {
    expect(new Set(received.map((r) => r.path))).toEqual(new Set(['/v1/traces', '/v1/logs']));
    expect(received.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);
  });

  it('span tree: session → invoke_agent run → execute_tool calls; the attention wait under the call it asks about', () => {
    const spans = decodedSpans();
    const one = (name: string) => {
      const found = spans.filter((s) => s.name === name);
      expect(found, name).toHaveLength(1);
      return found[0];
    };
    const session = one('session claude-code');
    const run = one('invoke_agent claude-code');
    const read = one('execute_tool Read');
    const bash = one('execute_tool Bash');
    const write = one('execute_tool Write');
    const wait = one('attention permission');
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(session.parentSpanId).toBeUndefined();
    expect(run.parentSpanId).toBe(session.spanId);
    for (const t of [read, bash, write]) expect(t.parentSpanId, t.name).toBe(run.spanId);
    expect(wait.parentSpanId).toBe(bash.spanId);
    // closed by their terminal events, inside their parents
    for (const [child, parent] of [
      [run, session],
      [read, run],
      [bash, run],
      [write, run],
      [wait, bash],
    ]) {
      expect(child.start >= parent.start, `${child.name} starts inside ${parent.name}`).toBe(true);
      expect(child.end <= parent.end, `${child.name} ends inside ${parent.name}`).toBe(true);
    }
    expect(wait.end > wait.start).toBe(true); // the human took time
    expect(wait.events).toContain('attention.answered');
    expect(session.resource['service.name']).toBe('claude-code');
    expect(session.scope).toBe('hookmap-bridge');
  });

  it('GenAI semantic-convention attribute names and values', () => {
    const spans = decodedSpans();
    const by = (n: string) => spans.find((s) => s.name === n)!;
    expect(by('invoke_agent claude-code').attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'claude-code',
      'gen_ai.conversation.id': SESSION,
      'aep.run.outcome': 'finished',
    });
    expect(by('execute_tool Read').attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'Read',
      'gen_ai.tool.call.id': 'toolu_read',
      'aep.tool.outcome': 'completed',
    });
    expect(by('session claude-code').attributes).toMatchObject({ 'session.id': SESSION, 'gen_ai.conversation.id': SESSION });
    const write = by('execute_tool Write');
    expect(write.attributes).toMatchObject({
      'gen_ai.tool.name': 'Write',
      'gen_ai.tool.call.id': 'toolu_write',
      'aep.tool.outcome': 'denied',
      'error.type': 'denied',
      'aep.tool.denied_by': 'policy',
    });
    expect(write.status.code).toBe(2); // STATUS_CODE_ERROR
    const wait = by('attention permission');
    expect(wait.attributes).toMatchObject({ 'aep.attention.kind': 'permission', 'aep.attention.outcome': 'answered', 'aep.attention.answer.option': 'deny' });
    // Claude Code sends no terminal hook for a call the human denied: the span ends with its run, and says so
    expect(by('execute_tool Bash').attributes).toMatchObject({ 'aep.unterminated': true, 'aep.closed_by': 'run.ended' });
  });

  it('LogRecords: one per event, AEP-0005 §3 names', () => {
    const logs = decodedLogs();
    const names = logs.map((l) => l.eventName);
    for (const t of [
      'session.started',
      'run.started',
      'tool.requested',
      'tool.completed',
      'attention.requested',
      'attention.answered',
      'attention.resolved',
      'tool.denied',
      'run.finished',
      'session.ended',
    ]) {
      expect(names, t).toContain(`dev.aep.${t}`);
    }
    const denied = logs.find((l) => l.eventName === 'dev.aep.tool.denied')!;
    expect(denied.attributes).toMatchObject({ 'aep.agent_id': 'claude-code', 'aep.session_id': SESSION, 'aep.capture': 'metadata' });
    // the daemon stamps no severity on these: the envelope default `info` (§3.4 → INFO / 9)
    for (const l of logs) expect([l.severityText, l.severityNumber]).toEqual(['INFO', 9]);
    expect(new Set(logs.map((l) => l.attributes['aep.event_id'])).size).toBe(logs.length);
  });

  it('nothing above the metadata ceiling reached the receiver', () => {
    const all = Buffer.concat(received.map((r) => r.bytes)).toString('latin1');
    expect(all).not.toContain('sk_live');
    expect(all).not.toContain('TOPSECRET');
    expect(all).not.toContain('/srv/prod-data');
    expect(all).not.toContain('writes to secrets');
  });
});
