// Linear-time redaction (issue 11): for EVERY rule of the table, hostile
// inputs built from the rule's own adversarial seeds (and a set of generic
// ones for the whole pipeline) are redacted at 100 KB and at 1 MB; the work
// per character at 1 MB must stay within a small factor of the work per
// character at 100 KB (linear: ~1; quadratic: ~10). A ratio of two runs in
// the same process, never an absolute timing.
import { describe, expect, it } from 'vitest';
import { Redactor, ruleTable } from '../../engine/core/capture/redact.ts';
import type { Match } from '../../engine/core/capture/redaction/types.ts';

const SMALL = 100_000;
const BIG = 1_000_000;
/**
 * Per-character cost at 1 MB over the cost at 100 KB. Linear work gives ~1 (cache effects allow some more); quadratic ~10.
 * 5: a loaded machine measured 4.1 (best of 8) for a linear rule; a quadratic one stays twice above it.
 */
const MAX_RATIO = 5;

const build = (seed: string, n: number) => seed.repeat(Math.ceil(n / seed.length)).slice(0, n);

/** Nanoseconds per character of `f(s)`: `f` repeated until it ran >= `minMs`. */
function perChar(f: (s: string) => void, s: string, minMs: number): number {
  let reps = 0;
  const t0 = performance.now();
  let t: number;
  do {
    f(s);
    reps++;
    t = performance.now() - t0;
  } while (t < minMs);
  return (t * 1e6) / reps / s.length;
}

/**
 * The ratio, re-measured (up to 8 times, the best kept) before a verdict: load on the machine, a collection or a regexp's
 * tier-up can spoil one measurement (seen: 'sshpass ' repeated measured 0.6x to 5.6x on a quiet machine, run to run), not
 * eight; the 1 MB side is timed over 20 ms (several runs) rather than one run.
 */
function ratio(f: (s: string) => void, seed: string): number {
  const small = build(seed, SMALL);
  const big = build(seed, BIG);
  f(small); // warm the code paths
  let best = Infinity;
  for (let attempt = 0; attempt < 8 && best > MAX_RATIO; attempt++) {
    best = Math.min(best, perChar(f, big, 20) / perChar(f, small, 8));
  }
  return best;
}

/** Hostile shapes for the whole pipeline: long runs of every character class the rules scan. */
const GENERIC = ['a', 'aB3_', 'ab-cd-', '1 ', '12-', '=', 'a@', '/', '\\', '"', 'a:b@', '--a ', 'key=', 'token: '];

describe('redaction is linear in its input', () => {
  for (const rule of ruleTable()) {
    it(`${rule.id}: 1 MB adversarial inputs`, { timeout: 120_000 }, () => {
      const out: Match[] = [];
      for (const seed of rule.adversarial) {
        const r = ratio((s) => {
          out.length = 0;
          rule.find(s, out);
        }, seed);
        expect(r, `${rule.id} on '${seed}' repeated: per-char cost ratio 1 MB / 100 KB`).toBeLessThan(MAX_RATIO);
      }
    });
  }

  it('the whole pipeline on generic hostile runs and every rule seed', { timeout: 180_000 }, () => {
    const red = new Redactor({ home: '/home/operator', env: {}, secretValues: ['configured-secret-value'] });
    // every rule's seeds at once, interleaved, plus the generic runs
    const mixed = ruleTable()
      .flatMap((x) => x.adversarial)
      .join(' ');
    for (const seed of [...GENERIC, mixed]) {
      const r = ratio((s) => red.text(s), seed);
      expect(r, `pipeline on '${seed}' repeated`).toBeLessThan(MAX_RATIO);
    }
  });

  it('the payloads that froze the daemon (issue 11) redact in time linear in their size', { timeout: 120_000 }, () => {
    const red = new Redactor({ env: {} });
    const blob = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7919 + (i >> 5)) & 255)).toString('base64url');
    const b64 = ratio((s) => red.text(`curl -d '${s}' https://x`), blob(75_000));
    expect(b64, 'a base64url blob in a command').toBeLessThan(MAX_RATIO);
    const hyphens = ratio((s) => red.text(s), 'word-');
    expect(hyphens, 'a hyphen-joined command').toBeLessThan(MAX_RATIO);
  });
});
