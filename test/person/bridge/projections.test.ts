// AEP-0005 projections against hookmap's own fixtures (fixtures/bridge/),
// written from the rule text: CloudEvents forward/inverse (§1-§2, B1-B5),
// OTLP LogRecords through the OpenTelemetry JSON serializer (§3), OCSF
// records (§4), the capture ceiling in each, the CE round trip (§5.1) and
// CE validity (§5.2). A last block checks every rule letter is cited.
import { CloudEvent } from 'cloudevents';
import { JsonLogsSerializer } from '@opentelemetry/otlp-transformer';
import { describe, expect, it } from 'vitest';
import { fromCloudEvent, fromHttp, toCloudEvent, toHttp } from '../../../engine/person/bridge/projection/cloudevents.ts';
import { severityFromNumber, toLogRecord } from '../../../engine/person/bridge/projection/otlp-logs.ts';
import { OCSF_CLASS, toOcsf } from '../../../engine/person/bridge/projection/ocsf.ts';
import { fixtureEvent, fixtureEvents, kvMap, anyValue, readFixture } from './fixtures.ts';

const CE = readFixture('cloudevents.json');
const OTLP = readFixture('otlp-logs.json');
const OCSF = readFixture('ocsf.json');
const SUBSET = readFixture('ocsf-class-subset.json');

describe('CloudEvents forward (AEP-0005 §1)', () => {
  for (const c of CE.forward) {
    it(`${c.rules.join(', ')}: ${c.name}`, () => {
      const ce = toCloudEvent(fixtureEvent(c.event, c.patch), c.ceiling ?? 'metadata');
      expect(ce).toEqual(c.want);
    });
  }

  it('§5.2 validity: every forward projection validates as CloudEvents 1.0 (the SDK in strict mode)', () => {
    for (const [name, ev] of Object.entries(fixtureEvents())) {
      for (const ceiling of ['metadata', 'full'] as const) {
        expect(() => new CloudEvent(toCloudEvent(ev, ceiling) as any, true), name).not.toThrow();
      }
    }
  });
});

describe('CloudEvents inverse (AEP-0005 §2)', () => {
  for (const c of CE.inverse) {
    it(`${c.rules.join(', ')}: ${c.name}`, () => {
      const r = fromCloudEvent(c.ce);
      if (c.error) {
        expect(r.error?.code).toBe(c.error);
        expect(r.event).toBeUndefined();
        return;
      }
      expect(r.error).toBeUndefined();
      expect(r.event).toEqual(c.want);
      const dropped = r.diagnostics.map((d) => /'([^']+)'/.exec(d)?.[1]);
      expect(dropped.sort()).toEqual([...(c.dropped ?? [])].sort());
    });
  }

  it('§5.1 round trip: ce_inverse(ce_forward(e)) ≡ e for every fixture event (ceiling full, structured JSON)', () => {
    for (const [name, ev] of Object.entries(fixtureEvents())) {
      const back = fromCloudEvent(JSON.parse(JSON.stringify(toCloudEvent(ev, 'full'))));
      expect(back.error, name).toBeUndefined();
      expect(back.event, name).toEqual(ev);
    }
  });

  it('§5.1 round trip over HTTP, binary and structured modes (the cloudevents SDK both ways): integers restored from header strings', () => {
    for (const mode of ['binary', 'structured'] as const) {
      for (const [name, ev] of Object.entries(fixtureEvents())) {
        const { headers, body } = toHttp(toCloudEvent(ev, 'full'), mode);
        if (mode === 'binary') expect(headers['ce-type']).toBe(`dev.aep.${ev.type}`);
        else expect(headers['content-type']).toMatch(/^application\/cloudevents\+json/);
        const [ce] = fromHttp(headers, body);
        const back = fromCloudEvent(ce);
        expect(back.error, `${mode} ${name}`).toBeUndefined();
        expect(back.event, `${mode} ${name}`).toEqual(ev);
      }
    }
  });

  it('§2 rule 1: a CE without time does not get one invented on the way in', () => {
    const { headers, body } = toHttp(toCloudEvent(fixtureEvent('run.started'), 'full'), 'binary');
    delete headers['ce-time'];
    const [ce] = fromHttp(headers, body);
    expect(ce.time).toBeUndefined();
    expect(fromCloudEvent(ce).error?.code).toBe('invalid-event');
  });
});

/** The record as OTLP/JSON carries it after the OpenTelemetry serializer, flattened. */
function otlpJson(ev: any, options: any = {}): Record<string, any> {
  const req = JSON.parse(new TextDecoder().decode(JsonLogsSerializer.serializeRequest([toLogRecord(ev, options)])));
  const rl = req.resourceLogs[0];
  const lr = rl.scopeLogs[0].logRecords[0];
  const out: Record<string, any> = {
    time_unix_nano: lr.timeUnixNano,
    event_name: lr.eventName,
    severity_text: lr.severityText,
    severity_number: lr.severityNumber,
    resource: kvMap(rl.resource.attributes),
    attributes: kvMap(lr.attributes),
  };
  if (lr.traceId) Object.assign(out, { trace_id: lr.traceId, span_id: lr.spanId, flags: lr.flags });
  if (lr.body && Object.keys(lr.body).length) out.body = anyValue(lr.body);
  return out;
}

