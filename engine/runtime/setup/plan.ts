// The plan of one `hookmap setup` run (what apply.ts computes and commits)
// and the planners per storage kind (a JSON document, a text file, a
// directory of files): each computes the file changes of one config without
// touching disk, keeping apply.ts's invariants (only hookmap's entries change,
// one backup before our first write, uninstall restores the exact bytes when
// nothing else changed).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Descriptor } from '../../core/descriptor/types.ts';
import type { ConfigFormat, DirFiles, FormatOptions } from './formats/types.ts';
import { readJsonFile, sameJson, sameJsonIgnoringEmpty, serialize } from './json-file.ts';
import type { Handler } from './recognize.ts';
import type { Registration, ShimKind } from './registrations.ts';
import type { Scope } from './spec.ts';
import type { Target } from '../../core/io/target.ts';

export interface SetupOptions {
  scope: Scope;
  dir: string;
  uninstall: boolean;
  shim: ShimKind;
  /** The machine it wires (engine/core/io/target.ts): the user's home, hookmap's home and address, the path variables. */
  target: Target;
  /** stdio-tee agents: the agent commands to wrap in `hookmap tee` (each becomes one entry of the editor's config). */
  wrap?: string[];
  /** stdio-tee agents: the entry's display name (default: `<command> (hookmap)`). */
  name?: string;
  /** Also register (uninstall: remove) the hookmap MCP server in the agent's MCP config (setup.mcp). */
  mcp?: boolean;
}

/** One file this run writes (after: text) or deletes (after: null); before null = it does not exist. */
export interface FileChange {
  path: string;
  before: string | null;
  after: string | null;
  mode?: number;
}

export interface SetupPlan {
  agent: string;
  /** The home's hook key the wiring presents (created by the commit when the home has none). */
  hookKey?: string;
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
  /** `--mcp`: the hookmap MCP server's registration (its file's change is also in `files`). */
  mcp?: McpPlan;
}

export interface McpPlan {
  path: string;
  /** The server name and what it runs. */
  name: string;
  argv: string[];
  changed: boolean;
  /** The MCP config is the hook config file itself (one change holds both). */
  sameFile: boolean;
  backupPath: string;
  createsBackup: boolean;
  restoresBackup: boolean;
  notes: string[];
}

export class SetupError extends Error {}

export const readText = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : null);

type Ours = (h: Handler) => boolean;

export function readDir(p: string): DirFiles {
  const out: DirFiles = new Map();
  if (!existsSync(p)) return out;
  if (!statSync(p).isDirectory()) throw new SetupError(`${p} is not a directory`);
  for (const e of readdirSync(p, { withFileTypes: true })) if (e.isFile()) out.set(e.name, readFileSync(join(p, e.name), 'utf8'));
  return out;
}

export function newPlan(d: Descriptor, o: SetupOptions, configPath: string, before: string): SetupPlan {
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

export function finish(plan: SetupPlan, exists: boolean): SetupPlan {
  plan.changed = plan.after !== plan.before || (plan.after !== null && !exists);
  if (plan.changed) plan.files = [{ path: plan.configPath, before: exists ? plan.before : null, after: plan.after }];
  return plan;
}

export function planJson(
  d: Descriptor,
  o: SetupOptions,
  configPath: string,
  format: Extract<ConfigFormat, { kind: 'json' }>,
  regs: Registration[],
  ours: Ours,
  opts: FormatOptions,
): SetupPlan {
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

export function planText(
  d: Descriptor,
  o: SetupOptions,
  configPath: string,
  format: Extract<ConfigFormat, { kind: 'text' }>,
  regs: Registration[],
  ours: Ours,
  opts: FormatOptions,
): SetupPlan {
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

export function planDir(
  d: Descriptor,
  o: SetupOptions,
  dirPath: string,
  format: Extract<ConfigFormat, { kind: 'dir' }>,
  regs: Registration[],
  ours: Ours,
  opts: FormatOptions,
): SetupPlan {
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
