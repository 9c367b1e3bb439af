// A session id is its emitter's (AEP-0001 §5.2): an agent's hook channel and
// its OTel channel carry the same one, each with positions of its own. A
// resuming consumer (hookmap tail, the live suite's stream) must deliver both
// channels' events, each once, and ask a resume for the lower of the two.
import { describe, expect, it } from 'vitest';
import { ResumeState } from '../../../engine/runtime/relay/client-resume.ts';

const ev = (channel: string, seq: number, id = `${channel}-${seq}`) => ({
  aep: '0.1',
  id,
  type: 'x.a.b.c',
  time: '2026-12-01T00:00:00Z',
  source: `aep://h/agent/codex${channel}/session/s1`,
  agent: 'codex',
  session: 's1',
  seq,
  epoch: 0,
});

describe('ResumeState with two emitters of one session', () => {
  it("delivers both channels' events though their positions interleave, and a redelivery of either once", () => {
    const st = new ResumeState({ history: true });
    const order = [ev('', 0), ev('', 1), ev('', 2), ev('/otel', 0), ev('', 3), ev('/otel', 1), ev('/otel', 2)];
    expect(order.map((e) => st.accept(e as any))).toEqual([true, true, true, true, true, true, true]);
    // a resume resends what the relay holds after the lowest position: nothing is delivered twice
    expect([ev('', 1), ev('', 3), ev('/otel', 2)].map((e) => st.accept(e as any, true))).toEqual([false, false, false]);
    expect(st.accept(ev('/otel', 3) as any, true)).toBe(true);
    // the position a resume asks from is the lower of the two channels'
    expect(st.list().map(({ session, epoch, seq }) => ({ session, epoch, seq }))).toEqual([{ session: 's1', epoch: 0, seq: 3 }]);
    expect(st.accept(ev('', 4) as any)).toBe(true);
    expect(st.accept(ev('', 5) as any)).toBe(true);
    expect(st.list()[0].seq).toBe(3);
  });

  it('a saved position (per session) is a floor for every emitter of the session', () => {
    const st = new ResumeState({ positions: { s1: { epoch: 0, seq: 2 } } });
    expect(st.accept(ev('', 2) as any, true)).toBe(false);
    expect(st.accept(ev('/otel', 1) as any, true)).toBe(false);
    expect(st.accept(ev('/otel', 3) as any, true)).toBe(true);
    expect(st.accept(ev('', 3) as any, true)).toBe(true);
  });
});
