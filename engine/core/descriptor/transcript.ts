// The descriptor's `transcript`: a usage source read from the agent's own
// transcript/rollout file (docs/usage.md). Every expression is compiled once
// at the `transcript` position; folders are literal paths or expressions.
import type { HookmapDescriptor } from '../generated/descriptor-types.ts';

type Transcript = NonNullable<HookmapDescriptor['transcript']>;
import type { Expr } from '../expr/compile.ts';
import type { Expressions, Site } from './expressions.ts';
import type { CompiledImport, CompiledTranscript } from './transcript-types.ts';
import { compileLimitRule } from './waiting.ts';

export const DEFAULT_TRANSCRIPT_MAX_BYTES = 8 * 1024 * 1024;
export const DEFAULT_TRANSCRIPT_MAX_LINE = 1024 * 1024;
export const DEFAULT_IMPORT_MAX_FILE = 128 * 1024 * 1024;
export const DEFAULT_IMPORT_MAX_FILES = 10_000;

/** A file-name glob (`*` only; the schema allows letters, digits, `.`, `_`, `-`) as a whole-name pattern. */
export function fileGlob(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
}

function compileImport(x: Expressions, t: Transcript['import'], site: Site): CompiledImport | undefined {
  if (!t) return undefined;
  const p = ['transcript', 'import'];
  const session = x.expr(t.session, [...p, 'session'], site);
  if (!session) return undefined;
  return {
    files: fileGlob(t.files),
    session,
    time: x.expr(t.time, [...p, 'time'], site),
    cwd: x.expr(t.cwd, [...p, 'cwd'], site),
    run: x.expr(t.run, [...p, 'run'], site),
    tools: x.expr(t.tools, [...p, 'tools'], site),
    results: x.expr(t.results, [...p, 'results'], site),
    maxFileBytes: t.max_file_bytes ?? DEFAULT_IMPORT_MAX_FILE,
    maxFiles: t.max_files ?? DEFAULT_IMPORT_MAX_FILES,
  };
}

export function compileTranscript(x: Expressions, t: Transcript | undefined, hooks: ReadonlySet<string>, pruned = false): CompiledTranscript | undefined {
  if (!t) return undefined;
  const site: Site = { position: 'transcript', names: [] };
  const p = ['transcript'];
  const folders = (t.folders ?? []).map((f, i): string | Expr | undefined => (f.startsWith('=') ? x.expr(f, [...p, 'folders', i], site) : f));
  if (!pruned) {
    (t.read_on ?? []).forEach((h, i) => {
      if (!hooks.has(h)) x.err('unknown-reference', [...p, 'read_on', i], `transcript.read_on names '${h}', which is not one of this descriptor's hooks`);
    });
  }
  const path = x.expr(t.path, [...p, 'path'], site);
  const usage = x.expr(t.line?.usage, [...p, 'line', 'usage'], site);
  if (!path || !usage) return undefined;
  return {
    path,
    part: x.expr(t.part, [...p, 'part'], site),
    folders: folders.filter((f): f is string | Expr => f !== undefined),
    readOn: new Set(t.read_on ?? []),
    maxBytes: t.max_bytes ?? DEFAULT_TRANSCRIPT_MAX_BYTES,
    maxLineBytes: t.max_line_bytes ?? DEFAULT_TRANSCRIPT_MAX_LINE,
    when: x.expr(t.line?.when, [...p, 'line', 'when'], site),
    id: x.expr(t.line?.id, [...p, 'line', 'id'], site),
    model: x.expr(t.line?.model, [...p, 'line', 'model'], site),
    usage,
    limits: (t.limits ?? []).map((l, i) => compileLimitRule(x, l, [...p, 'limits', i], site)),
    import: compileImport(x, t.import, site),
  };
}
