// The in-process API other tests build on (validateStream over parsed Events
// or raw lines) and the edge cases a line-oriented reader has to get right.
import { describe, it, expect } from 'vitest';
import { Readable } from 'node:stream';
import { validateStream, validateText, validateReadable, StreamValidator, RULES, RULE_IDS } from '../../../engine/core/validate/index.ts';
import { duplicateTopLevelKeys } from '../../../engine/core/validate/json-keys.ts';

const SRC = 'aep://host-a/agent/demo/session/s1';
let n = 0;
function ev(type: string, seq: number | undefined, extra: Record<string, unknown> = {}) {
  n++;
  return {
    aep: '0.1',
    id: `e${n}`,
    type,
    time: '2026-07-03T10:00:00Z',
    source: SRC,
    agent: 'demo',
    session: 's1',
    ...(seq === undefined ? {} : { seq }),
    ...extra,
  };
}
const rules = (vs: { rule: string; line: number }[]) => vs.map((v) => `${v.line} ${v.rule}`);

describe('validateStream', () => {
  it('accepts parsed Events; line numbers are 1-based indexes', () => {
    const a = ev('session.started', 0);
    const b = ev('run.started', 5, { run: 'r1' });
    const c = ev('run.finished', 2, { run: 'r1' });
    expect(rules(validateStream([a, b, c]))).toEqual(['3 order/seq-regression']);
  });

  it('accepts raw JSONL lines and mixes with objects', () => {
    const a = ev('session.started', 0);
    expect(validateStream([JSON.stringify(a), 'nope'])).toMatchObject([{ line: 2, rule: 'syntax/not-json' }]);
  });

  it('treats an identical redelivery (any member order) as legal, and skips it everywhere', () => {
    const end = ev('session.ended', 3);
    const reordered = Object.fromEntries(Object.entries(end).reverse());
    expect(validateStream([ev('session.started', 0), end, reordered])).toEqual([]);
  });

  it('keys order by (source, session): one session name on two emitters is two sessions', () => {
    const a = ev('session.started', 10);
    const b = { ...ev('session.started', 0), source: 'aep://host-b/agent/demo/session/s1' };
    expect(validateStream([a, b])).toEqual([]);
  });

  it('checks form answers against the request, by subject within the session', () => {
    const req = ev('attention.requested', 1, { data: { kind: 'form', prompt: 'p', fields: [{ id: 'q', type: 'boolean', label: '1', required: true }] } });
    const ans = ev('attention.answered', 2, { subject: req.id, data: { answer: { values: {} } } });
    expect(validateStream([req, ans])).toMatchObject([{ line: 2, id: ans.id, rule: 'form/required-missing' }]);
  });

  it('a duplicate key is only visible in raw text', () => {
    const line = JSON.stringify(ev('session.started', 0)).replace(/}$/, ',"agent":"other"}');
    expect(rules(validateStream([line]))).toEqual(['1 envelope/extension-collision']);
    expect(validateStream([JSON.parse(line)])).toEqual([]);
  });
});

describe('line handling', () => {
  it('skips blank lines but keeps physical line numbers; tolerates CRLF and a BOM', async () => {
    const a = JSON.stringify(ev('session.started', 5));
    const b = JSON.stringify(ev('run.started', 1, { run: 'r' }));
    const text = `\ufeff${a}\r\n\r\n   \r\n${b}\r\n`;
    const streamed = await validateReadable(Readable.from([text]));
    expect(rules(streamed.violations)).toEqual(['4 order/seq-regression']);
    expect(streamed.events).toBe(2);
  });

  it('a line split across stream chunks is still one line', async () => {
    const a = JSON.stringify(ev('session.started', 0));
    const chunks = [a.slice(0, 10), a.slice(10, 30), `${a.slice(30)}\n`];
    expect((await validateReadable(Readable.from(chunks))).violations).toEqual([]);
  });

  it('StreamValidator takes explicit line numbers', () => {
    const v = new StreamValidator();
    v.push(JSON.stringify(ev('session.started', 3)), 10);
    v.push(JSON.stringify(ev('progress.status', 1, { data: {} })), 42);
    expect(rules(v.finish())).toEqual(['42 order/seq-regression']);
  });
});

describe('validateText', () => {
  it('an empty input is valid', () => {
    expect(validateText('')).toEqual([]);
  });
});

describe('duplicateTopLevelKeys', () => {
  it('finds repeated top-level keys only, decoding escapes, ignoring strings and nesting', () => {
    expect(duplicateTopLevelKeys('{"a":1,"b":{"a":2},"c":"\\"a\\":"}')).toEqual([]);
    expect(duplicateTopLevelKeys('{"a":1,"\\u0061":2}')).toEqual(['a']);
    expect(duplicateTopLevelKeys('{"a":[{"x":1},{"x":2}],"x":1}')).toEqual([]);
  });
});

describe('rule registry', () => {
  it('ids are category/name and every id has a description', () => {
    for (const id of RULE_IDS) {
      expect(id).toMatch(/^[a-z]+\/[a-z-]+$/);
      expect(RULES[id].length).toBeGreaterThan(10);
    }
  });
});
