// `hookmap setup` as plan-then-commit: planSetup computes every file change
// (the agent's config, hook scripts, a generated plugin, the shims) without
// touching disk, so `--dry-run` prints exactly what a real run would write.
//
// Invariants, whatever the format: only hookmap's own entries (files) are
// added, rewritten or removed; a config file of the user's is backed up once
// (`<file>.hookmap.bak`) before our first write; a second run changes
// nothing; `--uninstall` restores the backup's exact bytes when nothing but
// our entries changed since, and deletes a file (hook script, plugin) that
// only we created.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Descriptor } from '../descriptor/types.ts';
import { baseUrl, descriptorHash, SHIM_VERSION, shimPaths } from '../shim/plan.mjs';
import { descriptorFile, writeShims } from '../shim/generate.ts';
import { pluginFileName, renderPlugin } from '../shim/plugin/generate.ts';
import { unifiedDiff } from './diff.ts';
import { expandPath } from './expand.ts';
import { configFormat } from './formats/index.ts';
import { pluginStamp } from './formats/plugin-file.ts';
import type { ConfigFormat, DirFiles, Entry, FormatOptions } from './formats/types.ts';
import { readJsonFile, sameJson, sameJsonIgnoringEmpty, serialize } from './json-file.ts';
import { hookmapMatcher } from './recognize.ts';
import { registrations, teeRegistrations, type Registration, type ShimKind } from './registrations.ts';
import { checkRequirements } from './requirements.ts';
import { setupSpec, type Scope, type SetupSpec } from './spec.ts';

export interface SetupOptions {
  scope: Scope; dir: string; uninstall: boolean; shim: ShimKind; env: NodeJS.ProcessEnv;
  /** stdio-tee agents: the agent commands to wrap in `hookmap tee` (each becomes one entry of the editor's config). */
  wrap?: string[];
  /** stdio-tee agents: the entry's display name (default: `<command> (hookmap)`). */
  name?: string;
}

/** One file this run writes (after: text) or deletes (after: null); before null = it does not exist. */
export interface FileChange { path: string; before: string | null; after: string | null; mode?: number }

export interface SetupPlan {
  agent: string;
  scope: Scope;
  /** The config file (or, for a hooks directory, the directory; for a plugin, the plugin file). */
  configPath: string;
  uninstall: boolean;
  /** Current text of the config file ('' when it does not exist; '' for a directory). */
  before: string;
  /** New text; null deletes the file; equal to `before` when nothing changes. */
  after: string | null;
  changed: boolean;
  /** Every file change, the config's included (a directory format lists each hook file). */
  files: FileChange[];
  /** A directory this run removes because our files were all it held. */
  removesDir?: string;
  backupPath: string;
  /** Set when this run creates the backup. */
  createsBackup: boolean;
  restoresBackup: boolean;
  registrations: Registration[];
  /** A generated plugin/extension file this run installs (plugin-file). */
  plugin?: string;
  /** Shim files that would be (re)generated. */
  shimChanges: string[];
  notes: string[];
  warnings: string[];
}

export class SetupError extends Error {}

const BIN = fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url));

/** The path a scope's template names (a file, or a directory for dir/plugin formats). */
function scopePath(d: Descriptor, spec: SetupSpec, scope: Scope, dir: string, env: NodeJS.ProcessEnv): string | undefined {
  const template = spec.scopes[scope];
  if (!template) return undefined;
  return expandPath(template, env, scope === 'project' ? dir : env.HOME || homedir());
}

export function configPathFor(d: Descriptor, scope: Scope, dir: string, env: NodeJS.ProcessEnv): string | undefined {
  const spec = setupSpec(d);
  if (!spec) return undefined;
  const p = scopePath(d, spec, scope, dir, env);
  if (!p) return undefined;
  const format = configFormat(spec.strategy);
  // An owned format writes one generated file INTO the scope's directory.
  return format.kind === 'text' && format.owned ? join(p, pluginFileName(d)) : p;
}

/** The generated plugin with its stamp line (agent + descriptor hash) first. */
export function stampedPlugin(d: Descriptor): string {
  return `${pluginStamp(d.vendor, descriptorHash(readFileSync(descriptorFile(d))), SHIM_VERSION)}\n${renderPlugin(d)}`;
}

export function formatOptions(d: Descriptor, spec: SetupSpec, withArtifact = false): FormatOptions {
  return {
    agent: d.vendor,
    timeoutUnit: spec.timeoutUnit,
    timeouts: spec.timeouts,
    matcher: spec.matcher,
    matcherHooks: spec.matcherHooks,
    name: spec.name,
    fields: spec.fields,
    defaults: spec.defaults,
    entry: spec.entry,
    fileNames: spec.fileNames,
    artifact: withArtifact ? stampedPlugin(d) : undefined,
  };
}

const readText = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : null);

