// OTLP/HTTP logs in (issue 30): the same LogRecords sent as protobuf (encoded
// by the official OTLP message definitions, protobufjs-compiled in the
// OpenTelemetry JS repository: an encoder we did not write) and as OTLP/JSON
// flatten identically; gzip; and each way a body can be wrong is its OTLP/HTTP
// status (400 malformed, 413 over the limit also after decompression, 415).
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { flattenLogs, logsResponse, OtlpBodyError, readLogsBody } from '../../../engine/runtime/surface/otlp-logs.ts';
import { decodeLogsRequest } from '../../../engine/runtime/surface/otlp-protobuf.ts';

const require = createRequire(import.meta.url);
const root = require('otlp-proto-root/build/src/generated/root.js');
const LogsRequest = root.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;

const kv = (key: string, value: Record<string, unknown>) => ({ key, value });
/** Codex's tool_result as its exporter sends it (event.name and conversation.id as attributes). */
const JSON_REQUEST = {
  resourceLogs: [
    {
      resource: {
        attributes: [
          kv('service.name', { stringValue: 'codex-app-server' }),
          kv('service.version', { stringValue: '0.169.0' }),
          kv('host.name', { stringValue: 'devbox' }),
        ],
      },
      scopeLogs: [
        {
          scope: { name: 'codex_otel', version: '0.169.0' },
          logRecords: [
            {
              timeUnixNano: '1764590400123456789',
              observedTimeUnixNano: '1764590400200000000',
              severityNumber: 9,
              severityText: 'INFO',
              body: { stringValue: 'tool result' },
              attributes: [
                kv('event.name', { stringValue: 'codex.tool_result' }),
                kv('conversation.id', { stringValue: '0199a7c2-5d1e-7b40-9c3f-2f6a8e1d4b77' }),
                kv('tool_name', { stringValue: 'shell' }),
                kv('success', { boolValue: false }),
                kv('duration_ms', { intValue: '1520' }),
                kv('huge', { intValue: '9007199254740993' }),
                kv('negative', { intValue: '-42' }),
                kv('ratio', { doubleValue: 0.25 }),
                kv('arguments', {
                  kvlistValue: {
                    values: [kv('command', { arrayValue: { values: [{ stringValue: 'bash' }, { stringValue: '-lc' }, { stringValue: 'false' }] } })],
                  },
                }),
                kv('blob', { bytesValue: Buffer.from('hi').toString('base64') }),
              ],
              traceId: '5b8efff798038103d269b633813fc60c',
              spanId: 'eee19b7ec3c1b174',
            },
            {
              timeUnixNano: '1764590401000000000',
              attributes: [
                kv('event.name', { stringValue: 'codex.tool_decision' }),
                kv('decision', { stringValue: 'denied' }),
                kv('source', { stringValue: 'config' }),
              ],
            },
          ],
        },
      ],
    },
  ],
};

/** protobufjs reads bytes fields from base64; OTLP/JSON writes trace and span ids as hex: hand it the bytes. */
const protobufOf = (obj: any): Buffer => {
  const copy = structuredClone(obj);
  for (const rl of copy.resourceLogs)
    for (const sl of rl.scopeLogs) for (const lr of sl.logRecords) for (const k of ['traceId', 'spanId']) if (lr[k]) lr[k] = Buffer.from(lr[k], 'hex');
  return Buffer.from(LogsRequest.encode(LogsRequest.fromObject(copy)).finish());
};

