// The tee's pure parts: line framing (bounded, never holding an oversize
// line), JSON-RPC moments with request <-> response joins per direction
// (engine/runtime/surface/jsonrpc.mjs), and the editor -> agent pipe's injection at
// line boundaries and its swallowing of a late answer (client-pipe.mjs).
import { describe, expect, it } from 'vitest';
import { ClientPipe } from '../../../engine/runtime/surface/client-pipe.mjs';
import { RpcJoin, parseLine } from '../../../engine/runtime/surface/jsonrpc.mjs';
import { LineFramer } from '../../../engine/runtime/surface/lines.mjs';

const b = (s: string) => Buffer.from(s, 'utf8');

function framer(max = 1024) {
  const lines: string[] = [];
  const over: [number, number][] = [];
  const f = new LineFramer(
    max,
    (l, n) => lines.push(`${n}:${l.toString('utf8')}`),
    (bytes, n) => over.push([n, bytes]),
  );
  return { f, lines, over };
}

describe('LineFramer', () => {
  it('splits across chunks, keeps empty lines, ends an unfinished last line', () => {
    const { f, lines } = framer();
    f.push(b('{"a"'));
    expect(f.midLine).toBe(true);
    f.push(b(':1}\n\n{"b":2}\n{"c"'));
    expect(lines).toEqual(['1:{"a":1}', '2:', '3:{"b":2}']);
    f.end();
    expect(lines.at(-1)).toBe('4:{"c"');
    expect(f.midLine).toBe(false);
  });

  it('never holds more than the bound: an oversize line is counted and reported at its newline', () => {
    const { f, lines, over } = framer(10);
    f.push(b('{"x":"0123'));
    f.push(b('456789abcdef"}'));
    expect(f.held).toBe(0); // dropped as it arrives
    f.push(b('\n{"ok":1}\n'));
    expect(over).toEqual([[1, 24]]);
    expect(lines).toEqual(['2:{"ok":1}']);
  });
});

describe('RpcJoin', () => {
  it('joins a response to the request that travelled the other way, by id (numbers and strings apart)', () => {
    const j = new RpcJoin();
    expect(j.accept('client', { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's' } }).moments).toEqual([
      { kind: 'request', from: 'client', id: 1, method: 'session/prompt', params: { sessionId: 's' } },
    ]);
    j.accept('agent', { jsonrpc: '2.0', id: '1', method: 'session/request_permission', params: { sessionId: 's' } });
    const r = j.accept('agent', { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } });
    expect(r).toEqual({
      moments: [
        { kind: 'response', from: 'agent', id: 1, method: 'session/prompt', request: { params: { sessionId: 's' } }, result: { stopReason: 'end_turn' } },
      ],
      problems: [],
    });
    expect(j.isPending('agent', '1')).toBe(true);
    expect(j.isPending('client', 1)).toBe(false);
  });

  it('a response nobody asked for is a moment and a problem; so is one travelling the same way as its id', () => {
    const j = new RpcJoin();
    j.accept('client', { jsonrpc: '2.0', id: 7, method: 'x' });
    const r = j.accept('client', { jsonrpc: '2.0', id: 7, result: null });
    expect(r.moments).toEqual([{ kind: 'response', from: 'client', id: 7, unmatched: true, result: null }]);
    expect(r.problems.map((p) => p.code)).toEqual(['unmatched-response']);
  });

  it('notifications, errors, batches, reuse of a pending id, garbage', () => {
    const j = new RpcJoin();
    expect(j.accept('agent', { jsonrpc: '2.0', method: 'session/update', params: { u: 1 } }).moments[0]).toEqual({
      kind: 'notification',
      from: 'agent',
      method: 'session/update',
      params: { u: 1 },
    });
    j.accept('client', { id: 2, method: 'a' });
    expect(j.accept('client', { id: 2, method: 'b' }).problems[0].code).toBe('duplicate-id');
    expect(j.accept('agent', { id: 2, error: { code: -1, message: 'no' } }).moments[0]).toMatchObject({ kind: 'response', method: 'b', error: { code: -1 } });
    const batch = j.accept('client', [{ method: 'n1' }, { id: 3, method: 'r' }, 5]);
    expect(batch.moments.map((m) => m.kind)).toEqual(['notification', 'request']);
    expect(batch.problems.map((p) => p.code)).toEqual(['not-jsonrpc']);
    expect(j.accept('client', { id: { o: 1 }, method: 'x' }).problems[0].code).toBe('not-jsonrpc');
    expect(j.accept('client', { hello: 1 }).problems[0].code).toBe('not-jsonrpc');
  });

  it('is bounded: past the table size the oldest request is forgotten, and said', () => {
    const j = new RpcJoin({ maxPending: 2 });
    j.accept('client', { id: 1, method: 'a' });
    j.accept('client', { id: 2, method: 'b' });
    expect(j.accept('client', { id: 3, method: 'c' }).problems[0].code).toBe('join-table-full');
    expect(j.accept('agent', { id: 1, result: 1 }).moments[0].unmatched).toBe(true);
    expect(j.accept('agent', { id: 3, result: 1 }).moments[0].method).toBe('c');
  });

  it('abandon(): every request left waiting becomes the response its sender never gets', () => {
    const j = new RpcJoin();
    j.accept('client', { id: 1, method: 'session/prompt', params: { sessionId: 's' } });
    j.accept('agent', { id: 9, method: 'session/request_permission', params: { sessionId: 's' } });
    const out = j.abandon({ code: 1, signal: null });
    expect(out.map((m) => [m.from, m.id, m.method])).toEqual([
      ['agent', 1, 'session/prompt'],
      ['client', 9, 'session/request_permission'],
    ]);
    expect(out[0]).toMatchObject({ error: { code: -32099 }, exit: { code: 1, signal: null }, request: { params: { sessionId: 's' } } });
    expect(j.abandon({}).length).toBe(0);
  });

  it('parseLine: blank is nothing, non-JSON is a problem', () => {
    expect(parseLine(b('  \r'))).toEqual({ blank: true });
    expect(parseLine(b('{"a":1}\r')).value).toEqual({ a: 1 });
    expect(parseLine(b('not json')).problem?.code).toBe('malformed-json');
  });
});