export function readDir(p: string): DirFiles {
  const out: DirFiles = new Map();
  if (!existsSync(p)) return out;
  if (!statSync(p).isDirectory()) throw new SetupError(`${p} is not a directory`);
  for (const e of readdirSync(p, { withFileTypes: true })) if (e.isFile()) out.set(e.name, readFileSync(join(p, e.name), 'utf8'));
  return out;
}

/** Every handler of the agent's config at `path`, in the format's view (doctor). */
export function readEntries(format: ConfigFormat, path: string, opts: FormatOptions): Entry[] {
  if (format.kind === 'json') return format.entries(readJsonFile(path).doc);
  if (format.kind === 'text') return format.entries(readText(path) ?? '', opts);
  return format.entries(readDir(path), opts);
}

function newPlan(d: Descriptor, o: SetupOptions, configPath: string, before: string): SetupPlan {
  return {
    agent: d.vendor,
    scope: o.scope,
    configPath,
    uninstall: o.uninstall,
    before,
    after: before,
    changed: false,
    files: [],
    backupPath: `${configPath}.hookmap.bak`,
    createsBackup: false,
    restoresBackup: false,
    registrations: [],
    shimChanges: [],
    notes: [],
    warnings: [],
  };
}

export function planSetup(d: Descriptor, o: SetupOptions): SetupPlan {
  const spec = setupSpec(d);
  if (!spec) throw new SetupError(`${d.vendor}: its descriptor has no \`setup\` block (nothing to wire)`);
  const configPath = configPathFor(d, o.scope, o.dir, o.env);
  if (!configPath) throw new SetupError(`${d.vendor}: no ${o.scope} config is known (setup.scopes.${o.scope}); try --${o.scope === 'user' ? 'project' : 'user'}`);
  const format = configFormat(spec.strategy);
  const owned = format.kind === 'text' && !!format.owned;
  const ours = hookmapMatcher(d.vendor);
  const opts = formatOptions(d, spec, owned && !o.uninstall);
  let regs: Registration[] = [];
  if (!o.uninstall && d.surface.kind === 'stdio-tee') {
    if (!o.wrap?.length) throw new SetupError(`${d.vendor}: a stdio-tee agent is wired by wrapping the agent command the editor starts: pass --wrap "<agent command>" (e.g. --wrap "my-agent --acp")`);
    try {
      regs = teeRegistrations(d, o.wrap, o.name, [process.execPath, BIN]);
    } catch (e) {
      throw new SetupError(`${d.vendor}: ${(e as Error).message}`);
    }
  } else if (!o.uninstall && !owned) {
    if (d.surface.kind !== 'command-hook' && d.surface.kind !== 'http-hook') {
      throw new SetupError(`${d.vendor}: surface kind '${d.surface.kind}' is wired by installing its ${d.surface.kind}, not by a hook config`);
    }
    regs = registrations(d, { shim: o.shim, shPath: shimPaths(d.vendor, o.env).sh, nodeCommand: [process.execPath, BIN], baseUrl: baseUrl(o.env) });
  }

  let plan: SetupPlan;
  if (format.kind === 'dir') plan = planDir(d, o, configPath, format, regs, ours, opts);
  else if (format.kind === 'text') plan = planText(d, o, configPath, format, regs, ours, opts);
  else plan = planJson(d, o, configPath, format, regs, ours, opts);
  if (o.uninstall) return plan;
  plan.registrations = regs;
  if (owned) plan.plugin = configPath;
  if (regs.some((r) => r.kind === 'command') && d.surface.kind !== 'stdio-tee') plan.shimChanges = writeShims(d, o.env, { dryRun: true }).changed;
  plan.notes = spec.notes;
  plan.warnings = checkRequirements(spec, o.env)
    .filter((r) => !r.met)
    .map((r) => `${r.path}: ${r.req.hint}`);
  return plan;
}

function finish(plan: SetupPlan, exists: boolean): SetupPlan {
  plan.changed = plan.after !== plan.before || (plan.after !== null && !exists);
  if (plan.changed) plan.files = [{ path: plan.configPath, before: exists ? plan.before : null, after: plan.after }];
  return plan;
}

