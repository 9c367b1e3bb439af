// The engine's shape, enforced (issue 16 "the runtime cut along its
// concerns"): no untyped `spec: any`; no `process.env` read below the CLI
// edge (engine/cli/), where one configuration is resolved; no import cycles,
// between files or between the engine's units (engine/<layer>/<unit>/, engine/app/,
// engine/cli/, codegen/); imports only down the layers (core, runtime, person, tools, app, cli);
// no engine or web file over 300 lines (engine/core/generated/ and engine/core/kernel/generated/ aside); no line
// over 160 characters (prettier's printWidth) in the code that ships or
// builds it (engine/, web/, codegen/, bin/, bench/; tests quote whole
// messages and payloads, docs/trace renders an image from its HTML).
//
// The PENDING lists name what does not meet a rule yet, each with what keeps
// it there. They only shrink: an entry that meets its rule fails the test
// until it is removed, except entries marked `in flight`, which belong to
// work on another branch not landed yet (they may or may not arrive).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

const MAX_LINES = 300;
/** prettier's printWidth (.prettierrc): a line past it is one prettier could not break (a long string, a comment). */
const MAX_LINE_CHARS = 160;

/** Programs of their own: bin/hookmap.mjs runs them without engine/cli, so their entry is their edge. */
const OWN_PROGRAMS: Record<string, string> = {
  'engine/runtime/shim/node-shim.mjs': 'the portable hook shim, run in the agent as `hookmap hook`',
  'engine/runtime/surface/tee.mjs': 'the stdio tee, run in the editor as `hookmap tee`',
  'engine/runtime/shim/autostart.mjs': 'start on demand, run by the shims as `hookmap autostart`',
  'engine/tools/cases/plugin-host.mjs': "a plugin's stand-in host, run as a child by a `shim: plugin` fixture case (its environment is the plugin's)",
  'engine/runtime/shim/plugin/generate.ts': "the generated plugin's source text, run inside the agent's process",
};

/** Files below engine/cli/ still reading process.env: none (the configuration is resolved at the edge, engine/cli/config.ts, and passed down). */
const PENDING_ENV = new Map<string, string>([]);

/**
 * Files below engine/cli/ that take an environment (NodeJS.ProcessEnv) at all: the environment of a child they
 * start, never a source of configuration (the machine a command acts on is engine/core/io/target.ts, resolved by
 * engine/cli/config.ts resolveTarget).
 */
const CHILD_ENV = new Map<string, string>([
  ['engine/tools/cases/run-shim.ts', 'the environment a shim fixture case runs the generated shim in'],
  ['engine/tools/cases/shim-daemon.ts', 'runProcess: the environment of the process a fixture case starts'],
]);

/** Unit cycles not broken yet: none (the composition root lives in engine/app/, the home paths in engine/core/io/). */
const PENDING_CYCLES = new Map<string, string>([]);

/**
 * Engine files over the budget, to be split along their concerns: none now (an entry marked `in flight:
 * <helper>` would belong to work on that helper's branch).
 */
const PENDING_SIZE = new Map<string, string>([]);

/** Entries that must leave their list once they meet the rule (not work in flight elsewhere). */
const settled = (list: Map<string, string>, key: string) => !list.get(key)!.startsWith('in flight');

function sources(dir: string, out: string[] = [], pattern = /\.(ts|mts|mjs)$/): string[] {
  for (const f of readdirSync(join(ROOT, dir))) {
    const rel = `${dir}/${f}`;
    if (statSync(join(ROOT, rel)).isDirectory()) sources(rel, out, pattern);
    else if (pattern.test(f) && !f.endsWith('.d.mts')) out.push(rel);
  }
  return out;
}

