// Test helpers for the bridge suites: the fixture events of
// fixtures/bridge/events.json, and OTLP/JSON flattening (KeyValue lists →
// maps, AnyValue → plain values) so expectations read like the spec's tables.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../../engine/core/descriptor/registry.ts';

export const FIXTURES = join(ROOT, 'fixtures', 'bridge');

export function readFixture(name: string): any {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
}

const EVENTS: Record<string, any> = readFixture('events.json');
delete EVENTS.$comment;

export function fixtureEvents(): Record<string, any> {
  return structuredClone(EVENTS);
}

/** A named fixture event (a fresh copy) with `patch` merged over it (a null value removes the attribute). */
export function fixtureEvent(ref: string | Record<string, any>, patch?: Record<string, any>): any {
  const base = typeof ref === 'string' ? EVENTS[ref] : ref;
  if (!base) throw new Error(`no fixture event '${String(ref)}'`);
  const ev = structuredClone(base);
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v === null) delete ev[k];
    else ev[k] = v;
  }
  return ev;
}

export function anyValue(v: any): any {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  if ('kvlistValue' in v) return kvMap(v.kvlistValue.values);
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(anyValue);
  if ('bytesValue' in v) return v.bytesValue;
  return undefined;
}

export function kvMap(kvs: any[] | undefined): Record<string, any> {
  return Object.fromEntries((kvs ?? []).map((kv: any) => [kv.key, anyValue(kv.value)]));
}
