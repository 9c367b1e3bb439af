// Streamed text through the engine (AEP-0007 §6, issue 10): a descriptor
// marks an emit `fragment_of: <stream id>`; at capture `redacted` the
// fragments' redacted fields share a per-stream redactor, so a secret split
// over two deltas never appears in the emitted deltas, and the held tail is
// released as a closing fragment when the session emits anything else.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../engine/core/capture/redact.ts';
import { loadVendor } from '../../engine/core/descriptor/registry.ts';
import { Mapper } from '../../engine/core/map/mapper.ts';

const session = { id: 's_stream_1', cwd: '/srv/p' };
const delta = (text: string, kind = 'text_delta') => ({
  session,
  event: { type: 'message_update', message: { role: 'assistant', content: [] }, assistantMessageEvent: { type: kind, delta: text } },
});
const end = (text: string) => ({
  session,
  event: { type: 'message_end', message: { role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', usage: { input: 1, output: 2 } } },
});
const SECRET = 'sk_live_4eC39HqLyjWDarjtT1zdp7dcXYZ123';

async function run(mapper: Mapper, steps: unknown[]): Promise<any[]> {
  const events: any[] = [];
  for (const s of steps) events.push(...(await mapper.map(undefined, s)).events);
  return events;
}

describe('fragment_of: redaction across streamed deltas', () => {
  const text = `Here is the config: STRIPE=${SECRET} and the rest of a long answer. `.repeat(3);
  const pieces = (n: number) => Array.from({ length: Math.ceil(text.length / n) }, (_, i) => text.slice(i * n, (i + 1) * n));

  for (const size of [5, 17, 40]) {
    it(`a secret split over ${size}-character deltas never appears, the deltas add up to the redacted text`, async () => {
      const mapper = new Mapper(loadVendor('pi'), { capture: 'redacted', config: { deltas: true } });
      const events = await run(mapper, [...pieces(size).map((p) => delta(p)), end(text)]);
      const deltas = events.filter((e) => e.type === 'x.pi.message.delta');
      expect(deltas.length).toBe(pieces(size).length + 1); // one per delta, plus the closing fragment
      const streamed = deltas.map((e) => e.data.delta).join('');
      expect(streamed).not.toContain('4eC39HqLyjWDarjtT1zdp7dc');
      for (const e of deltas) expect(e.data.delta).not.toContain('sk_live_4eC');
      expect(streamed).toBe(new Redactor().text(text));
      // the closing fragment comes before the message that ends the stream, in seq order
      const replied = events.findIndex((e) => e.type === 'x.pi.message.replied');
      expect(events.indexOf(deltas.at(-1)!)).toBe(replied - 1);
      expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
      expect(events[replied].data.content).not.toContain('4eC39HqLyjWDarjtT1zdp7dc');
    });
  }

  it('each kind is its own stream; state is per session', async () => {
    const mapper = new Mapper(loadVendor('pi'), { capture: 'redacted', config: { deltas: true } });
    const other = { id: 's_stream_2', cwd: '/srv/p' };
    const events = await run(mapper, [
      delta('thinking about ghp_AbCdEfGhIjKl', 'thinking_delta'),
      delta('answer: token ghp_AbCdEf'),
      { ...delta('MnOpQrStUvWxYz012345 ok'), session: other },
      delta('MnOpQrStUvWxYz012345 is it', 'thinking_delta'),
      delta('GhIjKlMnOpQrStUvWxYz012345 done'),
      end('x'),
    ]);
    const of = (s: string, kind: string) =>
      events
        .filter((e) => e.session === s && e.type === 'x.pi.message.delta' && e.data.kind === kind)
        .map((e) => e.data.delta)
        .join('');
    expect(of('s_stream_1', 'thinking_delta')).toBe('thinking about [REDACTED:secret] is it');
    expect(of('s_stream_1', 'text_delta')).toBe('answer: token [REDACTED:secret] done');
    expect(of('s_stream_2', 'text_delta')).toBe(''); // still held: its session has not moved on
  });

  it('at capture metadata nothing is held (the delta text is dropped anyway)', async () => {
    const mapper = new Mapper(loadVendor('pi'), { config: { deltas: true } });
    const events = await run(mapper, [delta('abc'), delta('def'), end('abcdef')]);
    const deltas = events.filter((e) => e.type === 'x.pi.message.delta');
    expect(deltas).toHaveLength(2);
    for (const e of deltas) expect(e.data.delta).toBeUndefined();
  });

  it('a firing that fails changes no stream state', async () => {
    const mapper = new Mapper(loadVendor('pi'), { capture: 'redacted', config: { deltas: true } });
    await run(mapper, [delta('key ghp_AbCdEf')]);
    await expect(mapper.map(undefined, { session: {}, event: { type: 'message_update' } })).rejects.toThrow();
    const events = await run(mapper, [delta('GhIjKlMnOpQrStUvWxYz0123 x'), end('y')]);
    expect(
      events
        .filter((e) => e.type === 'x.pi.message.delta')
        .map((e) => e.data.delta)
        .join(''),
    ).toContain('[REDACTED:secret] x');
  });
});
