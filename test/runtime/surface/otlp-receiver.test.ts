// The otlp-receiver surface end to end: `hookmap up` with the Codex hook
// channel and its OTel channel (vendors/codex-otel.yaml), OTLP/HTTP logs
// POSTed as protobuf (encoded by the official OTLP definitions, not by us)
// and as JSON, read back from the session logs. Every way an export can be
// wrong is its OTLP/HTTP status with a code, and never stops the batch's
// other records; every attack on the endpoint is refused (foreign Host,
// other Origin, a peer off this machine without a token, a wrong or revoked
// token, oversize, a gzip bomb).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToken, revokeToken } from '../../../engine/runtime/auth/tokens.ts';
import { raw, upStack, type UpStack } from '../../security/helpers.ts';
import { until } from '../daemon/helpers.ts';

const require = createRequire(import.meta.url);
const root = require('otlp-proto-root/build/src/generated/root.js');
const LogsRequest = root.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
const LogsResponse = root.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;

const PATH = '/otlp/codex-otel/v1/logs';
const kv = (key: string, v: string | number | boolean) => ({
  key,
  value: typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : { intValue: String(v) },
});
/** One Codex export: the records given as [event.name, attributes], under Codex's resource. */
function exportOf(session: string | undefined, records: [string, Record<string, string | number | boolean>][]) {
  return {
    resourceLogs: [
      {
        resource: { attributes: [kv('service.name', 'codex_exec'), kv('service.version', '0.169.0'), kv('host.name', 'devbox')] },
        scopeLogs: [
          {
            scope: { name: 'codex_otel', version: '0.169.0' },
            logRecords: records.map(([name, attrs], i) => ({
              timeUnixNano: String(1764612000000000000n + BigInt(i) * 1000000n),
              body: { stringValue: name },
              attributes: [
                kv('event.name', name),
                ...(session ? [kv('conversation.id', session)] : []),
                kv('app.version', '0.169.0'),
                ...Object.entries(attrs).map(([k, v]) => kv(k, v)),
              ],
            })),
          },
        ],
      },
    ],
  };
}
const RECORDS: [string, Record<string, string | number | boolean>][] = [
  ['codex.conversation_starts', { model: 'gpt-5', approval_policy: 'on-request', sandbox_policy: 'read-only' }],
  ['codex.tool_decision', { tool_name: 'exec_command', call_id: 'call_1', decision: 'denied', source: 'config' }],
  ['codex.tool_result', { tool_name: 'exec_command', call_id: 'call_2', duration_ms: 12, success: 'false', output: 'exit 1' }],
  ['codex.sse_event', { 'event.kind': 'response.completed', input_token_count: 1200, output_token_count: 80 }],
  ['codex.something_new', { whatever: 1 }],
];
const proto = (obj: unknown): Buffer => Buffer.from(LogsRequest.encode(LogsRequest.fromObject(obj)).finish());
const json = (obj: unknown): Buffer => Buffer.from(JSON.stringify(obj));
const PB = { 'content-type': 'application/x-protobuf' };
const JS = { 'content-type': 'application/json' };

const post = (s: UpStack, body: Buffer, headers: Record<string, string>, path = PATH) =>
  raw(s.up.url, { method: 'POST', path, headers: { 'content-length': String(body.length), ...headers }, body });
function logged(s: UpStack, session: string): any[] {
  const dir = join(s.logDir, 'codex-otel');
  if (!existsSync(dir)) return [];
  const f = readdirSync(dir).find((x) => x.startsWith(session) && x.endsWith('.jsonl'));
  return f
    ? readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}
const shape = (evs: any[]) => evs.map((e) => ({ type: e.type, subject: e.subject, agent: e.agent, seq: e.seq, data: e.data }));

let s: UpStack;
beforeAll(async () => {
  s = await upStack({ prefix: 'hookmap-otlp-', agents: [{ descriptor: 'codex' }, { descriptor: 'codex-otel' }], maxBody: 64 * 1024, otlpMaxPending: 8 });
});
afterAll(async () => {
  await s.done();
});

