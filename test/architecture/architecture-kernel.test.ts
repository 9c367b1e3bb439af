// The AEP kernel's place (issue 39, "an AEP kernel"): engine/core/kernel/ is
// browser-safe and stands alone (no `node:` module, no package, nothing from
// the engine outside itself), so the engine and the web inbox read the same
// code; the event type and the stream position are declared there only, and
// their order is compared there only; web/ takes lifecycle knowledge (which
// type ends a run, a session, a call, a request) only from the kernel, and so,
// in the end, does everything outside the kernel and the mapper: code that
// emits or tests a lifecycle type names it by the kernel's generated TYPE
// (TYPE.runCancelled), so a misspelt type does not compile.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { CLOSES, UNITS } from '../../engine/core/kernel/lifecycle.ts';

/**
 * The views of the one fold (engine/core/kernel/fold/, issue 39): they render its
 * stories and fates, so they spell no lifecycle type at all (opening, within
 * or closing), and each reads the kernel.
 */
const FOLD_READERS = [
  'engine/person/bridge/structure.ts',
  'engine/person/bridge/call-outcome.ts',
  'engine/person/bridge/session-node.ts',
  'engine/person/bridge/call-watch.ts',
  'engine/person/bridge/timeline.ts',
  'engine/cli/commands/held.ts',
  'engine/cli/commands/answer.ts',
  'engine/cli/commands/cancel.ts',
  'engine/cli/commands/command-common.ts',
  'engine/core/validate/lifecycle-tracker.ts',
  'web/src/model/timeline.ts',
  'web/src/model/calls.ts',
  'web/src/model/outcome.ts',
  'web/src/model/attention.ts',
  'web/src/model/store.ts',
];

/** The mapper builds events from descriptors: it spells the types it emits. */
/** The kernel, the mapper, generated code, the generator of the vocabulary, and the reference's JSONata examples (descriptor language, as in vendors/). */
const MAY_SPELL = (f: string) =>
  f.startsWith('engine/core/kernel/') ||
  f.startsWith('engine/core/map/') ||
  f.includes('/generated/') ||
  f === 'codegen/lifecycle.ts' ||
  f === 'codegen/expression-examples.ts';

function sources(dir: string, out: string[] = []): string[] {
  for (const f of readdirSync(join(ROOT, dir))) {
    const rel = `${dir}/${f}`;
    if (statSync(join(ROOT, rel)).isDirectory()) sources(rel, out);
    else if (/\.(ts|tsx|mts)$/.test(f) && !f.endsWith('.d.mts')) out.push(rel);
  }
  return out;
}

