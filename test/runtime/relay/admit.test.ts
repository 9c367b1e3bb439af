// The slow-consumer decision (AEP-0003 §8.4) that the SSE and WebSocket sinks
// share: the bytes already queued on the connection decide whether an event is
// written, shed (debug only) or closes the consumer. The transports' own
// behaviour under a stalled reader is in test/reliability/backpressure.test.ts.
import { describe, expect, it } from 'vitest';
import { admit } from '../../../engine/runtime/relay/subscription.ts';
import type { Held } from '../../../engine/runtime/relay/store.ts';

const held = (severity: string): Held => ({ ev: { severity } }) as unknown as Held;
const MAX = 1000;

describe('admit', () => {
  it('writes every severity while the queue is at or below half the bound', () => {
    for (const sev of ['debug', 'info', 'warn', 'error']) {
      expect(admit(0, MAX, held(sev))).toBe('write');
      expect(admit(MAX / 2, MAX, held(sev))).toBe('write');
    }
  });
  it('past half the bound sheds debug events only; info and up are still written', () => {
    expect(admit(MAX / 2 + 1, MAX, held('debug'))).toBe('shed');
    for (const sev of ['info', 'warn', 'error', 'critical']) expect(admit(MAX / 2 + 1, MAX, held(sev))).toBe('write');
    expect(admit(MAX, MAX, held('debug'))).toBe('shed');
    expect(admit(MAX, MAX, held('info'))).toBe('write');
  });
  it('past the bound closes the consumer whatever the severity (it resumes from its last position)', () => {
    for (const sev of ['debug', 'info', 'error']) expect(admit(MAX + 1, MAX, held(sev))).toBe('overflow');
  });
  it('an event without a severity is not sheddable', () => {
    expect(admit(MAX / 2 + 1, MAX, { ev: {} } as unknown as Held)).toBe('write');
  });
});
