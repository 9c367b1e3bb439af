// Loads one agent's fixture folder for `hookmap check`, tolerantly: a
// malformed file is a located `fixture-invalid` error, never a crash, and the
// parsed files keep their YAML positions so a failing case can be pointed at.
// (fixtureFiles() in format.ts stays the quick loader the tests use.)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathString, type DescriptorError } from '../../core/descriptor/errors.ts';
import { parseYamlSource, type YamlSource } from '../../core/descriptor/yaml-source.ts';
import { SchemaReporter, schemaErrors } from '../../core/descriptor/schema-errors.ts';
import { explain } from '../../core/text/suggest.ts';
import type { FixtureFile } from './format.ts';
import { PACKAGE_ROOT } from '../../core/io/package-root.mjs';

export const FIXTURE_KINDS = ['events', 'decisions', 'shim', 'recorded'] as const;

export interface LoadedFixtureFile extends FixtureFile {
  src: YamlSource;
  skipped?: Record<string, string>;
  notReproducible?: Record<string, { type: string; fields: string[]; why: string }>;
}

export interface FixtureDirLoad {
  files: LoadedFixtureFile[];
  errors: DescriptorError[];
}

/** Every `*.yaml` of `dir` (files starting with `_` are helpers, skipped), labelled `${label}/<file>`. */
export function loadFixtureDir(dir: string, label: string, agent: string): FixtureDirLoad {
  const files: LoadedFixtureFile[] = [];
  const errors: DescriptorError[] = [];
  if (!existsSync(dir)) return { files, errors };
  for (const name of readdirSync(dir).sort()) {
    // pin-setup.yaml is input to the pin importer (codegen), not a fixture
    if (!/\.ya?ml$/.test(name) || name.startsWith('_') || name === 'pin-setup.yaml') continue;
    const file = `${label}/${name}`;
    const src = parseYamlSource(file, readFileSync(join(dir, name), 'utf8'));
    if (src.errors.length) {
      errors.push(...src.errors.map((e) => ({ ...e, code: 'fixture-invalid' as const })));
      continue;
    }
    const problems = validateFixture(src, agent);
    errors.push(...problems);
    if (problems.length) continue;
    const doc = src.value as any;
    files.push({
      file,
      kind: doc.kind,
      agent,
      provenance: doc.provenance,
      capture: doc.capture,
      cases: doc.cases ?? [],
      skipped: doc.skipped,
      notReproducible: doc.not_reproducible,
      src,
    });
  }
  return { files, errors };
}

const FIXTURE_SCHEMA = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'schemas', 'fixture.schema.json'), 'utf8'));
let reporter: SchemaReporter | undefined;

/** The fixture schema (schemas/fixture.schema.json) through the descriptor's located pipeline, then what a schema cannot say. */
function validateFixture(src: YamlSource, agent: string): DescriptorError[] {
  reporter ??= new SchemaReporter(FIXTURE_SCHEMA);
  const out: DescriptorError[] = schemaErrors(reporter, FIXTURE_SCHEMA, src.value, src).map((p) => ({ ...p.error, code: 'fixture-invalid' as const }));
  const bad = (path: (string | number)[], message: string) => {
    const pos = src.locate(path);
    out.push({ code: 'fixture-invalid', file: src.file, line: pos.line, col: pos.col, path: pathString(path), message });
  };
  const doc = src.value as any;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return out;
  if (typeof doc.agent === 'string' && doc.agent !== agent) bad(['agent'], `agent '${doc.agent}' in a fixture of '${agent}'`);
  if (!Array.isArray(doc.cases)) return out;
  const names = new Set<string>();
  doc.cases.forEach((c: any, i: number) => {
    if (!c || typeof c !== 'object' || typeof c.name !== 'string') return;
    if (names.has(c.name)) bad(['cases', i, 'name'], `duplicate case name '${c.name}' (evidence and reports name cases by it)`);
    names.add(c.name);
    if (doc.kind === 'shim') validateShimCase(c, ['cases', i], bad);
    if (doc.kind === 'events') validateLabels(c, ['cases', i], bad);
  });
  return out;
}

/** A `$label` must name an event or step labelled earlier in the same case. */
function validateLabels(c: any, at: (string | number)[], bad: (path: (string | number)[], message: string) => void): void {
  const events = new Set<string>();
  const steps = new Set<string>();
  (c.steps ?? []).forEach((s: any, j: number) => {
    const sp = [...at, 'steps', j];
    const check = (v: unknown, path: (string | number)[], known: Set<string>, what: string) => {
      if (typeof v === 'string' && v.startsWith('$') && !known.has(v.slice(1))) {
        bad(
          path,
          explain(`${v} names no earlier ${what} of this case`, {
            name: v,
            candidates: [...known].map((k) => `$${k}`),
            label: 'Labelled before it',
            hint: `Label one with \`as: ${v.slice(1)}\`.`,
          }),
        );
      }
    };
    if (s?.settle && typeof s.settle === 'object') {
      check(s.settle.of, [...sp, 'settle', 'of'], steps, 'step');
      check(s.settle.not_of, [...sp, 'settle', 'not_of'], steps, 'step');
    }
    (s?.expect ?? []).forEach((e: any, k: number) => {
      const ep = [...sp, 'expect', k];
      check(e?.cause, [...ep, 'cause'], events, 'event');
      check(typeof e?.run === 'object' && e?.run ? e.run.not : e?.run, [...ep, 'run'], events, 'event');
      if (typeof e?.as === 'string') events.add(e.as);
    });
    if (typeof s?.as === 'string') steps.add(s.as);
  });
}

/**
 * A script case (sh|node): stdin -> stdout + exit. A tee case: the editor's stdin through the tee to `agent` ->
 * the editor's stdout + exit. A plugin case: host hook + args -> what the host sees (`expect`).
 */
function validateShimCase(c: any, at: (string | number)[], bad: (path: (string | number)[], message: string) => void): void {
  if (c.shim === 'plugin') {
    if (typeof c.hook !== 'string' || !c.hook) bad([...at, 'hook'], 'a plugin case names the host hook it calls (`hook`)');
    if (c.args !== undefined && !Array.isArray(c.args)) bad([...at, 'args'], "`args` must be the list of the hook's arguments");
    if (!c.expect || typeof c.expect !== 'object' || Array.isArray(c.expect))
      bad([...at, 'expect'], 'a plugin case states what the host sees (`expect`: return, args, host)');
  } else if (c.shim !== undefined) {
    if (c.shim === 'tee' && (!Array.isArray(c.agent) || !c.agent.every((a: unknown) => typeof a === 'string')))
      bad([...at, 'agent'], 'a tee case names the agent command it stands in front of (`agent`: [command, ...args])');
    if (typeof c.stdin !== 'string') bad([...at, 'stdin'], '`stdin` must be a string');
    if (typeof c.stdout !== 'string') bad([...at, 'stdout'], '`stdout` must be the exact bytes expected');
    if (!Number.isInteger(c.exit)) bad([...at, 'exit'], '`exit` must be an integer');
  }
}