function planJson(d: Descriptor, o: SetupOptions, configPath: string, format: Extract<ConfigFormat, { kind: 'json' }>, regs: Registration[], ours: ReturnType<typeof hookmapMatcher>, opts: FormatOptions): SetupPlan {
  const file = readJsonFile(configPath);
  const plan = newPlan(d, o, configPath, file.text);
  if (o.uninstall) {
    const doc = format.remove(file.doc, ours, opts);
    if (sameJson(doc, file.doc)) return plan;
    const backup = existsSync(plan.backupPath) ? readJsonFile(plan.backupPath) : undefined;
    if (backup && sameJsonIgnoringEmpty(doc, format.remove(backup.doc, ours, opts))) {
      plan.after = backup.text;
      plan.restoresBackup = true;
    } else if (!backup && Object.keys(doc).length === 0) {
      plan.after = null; // no backup: the file did not exist before our first write
    } else {
      plan.after = serialize(doc, file);
    }
    return finish(plan, file.exists);
  }
  const doc = format.install(file.doc, regs, ours, opts);
  const changed = !file.exists || !sameJson(doc, file.doc);
  plan.after = changed ? serialize(doc, file) : file.text;
  // the backup is the user's file before our FIRST write: one that already holds our entries is not it
  const pristine = sameJson(format.remove(file.doc, ours, opts), file.doc);
  plan.createsBackup = changed && file.exists && pristine && !existsSync(plan.backupPath);
  finish(plan, file.exists);
  plan.changed = changed;
  return plan;
}

function planText(d: Descriptor, o: SetupOptions, configPath: string, format: Extract<ConfigFormat, { kind: 'text' }>, regs: Registration[], ours: ReturnType<typeof hookmapMatcher>, opts: FormatOptions): SetupPlan {
  const current = readText(configPath);
  const exists = current !== null;
  const text = current ?? '';
  const plan = newPlan(d, o, configPath, text);
  const canon = format.canonical ?? ((t: string) => t);
  const empty = format.empty ?? ((t: string) => t.trim() === '');
  if (o.uninstall) {
    if (!exists) return plan;
    const after = format.remove(text, ours, opts);
    if (after === text) return plan;
    const backup = !format.owned && existsSync(plan.backupPath) ? readFileSync(plan.backupPath, 'utf8') : undefined;
    if (format.owned) plan.after = null;
    else if (backup !== undefined && canon(after) === canon(format.remove(backup, ours, opts))) {
      plan.after = backup;
      plan.restoresBackup = true;
    } else if (backup === undefined && empty(after)) plan.after = null;
    else plan.after = after;
    return finish(plan, exists);
  }
  plan.after = format.install(text, regs, ours, opts);
  finish(plan, exists);
  // the backup is the user's file before our FIRST write: one that already holds our entries is not it
  const pristine = format.owned || format.remove(text, ours, opts) === text;
  plan.createsBackup = plan.changed && exists && !format.owned && pristine && !existsSync(plan.backupPath);
  return plan;
}

function planDir(d: Descriptor, o: SetupOptions, dirPath: string, format: Extract<ConfigFormat, { kind: 'dir' }>, regs: Registration[], ours: ReturnType<typeof hookmapMatcher>, opts: FormatOptions): SetupPlan {
  const files = readDir(dirPath);
  const plan = newPlan(d, o, dirPath, '');
  plan.backupPath = '';
  const next = o.uninstall ? format.remove(files, ours, opts) : format.install(files, regs, ours, opts);
  for (const [name, text] of files) {
    if (!next.has(name)) plan.files.push({ path: join(dirPath, name), before: text, after: null });
  }
  for (const [name, text] of next) {
    const prev = files.get(name);
    if (prev !== text) plan.files.push({ path: join(dirPath, name), before: prev ?? null, after: text, mode: format.mode });
  }
  plan.changed = plan.files.length > 0;
  if (o.uninstall && plan.changed && next.size === 0 && readdirSync(dirPath).length === files.size) plan.removesDir = dirPath;
  return plan;
}

/** Writes what planSetup decided: backup first, then shims, then the files (in place: a symlinked config stays a symlink). */
export function commitSetup(d: Descriptor, plan: SetupPlan, env: NodeJS.ProcessEnv): string[] {
  const wrote: string[] = [];
  if (plan.createsBackup) {
    writeFileSync(plan.backupPath, plan.before, { flag: 'wx' });
    wrote.push(plan.backupPath);
  }
  if (!plan.uninstall && d.surface.kind !== 'stdio-tee' && plan.registrations.some((r) => r.kind === 'command')) wrote.push(...writeShims(d, env).changed);
  for (const f of plan.files) {
    if (f.after === null) rmSync(f.path, { force: true });
    else {
      mkdirSync(dirname(f.path), { recursive: true });
      writeFileSync(f.path, f.after, f.mode !== undefined ? { mode: f.mode } : undefined);
      if (f.mode !== undefined) chmodSync(f.path, f.mode);
    }
    wrote.push(f.path);
  }
  if (plan.removesDir) {
    try {
      rmdirSync(plan.removesDir); // only succeeds when empty
    } catch {
      // something else appeared in it: it stays
    }
  }
  if (plan.restoresBackup) rmSync(plan.backupPath, { force: true });
  return wrote;
}

export function planDiff(plan: SetupPlan): string {
  return plan.files
    .map((f) => unifiedDiff(f.before ?? '', f.after ?? '', f.before === null ? '/dev/null' : f.path, f.after === null ? '/dev/null' : f.path))
    .join('');
}