describe('OTLP LogRecord export (AEP-0005 §3)', () => {
  for (const c of OTLP.cases) {
    it(`${c.rules.join(', ')}: ${c.name}`, () => {
      const got = otlpJson(fixtureEvent(c.event, c.patch), c.options);
      for (const [k, want] of Object.entries<any>(c.want)) {
        if (want === null) expect(got[k], k).toBeUndefined();
        else expect(got[k], k).toEqual(want);
      }
    });
  }

  it('§3.4 inverse buckets the 24 OTLP levels back to six', () => {
    const want = [
      'debug',
      'debug',
      'debug',
      'debug',
      'debug',
      'debug',
      'debug',
      'debug',
      'info',
      'notice',
      'notice',
      'notice',
      'warning',
      'warning',
      'warning',
      'warning',
      'error',
      'error',
      'error',
      'error',
      'critical',
      'critical',
      'critical',
      'critical',
    ];
    expect(Array.from({ length: 24 }, (_, i) => severityFromNumber(i + 1))).toEqual(want);
  });

  it('§3.3: nothing above the ceiling reaches the wire, whatever the event (full fixture set, text scanned)', () => {
    for (const ev of Object.values(fixtureEvents())) {
      const text = new TextDecoder().decode(JsonLogsSerializer.serializeRequest([toLogRecord(ev)]));
      expect(text).not.toMatch(/hunter2|secret-project|force-push|billing db|Allow Bash/);
    }
  });
});

describe('OCSF projection (AEP-0005 §4)', () => {
  for (const c of OCSF.cases) {
    it(`${c.rules.join(', ')}: ${c.name}`, () => {
      const rec = toOcsf(fixtureEvent(c.event, c.patch), { ceiling: c.ceiling ?? 'metadata' });
      if ('want' in c) expect(rec).toEqual(c.want);
      for (const [k, v] of Object.entries(c.want_fields ?? {})) expect(rec?.[k], k).toEqual(v);
      if (rec) checkAgainstClass(rec);
    });
  }

  it('§5.6: every record uses only class attributes and enum-legal ids of the pinned OCSF subset, with a derived type_uid', () => {
    for (const ev of Object.values(fixtureEvents())) {
      for (const ceiling of ['none', 'metadata', 'full'] as const) {
        const rec = toOcsf(ev, { ceiling });
        if (rec) checkAgainstClass(rec);
      }
    }
  });

  it('§4.2: every row of the class table is exercised by a case', () => {
    const covered = new Set(OCSF.cases.filter((c: any) => c.want).map((c: any) => fixtureEvent(c.event).type));
    for (const type of Object.keys(OCSF_CLASS)) expect(covered.has(type), type).toBe(true);
  });
});

function checkAgainstClass(rec: Record<string, any>): void {
  const cls = SUBSET.classes[String(rec.class_uid)];
  expect(cls, `class ${rec.class_uid}`).toBeDefined();
  for (const k of Object.keys(rec)) expect(cls.attributes, `${rec.class_uid}.${k}`).toContain(k);
  expect(rec.category_uid).toBe(cls.category_uid);
  expect(rec.type_uid).toBe(rec.class_uid * 100 + rec.activity_id);
  expect(cls.activity).toContain(rec.activity_id);
  expect(cls.severity).toContain(rec.severity_id);
  if (rec.status_id !== undefined) expect(cls.status).toContain(rec.status_id);
  if (rec.disposition_id !== undefined) {
    expect(cls.disposition).toContain(rec.disposition_id);
    expect(rec.metadata.profiles).toEqual(['security_control']);
  } else expect(rec.metadata.profiles).toBeUndefined();
  expect(rec.metadata.version).toBe(SUBSET.version);
  expect(rec.unmapped.aep.id).toBe(rec.metadata.uid);
}

describe('every AEP-0005 rule letter is cited by at least one case', () => {
  const RULES = [
    'B1',
    'B2',
    'B3',
    'B4',
    'B5',
    '§2 rule 1',
    '§2 rule 2',
    '§2 rule 3',
    '§6 CE hop ceiling',
    '§3.2 time',
    '§3.2 type',
    '§3.2 traceparent',
    '§3.2 agent',
    '§3.2 session/run/step',
    '§3.2 id/seq/epoch/cause/capture',
    '§3.2 subject/source',
    '§3.2 gen_ai',
    '§3.2 body',
    '§3.3',
    '§3.4',
    '§4.1',
    '§4.2',
    '§4.3 common',
    '§4.3 Authentication',
    '§4.3 Process Activity',
    '§4.3 Detection Finding',
    '§4.3 fidelity',
    '§4.4',
    '§4.5',
    '§4.6',
  ];
  const cited = new Set([...CE.forward, ...CE.inverse, ...OTLP.cases, ...OCSF.cases].flatMap((c: any) => c.rules));
  for (const r of RULES) it(r, () => expect(cited.has(r)).toBe(true));
  it('cases cite no rule outside the list', () => {
    for (const r of cited) expect(RULES).toContain(r);
  });
});