const code = (f: string) =>
  readFileSync(join(ROOT, f), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

/** Every import specifier of a file (static, re-export, side-effect, dynamic with a literal). */
function specifiers(src: string): string[] {
  const out: string[] = [];
  for (const m of src.matchAll(/^\s*(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/gm)) out.push(m[1]);
  for (const m of src.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) out.push(m[1]);
  for (const m of src.matchAll(/import\(\s*['"`]([^'"`$]+)['"`]\s*\)/g)) out.push(m[1]);
  return out;
}

const KERNEL = sources('engine/core/kernel');
const ENGINE = sources('engine').filter((f) => !f.startsWith('engine/core/kernel/'));
const WEB = sources('web/src');
const ELSEWHERE = [...ENGINE, ...WEB, ...sources('codegen'), ...sources('bench')];

/** Browser-safe engine files the inbox reads besides the kernel (each standing alone: no imports). */
const SHARED_WITH_WEB = ['engine/core/aep/form-values.ts', 'engine/runtime/usage/budget-view.ts'];

describe('the AEP kernel (engine/core/kernel/)', () => {
  it('holds the event type, positions, commands, the lifecycle and option effects', () => {
    const fold = ['fold/fold.ts', 'fold/join.ts', 'fold/fates.ts', 'fold/story.ts'];
    for (const f of ['event.ts', 'position.ts', 'command.ts', 'lifecycle.ts', 'option-effects.ts', 'generated/lifecycle.ts', 'generated/aep-types.ts', ...fold])
      expect(KERNEL, f).toContain(`engine/core/kernel/${f}`);
  });

  it('imports no node: module, no package and nothing from the engine outside itself (browser-safe)', () => {
    const bad: string[] = [];
    for (const f of KERNEL)
      for (const s of specifiers(code(f))) {
        const inside = s.startsWith('.') && relative(ROOT, resolve(ROOT, dirname(f), s)).startsWith('engine/core/kernel/');
        if (!inside) bad.push(`${f}: ${s}`);
      }
    expect(bad, 'the kernel stands alone: move what it needs into it').toEqual([]);
    const globals = KERNEL.filter((f) => /\b(process|Buffer|require)\s*[.(]/.test(code(f)));
    expect(globals, 'no Node globals in the kernel').toEqual([]);
  });

  it('is what web/ imports from the engine (and the form checker, shared since issue 26; the budgets view type, issue 44)', () => {
    const bad: string[] = [];
    for (const f of WEB)
      for (const s of specifiers(code(f))) {
        if (!s.startsWith('.')) continue;
        const to = relative(ROOT, resolve(ROOT, dirname(f), s));
        if (!to.startsWith('web/') && !to.startsWith('engine/core/kernel/') && !SHARED_WITH_WEB.includes(to)) bad.push(`${f}: ${to}`);
      }
    expect(bad).toEqual([]);
  });
});

describe('one definition', () => {
  it('of the event type: no AepEvent or AepEnvelope declared outside the kernel', () => {
    const declares = /^\s*(export\s+)?(interface\s+(AepEvent|AepEnvelope)\b|type\s+(AepEvent|AepEnvelope)\s*[=<])/m;
    const hits = ELSEWHERE.filter((f) => declares.test(code(f)));
    expect(hits, 'import the kernel one (engine/core/kernel/event.ts)').toEqual([]);
  });

  it('of a position: no (epoch, seq) type declared outside the kernel', () => {
    // an object type's members (a checkpoint's [epoch, seq] tuple is a serialized form, not a type of its own)
    const shape = /\bepoch\??\s*:\s*number\s*;\s*(readonly\s+)?seq\??\s*:\s*number/;
    const hits = ELSEWHERE.filter((f) => shape.test(code(f)));
    expect(hits, 'use Position (engine/core/kernel/position.ts)').toEqual([]);
  });

  it('of position order: no (epoch, seq) comparison outside the kernel', () => {
    const order = /\.epoch\s*-\s*[\w.]+\.epoch|epoch\s*===\s*[\w.[\]]+\s*&&\s*[\w.]*seq\s*<|epoch\s*<\s*[\w.[\]]+\s*\|\|\s*\(/;
    const hits = ELSEWHERE.filter((f) => order.test(code(f)));
    expect(hits, 'use comparePositions (engine/core/kernel/position.ts)').toEqual([]);
  });
});

describe('the lifecycle vocabulary comes from the kernel', () => {
  const closing = new RegExp(
    `['"\`](${Object.keys(CLOSES)
      .map((t) => t.replace(/\./g, '\\.'))
      .join('|')})['"\`]`,
  );

  const lifecycle = new RegExp(
    `['"\`](${Object.values(UNITS)
      .flatMap((u) => [...u.opens, ...u.within, ...u.closes])
      .map((t) => t.replace(/\./g, '\\.'))
      .join('|')})['"\`]`,
  );

  it('web/ spells no lifecycle type (what opens, carries or closes a session, run, call, request): it asks the kernel', () => {
    expect(WEB.filter((f) => lifecycle.test(code(f)))).toEqual([]);
  });

  it('nor does the engine or codegen outside the kernel and the mapper (TYPE.runCancelled, not the literal)', () => {
    const spelling = [...ENGINE, ...sources('codegen')].filter((f) => !MAY_SPELL(f) && lifecycle.test(code(f)));
    expect(spelling, 'name it by TYPE, or ask engine/core/kernel/lifecycle.ts (isRunTerminal, closes, fateOf, ...)').toEqual([]);
  });

  it('the views of the one fold spell no lifecycle type and read the kernel', () => {
    const all = Object.values(UNITS).flatMap((u) => [...u.opens, ...u.within, ...u.closes]);
    const any = new RegExp(`['"\`](${all.map((t) => t.replace(/\./g, '\\.')).join('|')})['"\`]`);
    expect(
      FOLD_READERS.filter((f) => any.test(code(f))),
      'ask the kernel (engine/core/kernel/lifecycle.ts, engine/core/kernel/fold/)',
    ).toEqual([]);
    const reads = (f: string) => specifiers(code(f)).some((s) => relative(ROOT, resolve(ROOT, dirname(f), s)).startsWith('engine/core/kernel/'));
    expect(FOLD_READERS.filter((f) => !reads(f) && !f.endsWith('/attention.ts'))).toEqual([]);
  });

  it('web/ re-derives no lifecycle: no set or list of lifecycle types of its own, no call or request join of its own', () => {
    const own = /new Set\(\[\s*['"](session|run|tool|attention)\.|\b(askedAbout|closeOpen|toolFor|findTool)\s*\(/;
    expect(WEB.filter((f) => own.test(code(f)))).toEqual([]);
  });

  it('the rules see what they judge', () => {
    expect(closing.test("x === 'run.failed'")).toBe(true);
    expect(closing.test("x === 'run.started'")).toBe(false);
    expect(specifiers("import { a } from './b.ts';\nexport { c } from '../d.ts';")).toEqual(['./b.ts', '../d.ts']);
  });
});
