// A log line anyone can provoke is said once per window at most, and the lines
// held back are counted into the next one said (engine/core/io/throttle.ts).
import { describe, expect, it } from 'vitest';
import { throttledSay } from '../../../engine/core/io/throttle.ts';

describe('throttledSay', () => {
  it('says the first, holds back the rest of the window, and counts them into the next', () => {
    let t = 0;
    const lines: string[] = [];
    const say = throttledSay(
      (l) => lines.push(l),
      60_000,
      () => t,
    );
    say('refused 1');
    for (let i = 2; i <= 40; i++) say(`refused ${i}`);
    expect(lines).toEqual(['refused 1']);
    t = 60_000;
    say('refused 41');
    expect(lines).toEqual(['refused 1', 'refused 41 (39 more like it since the last one said, not logged)']);
    t = 200_000;
    say('refused 42');
    expect(lines[2]).toBe('refused 42');
  });

  it('without a logger, nothing happens', () => {
    expect(() => throttledSay(undefined)('x')).not.toThrow();
  });
});