describe('OTLP/HTTP logs into hookmap up', () => {
  it('protobuf and JSON bodies of the same records map identically, in the x.codex.otel.* family on a source of their own', async () => {
    const a = await post(s, proto(exportOf('cx-pb', RECORDS)), PB);
    const b = await post(s, json(exportOf('cx-js', RECORDS)), JS);
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('application/x-protobuf');
    expect(a.body).toBe(''); // an empty ExportLogsServiceResponse: every record accepted
    expect(b.status).toBe(200);
    expect(JSON.parse(b.body)).toEqual({});
    const pb = logged(s, 'cx-pb');
    const js = logged(s, 'cx-js');
    expect(pb).toHaveLength(5);
    expect(shape(pb)).toEqual(shape(js));
    expect(pb.map((e) => e.type)).toEqual([
      'x.codex.otel.conversation_starts',
      'x.codex.otel.tool_decision',
      'x.codex.otel.tool_result',
      'x.codex.otel.sse_event',
      'x.codex.otel.unknown',
    ]);
    // the channel is named in the source: an emitter beside the hook channel's aep://<host>/agent/codex/session/<id>
    expect(pb[0].source).toMatch(/^aep:\/\/[^/]+\/agent\/codex\/otel\/session\/cx-pb$/);
    expect(pb.every((e) => e.agent === 'codex')).toBe(true);
    // the record's own attributes under their own names, values as OTLP carried them (the AEP Annex A pins)
    expect(pb[2].data).toMatchObject({ tool_name: 'exec_command', call_id: 'call_2', success: 'false', duration_ms: 12 });
    expect(pb[1].data).toMatchObject({ decision: 'denied', source: 'config' });
    // a foreign event.name is kept, named, never guessed
    expect(pb[4].data).toEqual({ 'event.name': 'codex.something_new' });
    // metadata ceiling: no host name, no output
    expect(JSON.stringify(pb)).not.toMatch(/devbox|exit 1/);
  });

  it('a real Codex 0.169.0 export, as its exporter sent it: LogRecord.event_name is a callsite, the event.name attribute names the event', async () => {
    const body = readFileSync(join(import.meta.dirname, 'fixtures', 'codex-0.169.0-logs.pb'));
    const r = await post(s, body, PB);
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
    const session = '01a232c5-7496-74e2-84f2-86aeffe3e2de';
    const evs = logged(s, session);
    // a known event.name is its type; an unknown one (codex.startup_phase) is named in the data, never the callsite
    expect(evs.map((e) => (e.type === 'x.codex.otel.unknown' ? `${e.type} ${e.data['event.name']}` : e.type))).toEqual([
      'x.codex.otel.conversation_starts',
      'x.codex.otel.unknown codex.startup_phase',
      'x.codex.otel.unknown codex.startup_phase',
      'x.codex.otel.user_prompt',
      'x.codex.otel.api_request',
    ]);
    expect(evs[0].data).toMatchObject({ model: 'scripted', approval_policy: 'never', sandbox_policy: 'read-only' });
    // identity and resource attributes stay off every payload (the AEP pins): the envelope's source and session say who sent it
    for (const e of evs) for (const k of ['app.version', 'originator', 'service.name', 'conversation.id']) expect(e.data).not.toHaveProperty([k]);
    expect(evs[3].data).toEqual(expect.not.objectContaining({ prompt: expect.anything() })); // [REDACTED] by Codex: never forwarded
  });

  it('gzip bodies of both encodings', async () => {
    expect((await post(s, gzipSync(proto(exportOf('cx-gz-pb', RECORDS.slice(0, 2)))), { ...PB, 'content-encoding': 'gzip' })).status).toBe(200);
    expect((await post(s, gzipSync(json(exportOf('cx-gz-js', RECORDS.slice(0, 2)))), { ...JS, 'content-encoding': 'gzip' })).status).toBe(200);
    expect(logged(s, 'cx-gz-pb').map((e) => e.type)).toEqual(['x.codex.otel.conversation_starts', 'x.codex.otel.tool_decision']);
    expect(shape(logged(s, 'cx-gz-js'))).toEqual(shape(logged(s, 'cx-gz-pb')));
  });

  it("a record without the session key: a coded diagnostic, the batch's other records mapped, the rejection counted (partial success)", async () => {
    const body = exportOf('cx-partial', RECORDS.slice(0, 2));
    const orphan = exportOf(undefined, [['codex.tool_result', { tool_name: 'exec_command', success: 'true' }]]).resourceLogs[0].scopeLogs[0].logRecords[0];
    body.resourceLogs[0].scopeLogs[0].logRecords.splice(1, 0, orphan);
    const r = await post(s, proto(body), PB);
    expect(r.status).toBe(200);
    const answer = LogsResponse.toObject(LogsResponse.decode(Buffer.from(r.body, 'latin1')), { longs: String });
    expect(answer.partialSuccess.rejectedLogRecords).toBe('1');
    expect(answer.partialSuccess.errorMessage).toMatch(/^1 of 3 records not mapped: record 2 \[missing-session\]/);
    expect(logged(s, 'cx-partial').map((e) => e.type)).toEqual(['x.codex.otel.conversation_starts', 'x.codex.otel.tool_decision']);
    const diag = logged(s, 'unknown').find((e) => e.type === 'x.codex.otel.error.mapping_failed');
    expect(diag?.data).toMatchObject({ code: 'missing-session', hook: 'codex.tool_result' });
    // the same in JSON: the answer is JSON
    const j = await post(s, json({ ...body, resourceLogs: body.resourceLogs }), JS);
    expect(JSON.parse(j.body).partialSuccess.rejectedLogRecords).toBe('1');
  });

  it("Codex's debug lines (no event.name, no conversation) are accepted and dropped: full success, no event, no diagnostic", async () => {
    const body = exportOf('cx-debug', RECORDS.slice(0, 2));
    body.resourceLogs[0].scopeLogs[0].logRecords.splice(1, 0, {
      timeUnixNano: '1764612000500000000',
      body: { stringValue: 'flushing OTEL metrics' },
      attributes: [kv('target', 'codex_otel::otel_provider')],
      eventName: 'event otel/src/otel_provider.rs:212',
    } as never);
    const before = logged(s, 'unknown').length;
    const r = await post(s, proto(body), PB);
    expect(r.status).toBe(200);
    expect(r.body).toBe(''); // no partial_success
    expect(logged(s, 'cx-debug').map((e) => e.type)).toEqual(['x.codex.otel.conversation_starts', 'x.codex.otel.tool_decision']);
    expect(logged(s, 'unknown')).toHaveLength(before);
  });

  it('malformed bodies are 400, other content types 415, with a google.rpc.Status and a code; nothing is logged', async () => {
    const bad = proto(exportOf('cx-bad', RECORDS)).subarray(0, 40);
    const r = await post(s, bad, PB);
    expect(r.status).toBe(400);
    expect(r.headers['x-hookmap-error']).toBe('malformed');
    expect(r.headers['content-type']).toBe('application/x-protobuf');
    expect(Buffer.from(r.body, 'latin1')[0]).toBe(0x08); // Status.code
    const j = await post(s, Buffer.from('{"resourceLogs": 5'), JS);
    expect(j.status).toBe(400);
    expect(JSON.parse(j.body)).toMatchObject({ code: 3, message: expect.stringMatching(/not valid JSON/) });
    const t = await post(s, json(exportOf('cx-text', RECORDS)), { 'content-type': 'text/plain' });
    expect(t.status).toBe(415);
    expect(t.headers['x-hookmap-error']).toBe('unsupported-media-type');
    const br = await post(s, proto(exportOf('cx-br', RECORDS)), { ...PB, 'content-encoding': 'br' });
    expect(br.status).toBe(415);
    expect(logged(s, 'cx-text')).toEqual([]);
    expect(logged(s, 'cx-br')).toEqual([]);
  });

  it('oversize: the declared length before reading, a gzip bomb while inflating (413)', async () => {
    const big = Buffer.alloc(80 * 1024, 32);
    expect((await post(s, big, JS)).status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(32 << 20, 32));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const r = await post(s, bomb, { ...JS, 'content-encoding': 'gzip' });
    expect(r.status).toBe(413);
    expect(r.headers['x-hookmap-error']).toBe('payload-too-large');
  });

  it('only otlp-receiver descriptors have a receiver; only POST', async () => {
    expect((await post(s, proto(exportOf('x', RECORDS)), PB, '/otlp/codex/v1/logs')).status).toBe(404);
    expect((await post(s, proto(exportOf('x', RECORDS)), PB, '/otlp/nobody/v1/logs')).status).toBe(404);
    expect((await raw(s.up.url, { method: 'GET', path: PATH })).status).toBe(405);
  });

  it('429 with Retry-After while earlier records still wait to be mapped', async () => {
    const d = s.up.daemons.get('codex-otel')! as any;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    void d.core.serial.run(() => gate); // the daemon is busy: what it was sent waits
    const first = post(s, proto(exportOf('cx-busy', RECORDS)), PB);
    await until('the first export waits', () => s.up.otlp.pending === 5);
    const second = await post(s, proto(exportOf('cx-busy2', RECORDS)), PB);
    expect(second.status).toBe(429);
    expect(second.headers['retry-after']).toBe('2');
    expect(second.headers['x-hookmap-error']).toBe('backpressure');
    open();
    expect((await first).status).toBe(200);
    expect(s.up.otlp.pending).toBe(0);
    expect((await post(s, proto(exportOf('cx-busy2', RECORDS)), PB)).status).toBe(200);
  });

  it('Host and Origin: a foreign Host (DNS rebinding) is 421, a cross-site Origin 403, with or without a token', async () => {
    const port = new URL(s.up.url).port;
    for (const auth of [{}, { authorization: `Bearer ${s.token}` }] as Record<string, string>[]) {
      const body = proto(exportOf('cx-evil', RECORDS));
      expect((await post(s, body, { ...PB, ...auth, host: `rebind.evil.example:${port}` })).status).toBe(421);
      expect((await post(s, body, { ...PB, ...auth, origin: 'https://evil.example' })).status).toBe(403);
    }
    expect(logged(s, 'cx-evil')).toEqual([]);
  });

  it('tokens: a loopback peer needs none; a presented token must be good (a wrong or a revoked one is 401)', async () => {
    const body = proto(exportOf('cx-tok', RECORDS.slice(0, 1)));
    expect((await post(s, body, { ...PB, authorization: `Bearer ${s.token}` })).status).toBe(200);
    expect((await post(s, body, { ...PB, authorization: 'Bearer not-a-token' })).status).toBe(401);
    const t = addToken(s.home, 'collector', ['emit']);
    await until('the new token is read', async () => (await post(s, body, { ...PB, authorization: `Bearer ${t.token}` })).status === 200);
    expect(revokeToken(s.home, 'collector')).toBe(true);
    await until('the revoked token is refused', async () => (await post(s, body, { ...PB, authorization: `Bearer ${t.token}` })).status === 401);
    const r = await post(s, body, { ...PB, authorization: `Bearer ${t.token}` });
    expect(r.headers['x-hookmap-error']).toBe('unauthorized');
  });
});

const lan = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

describe.skipIf(!lan)('a peer off this machine (up bound beyond loopback)', () => {
  it('needs a token with the emit scope', async () => {
    const w = await upStack({ prefix: 'hookmap-otlp-lan-', host: '0.0.0.0', agents: [{ descriptor: 'codex-otel' }] });
    try {
      const url = `http://${lan}:${w.up.port}`;
      const body = proto(exportOf('cx-lan', RECORDS.slice(0, 1)));
      const send = (h: Record<string, string>) => raw(url, { method: 'POST', path: PATH, headers: { ...PB, ...h }, body });
      const none = await send({});
      expect(none.status).toBe(401);
      expect(none.headers['x-hookmap-error']).toBe('unauthorized');
      const read = addToken(w.home, 'reader', ['read']);
      await until(
        'the read token is known',
        async () => (await raw(url, { path: '/healthz', headers: { authorization: `Bearer ${read.token}` } })).status === 200,
      );
      expect((await send({ authorization: `Bearer ${read.token}` })).status).toBe(401);
      expect((await send({ authorization: `Bearer ${w.token}` })).status).toBe(200);
    } finally {
      await w.done();
    }
  });
});
