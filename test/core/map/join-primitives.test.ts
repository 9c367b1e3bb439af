// Three small general primitives a descriptor uses to keep state honest:
//  - `$known_session(id)` in the session expression: join a foreign key
//    (e.g. a platform-scoped approval key) onto a session already seen, and
//    never mint a lane from it;
//  - `$parsejson(s)`: the JSON a string field holds, or undefined (never a
//    mapping error), for vendor results that arrive as JSON text;
//  - a descriptor gate on a schema-ANNOTATED field may make it stricter
//    (never looser): free text the schema calls metadata stays out below
//    the declared level.
import { Redactor } from '../../../engine/core/capture/redact.ts';
import { describe, expect, it } from 'vitest';
import { gateData } from '../../../engine/core/capture/gate.ts';
import { compileDescriptor } from '../../../engine/core/descriptor/compile.ts';
import { Mapper } from '../../../engine/core/map/mapper.ts';

const text = `
vendor: demo
name: Demo
surface: { kind: command-hook, pin: test, hook_name: =hook }
identity:
  session: '=$exists(sid) and sid != "" ? sid : $known_session(key) ? key : "unknown"'
hooks:
  Start:
    emit:
      - { type: session.started, data: {} }
  Result:
    emit:
      - type: tool.completed
        subject: =tool
        data:
          tool: { name: =tool }
          status: =$parsejson(result).status
replies: { neutral: "" }
capabilities: {}
posture: observe-only
`;

const d = compileDescriptor('demo.yaml', text).descriptor!;

describe('$known_session', () => {
  it('joins a key naming a session already seen', async () => {
    const m = new Mapper(d);
    await m.map(undefined, { hook: 'Start', sid: 's1' });
    expect((await m.map(undefined, { hook: 'Start', sid: '', key: 's1' })).session).toBe('s1');
  });
  it('never mints a lane from an unseen key', async () => {
    const m = new Mapper(d);
    expect((await m.map(undefined, { hook: 'Start', sid: '', key: 'gw:chat:42' })).session).toBe('unknown');
    expect((await m.map(undefined, { hook: 'Start', sid: '' })).session).toBe('unknown');
  });
});

describe('$parsejson', () => {
  it('reads JSON text', async () => {
    const r = await new Mapper(d, { capture: 'full' }).map(undefined, { hook: 'Result', sid: 's', tool: 't', result: '{"status":"ok"}' });
    expect(r.events[0].data).toEqual({ tool: { name: 't' }, status: 'ok' });
  });
  it('is undefined on text that is not JSON, never an error', async () => {
    for (const result of ['not json', '', 42, undefined]) {
      const r = await new Mapper(d, { capture: 'full' }).map(undefined, { hook: 'Result', sid: 's', tool: 't', result });
      expect(r.events[0].data).toEqual({ tool: { name: 't' } });
    }
  });
});

describe('descriptor gates on annotated fields', () => {
  const data = { tool: { name: 't' }, by: 'policy', rule: 'blocked by the release policy' };
  it('a stricter gate holds an annotated field back below its level', () => {
    expect(gateData('tool.denied', data, { ceiling: 'metadata', gates: { rule: 'redacted' } })).toEqual({ tool: { name: 't' }, by: 'policy' });
    expect(gateData('tool.denied', data, { ceiling: 'redacted', gates: { rule: 'redacted' }, redactor: new Redactor() })).toEqual(data);
  });
  it('a looser gate never lowers the schema level', () => {
    expect(
      gateData('tool.failed', { tool: { name: 't' }, error: { type: 'e', message: 'm' } }, { ceiling: 'metadata', gates: { 'error.message': 'metadata' } }),
    ).toEqual({ tool: { name: 't' }, error: { type: 'e' } });
  });
  it('without a gate the schema level holds', () => {
    expect(gateData('tool.denied', data, { ceiling: 'metadata' })).toEqual(data);
  });
});
