// processExists: the one check of "is this pid alive" (the daemon's lock, up's record, the shims' scratch files).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processExists } from '../../../engine/core/io/pid.ts';

describe('processExists', () => {
  it('is true for this process and for init (pid 1: up in a container), false for one that ended', () => {
    expect(processExists(process.pid)).toBe(true);
    expect(processExists(1)).toBe(true);
    const ended = spawnSync(process.execPath, ['-e', '0']).pid!;
    expect(processExists(ended)).toBe(false);
  });

  it('is false for what names a process group or no process (0, negatives, NaN, fractions)', () => {
    for (const pid of [0, -1, -process.pid, Number.NaN, 1.5, Number.MAX_SAFE_INTEGER + 2]) expect(processExists(pid)).toBe(false);
  });
});