const FILES = [...sources('engine'), ...sources('codegen')].sort();
const text = new Map(FILES.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
const code = (f: string) =>
  text
    .get(f)!
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Every relative import of a file: static (`import`/`export ... from`) and dynamic with a literal path. */
function imports(f: string): Edge[] {
  const out: Edge[] = [];
  const src = code(f);
  const add = (spec: string, typeOnly: boolean) => {
    if (!spec.startsWith('.')) return;
    const to = relative(ROOT, resolve(ROOT, dirname(f), spec));
    if (text.has(to)) out.push({ from: f, to, typeOnly });
  };
  for (const m of src.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gm)) {
    const names = m[3];
    const typeOnly =
      !!m[2] ||
      (/^\{[^}]*\}$/.test(names.trim()) &&
        names
          .replace(/[{}\s]/g, '')
          .split(',')
          .filter(Boolean)
          .every((n) => n.startsWith('type ')));
    add(m[4], typeOnly);
  }
  for (const m of src.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) add(m[1], false);
  for (const m of src.matchAll(/import\(\s*['"`]([^'"`$]+)['"`]\s*\)/g)) add(m[1], false);
  return out;
}

const EDGES = FILES.flatMap(imports);
/** The engine's layers, lowest first: a layer imports only its own and those below it. */
const LAYERS = ['core', 'runtime', 'person', 'tools', 'app', 'cli'] as const;
const LAYERED = new Set<string>(['core', 'runtime', 'person', 'tools']);
/** engine/<layer>/<unit>/ below the four layers that group units; engine/app/ and engine/cli/ are units and layers both. */
const unitOf = (f: string) => {
  if (f.startsWith('codegen/')) return 'codegen';
  const parts = f.split('/');
  if (parts.length <= 2) return 'engine';
  return LAYERED.has(parts[1]) && parts.length > 3 ? parts.slice(0, 3).join('/') : parts.slice(0, 2).join('/');
};
const layerOf = (f: string) => (f.startsWith('engine/') ? LAYERS.indexOf(f.split('/')[1] as (typeof LAYERS)[number]) : -1);

/** Strongly connected components with more than one node (Tarjan). */
function cycles(edges: [string, string][]): string[][] {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let n = 0;
  const visit = (v: string) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('the engine architecture', () => {
  it('has no `spec: any`', () => {
    const hits = FILES.filter((f) => /\bspec\s*\??\s*:\s*any\b/.test(code(f)));
    expect(hits).toEqual([]);
  });

  it('reads process.env only at the CLI edge (engine/cli/) and in programs of their own', () => {
    const readers = FILES.filter((f) => f.startsWith('engine/') && !f.startsWith('engine/cli/') && /\bprocess\.env\b/.test(code(f)));
    const unexpected = readers.filter((f) => !(f in OWN_PROGRAMS) && !PENDING_ENV.has(f));
    expect(unexpected, 'read the value in engine/cli/ and pass it down').toEqual([]);
    const done = [...PENDING_ENV.keys()].filter((f) => settled(PENDING_ENV, f) && text.has(f) && !readers.includes(f));
    expect(done, 'no longer reads process.env: remove it from PENDING_ENV').toEqual([]);
  });

  it("reads hookmap's own variables (HOOKMAP_*) only at the CLI edge, even from an environment passed down", () => {
    // an `env` bag handed below the CLI and read for HOOKMAP_* is the same read as process.env, one call later
    const own = (f: string) =>
      f in OWN_PROGRAMS ||
      /^engine\/runtime\/shim\/[^/]+\.mjs$/.test(f) ||
      /^engine\/runtime\/surface\/tee[^/]*\.mjs$/.test(f) ||
      f === 'engine/tools/cases/plugin-host.mjs';
    const readers = FILES.filter(
      (f) => f.startsWith('engine/') && !f.startsWith('engine/cli/') && !own(f) && /\benv\??\.HOOKMAP_|env\[['"]HOOKMAP_|\bhookmapHome\(/.test(code(f)),
    );
    expect(readers, 'resolve it in engine/cli/config.ts and pass the value down').toEqual([]);
    // nor picked from a bag by pattern (`/^HOOKMAP_/.test(name)`, `name.startsWith('HOOKMAP_')`)
    const pickers = FILES.filter(
      (f) => f.startsWith('engine/') && !f.startsWith('engine/cli/') && !own(f) && /\/\^HOOKMAP_|startsWith\(['"]HOOKMAP_/.test(code(f)),
    );
    expect(pickers, "select hookmap's variables at the CLI edge (engine/cli/config.ts)").toEqual([]);
  });

  it('hands no environment below the CLI but the one a child process runs in', () => {
    const takers = FILES.filter((f) => f.startsWith('engine/') && !f.startsWith('engine/cli/') && /\bProcessEnv\b/.test(code(f)) && !(f in OWN_PROGRAMS));
    expect(
      takers.filter((f) => !CHILD_ENV.has(f)),
      'pass the values (engine/core/io/target.ts), not the environment',
    ).toEqual([]);
    expect(
      [...CHILD_ENV.keys()].filter((f) => !takers.includes(f)),
      'no longer takes an environment: remove it from CHILD_ENV',
    ).toEqual([]);
  });

  it('has no import cycles between files (type-only imports aside: they are erased)', () => {
    expect(cycles(EDGES.filter((e) => !e.typeOnly).map((e) => [e.from, e.to]))).toEqual([]);
  });

  it("has no import cycles between the engine's units", () => {
    const unitEdges = EDGES.map((e) => [unitOf(e.from), unitOf(e.to)] as [string, string]).filter(([a, b]) => a !== b);
    const pairs = new Set(unitEdges.map(([a, b]) => `${a} -> ${b}`));
    const mutual = [...new Set(unitEdges.filter(([a, b]) => a < b && pairs.has(`${b} -> ${a}`)).map(([a, b]) => `${a} <-> ${b}`))].sort();
    expect(
      mutual.filter((c) => !PENDING_CYCLES.has(c)),
      'a unit imports one that imports it back',
    ).toEqual([]);
    const done = [...PENDING_CYCLES.keys()].filter((c) => settled(PENDING_CYCLES, c) && !mutual.includes(c));
    expect(done, 'broken: remove it from PENDING_CYCLES').toEqual([]);
    // longer cycles (a -> b -> c -> a) among the units, once the mutual pairs are set aside
    const longer = cycles(unitEdges.filter(([a, b]) => !PENDING_CYCLES.has(a < b ? `${a} <-> ${b}` : `${b} <-> ${a}`)));
    expect(longer).toEqual([]);
  });

  it('imports only down its layers: core, runtime, person, tools, app, cli (the core imports nothing above it)', () => {
    const stray = FILES.filter((f) => f.startsWith('engine/') && layerOf(f) < 0 && f.split('/').length > 2);
    expect(stray, 'every engine/ folder is one of the layers').toEqual([]);
    const up = EDGES.filter((e) => layerOf(e.from) >= 0 && layerOf(e.to) > layerOf(e.from)).map((e) => `${e.from} -> ${e.to}`);
    expect(up, 'a lower layer imports a higher one: move the shared part down').toEqual([]);
  });

  it(`has no engine file over ${MAX_LINES} lines (engine/core/generated/ aside)`, () => {
    const lines = (f: string) => text.get(f)!.split('\n').length - (text.get(f)!.endsWith('\n') ? 1 : 0);
    const engine = FILES.filter((f) => f.startsWith('engine/') && !f.startsWith('engine/core/generated/') && !f.startsWith('engine/core/kernel/generated/'));
    const over = engine.filter((f) => lines(f) > MAX_LINES);
    expect(
      over.filter((f) => !PENDING_SIZE.has(f)).map((f) => `${f}: ${lines(f)} lines`),
      'split it along its concerns',
    ).toEqual([]);
    const done = [...PENDING_SIZE.keys()].filter((f) => settled(PENDING_SIZE, f) && text.has(f) && !over.includes(f));
    expect(done, 'within budget: remove it from PENDING_SIZE').toEqual([]);
  });

  it(`has no web file over ${MAX_LINES} lines`, () => {
    const web = sources('web/src', [], /\.(ts|tsx)$/);
    expect(web.length).toBeGreaterThan(10);
    const over = web.map((f) => [f, readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1] as const).filter(([, n]) => n > MAX_LINES);
    expect(
      over.map(([f, n]) => `${f}: ${n} lines`),
      'split it along its concerns',
    ).toEqual([]);
  });

  it(`has no line over ${MAX_LINE_CHARS} characters in engine/, web/, codegen/, bin/ and bench/ (engine/core/generated/ aside)`, () => {
    const code = /\.(ts|tsx|mts|mjs|js)$/;
    // compiled output beside a source (npm run build) and generated files are not code anyone writes
    const written = ['engine', 'web', 'codegen', 'bin', 'bench']
      .flatMap((d) => sources(d, [], code))
      .filter((f) => !f.startsWith('engine/core/generated/') && !f.startsWith('engine/core/kernel/generated/') && !f.startsWith('engine/person/inbox/assets/'))
      .filter((f) => !(f.endsWith('.js') && existsSync(join(ROOT, f.replace(/\.js$/, '.ts')))));
    expect(written.length).toBeGreaterThan(300);
    const long: string[] = [];
    for (const f of written)
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .forEach((l, i) => l.length > MAX_LINE_CHARS && long.push(`${f}:${i + 1}: ${l.length} characters`));
    expect(long, 'break it (prettier cannot break a string or a comment: split the string, wrap the comment)').toEqual([]);
  });

  it('finds the imports it judges', () => {
    // the walker must see the edges it is meant to see, or the cycle checks prove nothing
    expect(EDGES.some((e) => e.from === 'engine/tools/check/check-agent.ts' && e.to === 'engine/tools/check/evidence.ts')).toBe(true);
    expect(EDGES.some((e) => e.from === 'engine/cli/main.ts' && e.to.startsWith('engine/cli/'))).toBe(true);
    expect(
      cycles([
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
        ['c', 'd'],
      ]),
    ).toEqual([['a', 'b', 'c']]);
  });
});