describe('OTLP logs in', () => {
  it('protobuf and JSON of the same records flatten identically', () => {
    const fromJson = readLogsBody({ contentType: 'application/json', body: Buffer.from(JSON.stringify(JSON_REQUEST)), maxBytes: 1 << 20 }).records;
    const fromProto = readLogsBody({ contentType: 'application/x-protobuf', body: protobufOf(JSON_REQUEST), maxBytes: 1 << 20 }).records;
    expect(fromProto).toEqual(fromJson);
    expect(fromJson).toHaveLength(2);
    expect(fromJson[0]).toEqual({
      resource: { 'service.name': 'codex-app-server', 'service.version': '0.169.0', 'host.name': 'devbox' },
      scope: { name: 'codex_otel', version: '0.169.0' },
      attributes: {
        'event.name': 'codex.tool_result',
        'conversation.id': '0199a7c2-5d1e-7b40-9c3f-2f6a8e1d4b77',
        tool_name: 'shell',
        success: false,
        duration_ms: 1520,
        huge: '9007199254740993',
        negative: -42,
        ratio: 0.25,
        arguments: { command: ['bash', '-lc', 'false'] },
        blob: 'aGk=',
      },
      body: 'tool result',
      event_name: 'codex.tool_result',
      time: '2025-12-01T12:00:00.123Z',
      time_unix_nano: '1764590400123456789',
      severity_number: 9,
      severity_text: 'INFO',
      trace_id: '5b8efff798038103d269b633813fc60c',
      span_id: 'eee19b7ec3c1b174',
    });
    expect(fromJson[1]).toMatchObject({ event_name: 'codex.tool_decision', attributes: { source: 'config' } });
  });

  it('reads gzip bodies of both encodings', () => {
    for (const [type, body] of [
      ['application/json', Buffer.from(JSON.stringify(JSON_REQUEST))],
      ['application/x-protobuf', protobufOf(JSON_REQUEST)],
    ] as const) {
      const recs = readLogsBody({ contentType: `${type}; charset=utf-8`, contentEncoding: 'gzip', body: gzipSync(body), maxBytes: 1 << 20 }).records;
      expect(recs.map((r) => r.event_name)).toEqual(['codex.tool_result', 'codex.tool_decision']);
    }
  });

  it('every wrong body is its OTLP/HTTP status, never a partial result', () => {
    const status = (b: Parameters<typeof readLogsBody>[0]) => {
      try {
        readLogsBody(b);
        return 200;
      } catch (e) {
        if (!(e instanceof OtlpBodyError)) throw e;
        return e.status;
      }
    };
    const proto = protobufOf(JSON_REQUEST);
    expect(status({ contentType: 'text/plain', body: proto, maxBytes: 1 << 20 })).toBe(415);
    expect(status({ body: proto, maxBytes: 1 << 20 })).toBe(415);
    expect(status({ contentType: 'application/x-protobuf', contentEncoding: 'br', body: proto, maxBytes: 1 << 20 })).toBe(415);
    expect(status({ contentType: 'application/x-protobuf', body: proto.subarray(0, proto.length - 3), maxBytes: 1 << 20 })).toBe(400);
    expect(status({ contentType: 'application/x-protobuf', body: Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), maxBytes: 1 << 20 })).toBe(400);
    expect(status({ contentType: 'application/x-protobuf', body: Buffer.from([0x0b]), maxBytes: 1 << 20 })).toBe(400); // a group start
    expect(status({ contentType: 'application/json', body: Buffer.from('{"resourceLogs": {"x": 1}}'), maxBytes: 1 << 20 })).toBe(400);
    expect(status({ contentType: 'application/json', body: Buffer.from('{nope'), maxBytes: 1 << 20 })).toBe(400);
    expect(status({ contentType: 'application/json', contentEncoding: 'gzip', body: Buffer.from('not gzip'), maxBytes: 1 << 20 })).toBe(400);
    expect(status({ contentType: 'application/json', body: Buffer.alloc(2048, 32), maxBytes: 1024 })).toBe(413);
    // a gzip bomb: 64 KiB on the wire, 64 MiB inflated, stopped at the limit
    const bomb = gzipSync(Buffer.alloc(64 << 20, 32));
    expect(bomb.length).toBeLessThan(1 << 20);
    expect(status({ contentType: 'application/json', contentEncoding: 'gzip', body: bomb, maxBytes: 1 << 20 })).toBe(413);
    // an empty request is fine: nothing to map
    expect(readLogsBody({ contentType: 'application/x-protobuf', body: Buffer.alloc(0), maxBytes: 10 }).records).toEqual([]);
  });

  it('skips fields it does not know, as protobuf requires', () => {
    // field 15 (unknown) as a varint and as a length-delimited value before the real content
    const proto = protobufOf(JSON_REQUEST);
    const withUnknown = Buffer.concat([Buffer.from([0x78, 0x01, 0x7a, 0x02, 0x41, 0x42]), proto]);
    expect(flattenLogs(decodeLogsRequest(withUnknown))).toEqual(flattenLogs(JSON_REQUEST));
  });

  it('reads LogRecord.event_name (field 12, newer than the encoder above) when no event.name attribute names the event', () => {
    const rec = [0x62, 0x03, ...Buffer.from('x.y'), 0x32, 0x10, 0x0a, 0x0a, ...Buffer.from('event.name'), 0x12, 0x02, 0x0a, 0x00];
    const scope = [0x12, rec.length, ...rec];
    const rl = [0x12, scope.length, ...scope];
    const body = Buffer.from([0x0a, rl.length, ...rl]);
    expect(readLogsBody({ contentType: 'application/x-protobuf', body, maxBytes: 1024 }).records).toEqual([
      { resource: {}, attributes: { 'event.name': '' }, event_name: 'x.y' },
    ]);
  });

  it('answers partial success in the encoding it was sent, read back by the official definitions', () => {
    const Response = root.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
    const r = logsResponse('application/x-protobuf', 2, 'event.name codex.nope has no rule');
    expect(r.type).toBe('application/x-protobuf');
    const back = Response.toObject(Response.decode(r.body), { longs: String });
    expect(back).toEqual({ partialSuccess: { rejectedLogRecords: '2', errorMessage: 'event.name codex.nope has no rule' } });
    expect(logsResponse('application/x-protobuf', 0).body.length).toBe(0);
    expect(JSON.parse(logsResponse('application/json', 0).body.toString())).toEqual({});
    expect(JSON.parse(logsResponse('application/json', 1, 'x').body.toString())).toEqual({ partialSuccess: { rejectedLogRecords: '1', errorMessage: 'x' } });
  });
});
