// The answer of a control query (engine/runtime/daemon/door.ts: x.hookmap.control.ask
// answered in its control.accepted `data.result`) reaches only subscribers
// whose principal holds the control scope, live and in replay, on every
// binding (relay/subscription.ts forControlOnly); an ordinary ack reaches all.
import { describe, expect, it } from 'vitest';
import { createRelay } from '../../../engine/runtime/relay/index.ts';
import { compileFilter } from '../../../engine/runtime/relay/attr-match.ts';
import { forControlOnly, type Sink } from '../../../engine/runtime/relay/subscription.ts';
import { ev, until } from './helpers.ts';

const sink = (got: string[]): Sink => ({
  event: (_text, held) => (got.push(String(held.ev.id)), true),
  exhausted: () => undefined,
  ready: () => null,
  overflow: () => undefined,
});

describe('a control query answer', () => {
  it('is handed to control subscribers only, live and replayed', async () => {
    const relay = createRelay({ token: 'control-only-token' });
    try {
      const answer = ev('q-1', 1, { type: 'control.accepted', cause: 'c-1', capture: 'redacted', data: { result: { command: 'ls' } } });
      const plain = ev('q-1', 2, { type: 'control.accepted', cause: 'c-2', data: {} });
      expect(forControlOnly(answer as any)).toBe(true);
      expect(forControlOnly(plain as any)).toBe(false);
      const live = { read: [] as string[], control: [] as string[] };
      relay.core.subscribe({ filter: compileFilter(undefined), control: false }, sink(live.read));
      relay.core.subscribe({ filter: compileFilter(undefined), control: true }, sink(live.control));
      expect(relay.ingest(answer)).toMatchObject({ ok: true });
      expect(relay.ingest(plain)).toMatchObject({ ok: true });
      await until(() => live.read.length === 1 && live.control.length === 2, 'live delivery');
      expect(live.read).toEqual([plain.id]);
      expect(live.control).toEqual([answer.id, plain.id]);
      const replay = { read: [] as string[], control: [] as string[] };
      relay.core.subscribe({ filter: compileFilter(undefined), from: 'all', live: false, control: false }, sink(replay.read));
      relay.core.subscribe({ filter: compileFilter(undefined), from: 'all', live: false, control: true }, sink(replay.control));
      await until(() => replay.control.length === 2, 'replay');
      expect(replay.read).toEqual([plain.id]);
    } finally {
      await relay.close();
    }
  });
});
