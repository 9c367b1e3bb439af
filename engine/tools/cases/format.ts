// Fixture files: `fixtures/<agent>/*.yaml`, plain data, one `kind` per file.
//   kind: events     normalized-event cases: steps of (hook, input) -> expected events
//   kind: decisions  decision-codec cases: (hook, answer) -> exact reply bytes + card
//   kind: shim       script I/O cases: stdin -> stdout + exit code, daemon up/down/hung
//   kind: recorded   real payloads captured from the agent (regression input)
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { FIXTURES_DIR } from '../../core/descriptor/registry.ts';

/**
 * One expected event. Links between a case's events are asserted by label:
 * `as: start` names the event produced here; later `cause: $start` (its id is
 * this event's cause), `run: $start` (the same run), `run: { not: $start }`
 * (another run), `run: null` (outside any run). A `cause` without `$` is a
 * literal id the case supplied (e.g. a command's); `cause: null`: none.
 * `session: null` asserts an agent-scoped event (no session), a string the
 * session id.
 */
export interface ExpectedEvent {
  type: string;
  subject?: string | null;
  step?: string | null;
  data?: unknown;
  as?: string;
  cause?: string | null;
  run?: string | null | { not: string };
  session?: string | null;
  severity?: string | null;
  seq?: number | null;
  /** Data fields not compared (a pinned value the engine cannot reproduce, stated in the file). */
  unchecked?: string[];
}

export interface EventStep {
  hook?: string;
  input: unknown;
  /** The events this step must produce (exactly, in order); absent: not checked (a warm-up step). */
  expect?: ExpectedEvent[];
  reply?: string;
  /** The hold kind this step must open (`permission` | `form` | `gate`), or null: must not hold; absent: not checked. */
  hold?: string | null;
  /** A label for this step: `settle: { of: $label }` later compares its hold's key. */
  as?: string;
  /** What this firing settles: null nothing; `{ as: dismissed | oob, of?: $step, not_of?: $step }`. */
  settle?: { as: 'dismissed' | 'oob'; of?: string; not_of?: string } | null;
  error?: string;
  /** What the surface knows beside the payload (`$surface`: a tee connection, a stream id). */
  surface?: Record<string, unknown>;
}

export interface EventCase {
  name: string;
  provenance?: string;
  capture?: string;
  /** Descriptor `config` overrides for this case (e.g. an opt-in gate switched on), as `HOOKMAP_<VENDOR>_<KEY>` would set them. */
  config?: Record<string, unknown>;
  /** An upstream pin this engine is known not to reproduce, and why: it still counts, and it must still fail. */
  known?: string;
  steps: EventStep[];
}

export interface FixtureFile {
  file: string;
  kind: string;
  agent: string;
  provenance?: string;
  capture?: string;
  cases: any[];
}

export function fixtureFiles(agent: string): FixtureFile[] {
  const dir = join(FIXTURES_DIR, agent);
  if (!existsSync(dir)) return [];
  const out: FixtureFile[] = [];
  for (const f of readdirSync(dir).sort()) {
    if (!/\.ya?ml$/.test(f) || f.startsWith('_')) continue;
    const doc = parse(readFileSync(join(dir, f), 'utf8'));
    if (!doc || typeof doc !== 'object' || !doc.kind) continue;
    out.push({ file: `fixtures/${agent}/${f}`, kind: doc.kind, agent, provenance: doc.provenance, capture: doc.capture, cases: doc.cases ?? [] });
  }
  return out;
}