describe('ClientPipe', () => {
  function pipe() {
    const written: string[] = [];
    const dest = { write: (x: Buffer) => (written.push(x.toString('utf8')), true), end: () => written.push('<end>') };
    const lines: string[] = [];
    const origins: unknown[] = [];
    let origin: unknown;
    const f = new LineFramer(
      1 << 20,
      (l) => {
        lines.push(l.toString('utf8'));
        origins.push(origin);
      },
      () => {},
    );
    const p = new ClientPipe(dest, f, {
      setOrigin: (o) => (origin = o),
      isResponseTo: (line, ids) => {
        const v = JSON.parse(line.toString('utf8'));
        const k = `${typeof v.id}:${v.id}`;
        return !v.method && ids.has(k) ? k : undefined;
      },
    });
    return { p, written, lines, origins, all: () => written.join('') };
  }

  it('passes chunks through as they come, unchanged', () => {
    const { p, written } = pipe();
    p.push(b('{"a":'));
    p.push(b('1}\n{"b"'));
    expect(written).toEqual(['{"a":', '1}\n{"b"']);
  });

  it('injects only at a line boundary: mid-line it waits for the newline, then goes between the lines', () => {
    const { p, all, lines, origins } = pipe();
    p.push(b('{"partial":'));
    const done: unknown[] = [];
    p.inject('{"method":"session/cancel"}', { command: 'c1' }, (ok) => done.push(ok));
    expect(done).toEqual([]);
    p.push(b('1}\n{"next":2}\n'));
    expect(all()).toBe('{"partial":1}\n{"method":"session/cancel"}\n{"next":2}\n');
    expect(done).toEqual([true]);
    expect(lines).toEqual(['{"partial":1}', '{"method":"session/cancel"}', '{"next":2}']);
    expect(origins).toEqual([undefined, { command: 'c1' }, undefined]);
  });

  it('an injection that is no longer wanted when its boundary comes is not written', () => {
    const { p, all } = pipe();
    p.push(b('{"partial":'));
    let wanted = true;
    const done: unknown[] = [];
    p.inject(
      '{"answer":1}',
      undefined,
      (ok, why) => done.push([ok, why]),
      () => wanted,
    );
    wanted = false; // the editor's own answer got there first
    p.push(b('1}\n'));
    expect(all()).toBe('{"partial":1}\n');
    expect(done).toEqual([[false, 'no longer wanted when its turn came']]);
  });

  it('at a boundary an injection is written at once', () => {
    const { p, all } = pipe();
    p.push(b('{"a":1}\n'));
    p.inject('{"i":1}', undefined, () => {});
    expect(all()).toBe('{"a":1}\n{"i":1}\n');
  });

  it("swallows the editor's late answer to a request hookmap answered, and nothing else", () => {
    const { p, all } = pipe();
    p.swallow('number:5');
    p.push(b('{"jsonrpc":"2.0","id":4,"result":1}\n{"jsonrpc":"2.0","id":5,"res'));
    p.push(b('ult":{"outcome":{"outcome":"selected","optionId":"yes"}}}\n{"jsonrpc":"2.0","id":5,"method":"x"}\n'));
    expect(all()).toBe('{"jsonrpc":"2.0","id":4,"result":1}\n{"jsonrpc":"2.0","id":5,"method":"x"}\n');
    // the id is spent: a second answer with it passes (it is not ours to judge)
    p.push(b('{"jsonrpc":"2.0","id":5,"result":2}\n'));
    expect(all().endsWith('{"jsonrpc":"2.0","id":5,"result":2}\n')).toBe(true);
  });

  it('while swallowing, a partial line is held at most a moment, then passed on raw', async () => {
    const { p, written, all } = pipe();
    p.swallow('number:9');
    p.push(b('{"jsonrpc":"2.0","id":9,'));
    expect(all()).toBe('');
    await new Promise((r) => setTimeout(r, 120));
    expect(all()).toBe('{"jsonrpc":"2.0","id":9,');
    p.push(b('"result":1}\n'));
    expect(all()).toBe('{"jsonrpc":"2.0","id":9,"result":1}\n'); // released raw: too late to swallow
    expect(written.length).toBe(2);
  });

  it('end(): held bytes go on, pending injections fail, the agent stdin closes', () => {
    const { p, written } = pipe();
    p.push(b('{"x":'));
    const done: unknown[] = [];
    p.inject('{"i":1}', undefined, (ok, why) => done.push([ok, why]));
    p.end();
    expect(written.at(-1)).toBe('<end>');
    expect(done).toEqual([[false, 'the editor closed the connection first']]);
    p.inject('{"i":2}', undefined, (ok) => done.push(ok));
    expect(done.at(-1)).toBe(false);
  });
});
