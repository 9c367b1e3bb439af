// The direct-closure evaluator (engine/core/expr/fast.ts) proven equal to JSONata
// on everything the project has (issue 28): every descriptor in vendors/,
// compiled twice (fast closures on, and JSONata alone), runs every events
// case of its fixtures (pins included) and every recorded payload of a real
// agent; the two runs must emit the same events, byte for byte once ids and
// times are set aside, and fail (or pass) the same checks. A case that maps
// differently under the fast path is a bug in fast.ts, whatever the
// fixture's own expectation says.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { compileDescriptor } from '../../../engine/core/descriptor/compile.ts';
import { descriptorPath, listVendors, ROOT } from '../../../engine/core/descriptor/registry.ts';
import type { Descriptor } from '../../../engine/core/descriptor/types.ts';
import { useFastExpressions } from '../../../engine/core/expr/compile.ts';
import { fixtureFiles } from '../../../engine/tools/cases/format.ts';
import { runEventCase } from '../../../engine/tools/cases/run-events.ts';
import type { EventCase } from '../../../engine/tools/cases/format.ts';

/** A descriptor compiled afresh with the fast path on or off (expressions compile lazily: the switch holds until they have run). */
function load(agent: string): Descriptor {
  const file = descriptorPath(agent);
  const r = compileDescriptor(file, readFileSync(file, 'utf8'));
  if (!r.descriptor) throw new Error(`${agent}: ${JSON.stringify(r.errors)}`);
  return r.descriptor;
}

/** Events with their random parts numbered in order of appearance (ids, times), so two runs compare exactly. */
function normalized(events: unknown[]): string {
  const text = JSON.stringify(events);
  const seen = new Map<string, string>();
  const number = (v: string) => {
    if (!seen.has(v)) seen.set(v, `#${seen.size}`);
    return seen.get(v)!;
  };
  return text
    .replace(/"time":"[^"]*"/g, '"time":"<time>"') // the clock, not an expression, writes these
    .replace(/"(latency_ms|duration_ms)":\d+/g, '"$1":0')
    .replace(/"(id|cause)":"([^"]*)"/g, (_m, k: string, v: string) => `"${k}":"${number(v)}"`)
    .replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, number); // ULIDs (attention ids) wherever they appear
}

/** The recorded payloads of real agents (fixtures/<agent>/recorded/*.yaml) as one-step cases. */
function recordedCases(agent: string): EventCase[] {
  const dir = join(ROOT, 'fixtures', agent, 'recorded');
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  return files.map((f) => {
    const doc = parse(readFileSync(join(dir, f), 'utf8'));
    return { name: `recorded/${f}`, steps: [{ hook: doc.hook, input: doc.payload, surface: doc.surface }] } as unknown as EventCase;
  });
}

interface Run {
  events: string;
  failures: string[];
}

async function runAll(agent: string, fast: boolean): Promise<Map<string, Run>> {
  useFastExpressions(fast);
  try {
    const out = new Map<string, Run>();
    const cases: [string, EventCase, string | undefined][] = [];
    for (const f of fixtureFiles(agent).filter((x) => x.kind === 'events')) for (const c of f.cases) cases.push([`${f.file} ${c.name}`, c, f.capture]);
    for (const c of recordedCases(agent)) cases.push([c.name, c, undefined]);
    for (const [name, c, capture] of cases) {
      // one descriptor per case, compiled under this switch (a case's state never leaks into the next)
      const r = await runEventCase(load(agent), c, capture);
      out.set(name, { events: normalized(r.events), failures: r.failures });
    }
    return out;
  } finally {
    useFastExpressions(true);
  }
}

afterAll(() => useFastExpressions(true));

describe('fast expressions equal JSONata on every descriptor and fixture input', () => {
  let total = 0;
  for (const agent of listVendors()) {
    it(
      agent,
      async () => {
        const withFast = await runAll(agent, true);
        const jsonataOnly = await runAll(agent, false);
        expect([...withFast.keys()]).toEqual([...jsonataOnly.keys()]);
        for (const [name, a] of withFast) {
          const b = jsonataOnly.get(name)!;
          expect(a.events, `${agent} ${name}: events`).toBe(b.events);
          expect(a.failures, `${agent} ${name}: check failures`).toEqual(b.failures);
        }
        total += withFast.size;
        expect(withFast.size).toBeGreaterThan(0);
      },
      120_000,
    );
  }
  it('compared a case of every agent', () => {
    expect(total).toBeGreaterThan(listVendors().length);
  });
});
