// Bridge configuration (engine/person/bridge/config.ts) as `up --bridge` and the
// `up` config file give it: valid forms, and invalid ones refused with the
// key and the allowed values.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BridgeConfigError, parseBridgeSpec } from '../../../engine/person/bridge/config.ts';
import { ConfigError, loadUpConfig } from '../../../engine/app/up-config.ts';

describe('up --bridge kind=URL[,key=value]', () => {
  it('parses the kind, the endpoint and options; the ceiling defaults to metadata', () => {
    expect(parseBridgeSpec('otlp=http://collector:4318')).toMatchObject({ kind: 'otlp', endpoint: 'http://collector:4318', capture: 'metadata' });
    expect(parseBridgeSpec('otlp=http://c:4318,protocol=http/json,signals=traces,service-name=fleet,capture=redacted')).toMatchObject({
      protocol: 'http/json',
      signals: ['traces'],
      serviceName: 'fleet',
      capture: 'redacted',
    });
    expect(parseBridgeSpec('cloudevents=https://broker.example/events,mode=binary')).toMatchObject({ kind: 'cloudevents', mode: 'binary' });
  });

  it.each([
    ['otlp', /expected kind=URL/],
    ['zipkin=http://z', /kind must be one of otlp, cloudevents, ocsf/],
    ['otlp=not a url', /is not a URL/],
    ['otlp=http://c,protocol=grpc', /protocol must be one of http\/protobuf, http\/json/],
    ['otlp=http://c,capture=everything', /capture must be one of none, metadata, redacted, full/],
    ['ocsf=http://c,mode=binary', /mode is a cloudevents option/],
    ['otlp=http://c,colour=red', /unknown key 'colour'/],
    ['otlp=http://c,retries=-1', /retries must be a non-negative integer/],
  ])('%s is refused', (spec, msg) => {
    expect(() => parseBridgeSpec(spec)).toThrow(BridgeConfigError);
    expect(() => parseBridgeSpec(spec)).toThrow(msg);
  });
});

describe('the up config file: bridges', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookmap-upcfg-'));
  const file = join(dir, 'up.yaml');
  it('reads a list of bridges', () => {
    writeFileSync(
      file,
      'bridges:\n  - { kind: otlp, endpoint: "http://collector:4318", signals: [logs, traces] }\n ' +
        ' - kind: ocsf\n    endpoint: http://siem:8088/ingest\n    capture: none\n',
    );
    expect(loadUpConfig(file, {}).bridges).toEqual([
      expect.objectContaining({ kind: 'otlp', endpoint: 'http://collector:4318', signals: ['logs', 'traces'], capture: 'metadata' }),
      expect.objectContaining({ kind: 'ocsf', endpoint: 'http://siem:8088/ingest', capture: 'none' }),
    ]);
  });
  it('names the entry and the key of a bad one', () => {
    writeFileSync(file, 'bridges:\n  - { kind: otlp, endpoint: "http://c", protocol: grpc }\n');
    expect(() => loadUpConfig(file, {})).toThrow(ConfigError);
    expect(() => loadUpConfig(file, {})).toThrow(/:2:\d+ invalid-value: bridges\[0\]\.protocol must be one of/);
    writeFileSync(file, 'bridges: { kind: otlp }\n');
    expect(() => loadUpConfig(file, {})).toThrow(/bridges must be a list/);
    rmSync(dir, { recursive: true, force: true });
  });
});
