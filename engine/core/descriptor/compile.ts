// Descriptor loading, in phases that all report (docs/errors.md): YAML with
// positions -> the descriptor schema (human errors, schema-errors.ts) ->
// every expression compiled with its names resolved and every emit checked
// (build.ts). A schema error prunes only the part it sits in, so the other
// parts are still compiled and their errors reported in the same run;
// errors that depend on a pruned part are not reported. A descriptor with
// any error is not usable.
import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { DescriptorBuilder } from './build.ts';
import type { DescriptorError } from './errors.ts';
import { SchemaReporter, schemaErrors, type SchemaProblem } from './schema-errors.ts';
import type { Descriptor } from './types.ts';
import type { HookmapDescriptor } from '../generated/descriptor-types.ts';
import { parseYamlSource, yamlSourceFrom, type YamlSource } from './yaml-source.ts';
import { markValidated, validatedValue } from './descriptor-cache.ts';
import { PACKAGE_ROOT } from '../io/package-root.mjs';

export const DESCRIPTOR_SCHEMA = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'schemas', 'descriptor.schema.json'), 'utf8'));
let reporter: SchemaReporter | undefined;

export interface LoadResult {
  descriptor?: Descriptor;
  errors: DescriptorError[];
  /** The file as parsed (once per load: `hookmap check` locates its own errors in it). */
  src?: YamlSource;
}

/** checkAll: run every check even for bytes validated before (`hookmap check`: its report locates things in the parse). */
export function loadDescriptorFile(path: string, opts: { displayPath?: string; checkAll?: boolean } = {}): LoadResult {
  const display = opts.displayPath ?? (relative(process.cwd(), path) || path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return { errors: [{ code: 'yaml-syntax', file: display, line: 1, col: 1, path: '', message: `cannot read: ${(err as Error).message}` }] };
  }
  const expected = basename(path).replace(/\.ya?ml$/, '');
  // these bytes passed every check of this hookmap before (descriptor-cache.ts): built without the checks
  const known = opts.checkAll ? undefined : validatedValue(text);
  if (known && known.vendor === expected) {
    try {
      const res = compileSource(yamlSourceFrom(display, text, { value: known, positions: [], keyPositions: [], errors: [] }), { trusted: true });
      if (res.descriptor && !res.errors.length) return res;
    } catch {
      // not buildable from the entry: the full compile below says why, if anything is wrong
    }
  }
  const src = parseYamlSource(display, text);
  const res = compileSource(src);
  const vendor = (src.value as { vendor?: unknown } | null)?.vendor;
  if (typeof vendor === 'string' && vendor !== expected) {
    const { line, col } = src.locate(['vendor']);
    res.errors.push({
      code: 'vendor-mismatch',
      file: display,
      line,
      col,
      path: 'vendor',
      message: `vendor '${vendor}' in a file named '${basename(path)}' (rename the file to ${vendor}.yaml, or the vendor to ${expected})`,
    });
    res.descriptor = undefined;
  }
  if (res.descriptor && !res.errors.length) markValidated(text, src.value);
  return res;
}

export function compileDescriptor(file: string, text: string): LoadResult {
  return compileSource(parseYamlSource(file, text));
}

/** Compile an already parsed descriptor file (the one parse of a load). */
export function compileSource(src: YamlSource, opts: { trusted?: boolean } = {}): LoadResult {
  if (src.errors.length) return { errors: src.errors, src };
  // trusted: the bytes passed the schema (and everything else) before
  const problems = opts.trusted ? [] : schemaErrors((reporter ??= new SchemaReporter(DESCRIPTOR_SCHEMA)), DESCRIPTOR_SCHEMA, src.value, src);
  const errors = problems.map((p) => p.error);
  const spec = problems.length ? prune(src.value, problems) : src.value;
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) return { errors, src };
  let descriptor: Descriptor | undefined;
  try {
    // schema-valid (or pruned to its valid parts): the generated type describes it
    descriptor = new DescriptorBuilder(src, spec as HookmapDescriptor, errors, { pruned: errors.length > 0, trusted: opts.trusted }).build();
  } catch (err) {
    // a pruned descriptor may lack what building needs: its schema errors already say why
    if (!errors.length) throw err;
  }
  return errors.length ? { errors, src } : { descriptor, errors, src };
}

/**
 * A copy without the parts the schema rejected: an unknown key is dropped,
 * anything else drops its smallest enclosing unit (an emit, lookup or store
 * item, a hook part, a capability, a var, a command, a top-level block).
 */
type Node = Record<string | number, unknown> | unknown[];
function prune(value: unknown, problems: SchemaProblem[]): unknown {
  const spec = structuredClone(value);
  if (!spec || typeof spec !== 'object') return spec;
  for (const { segs } of problems) {
    if (!segs.length) continue;
    const unit = unitOf(segs);
    const parent = unit.slice(0, -1).reduce<unknown>((o, k) => (o == null ? undefined : (o as Record<string | number, unknown>)[k]), spec) as
      Node | null | undefined;
    if (parent == null || typeof parent !== 'object') continue;
    const last = unit.at(-1)!;
    if (Array.isArray(parent) && typeof last === 'number') parent[last] = null;
    else delete (parent as Record<string | number, unknown>)[last];
  }
  return spec;
}

function unitOf(segs: (string | number)[]): (string | number)[] {
  const [top, name, part, index] = segs;
  if (top === 'hooks' && segs.length >= 3) {
    if ((part === 'emit' || part === 'lookup' || part === 'store') && typeof index === 'number') return segs.slice(0, 4);
    return segs.slice(0, 3);
  }
  if (
    (top === 'hooks' ||
      top === 'capabilities' ||
      top === 'vars' ||
      top === 'commands' ||
      top === 'identity' ||
      top === 'surface' ||
      top === 'setup' ||
      top === 'shim' ||
      top === 'provenance') &&
    name !== undefined
  )
    return segs.slice(0, 2);
  return segs.slice(0, 1);
}
