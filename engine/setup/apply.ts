// `hookmap setup` as plan-then-commit: planSetup computes the new config
// text (and the shims to generate) without touching disk, so `--dry-run`
// prints exactly what a real run would write.
//
// Invariants: only hookmap's own entries are added, rewritten or removed;
// the file is backed up once (`<file>.hookmap.bak`) before our first write;
// a second run changes nothing; `--uninstall` restores the backup's exact
// bytes when nothing but our entries changed since, and deletes a file that
// only we created.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Descriptor } from '../descriptor/types.ts';
import { baseUrl, shimPaths } from '../shim/plan.mjs';
import { writeShims } from '../shim/generate.ts';
import { unifiedDiff } from './diff.ts';
import { expandPath } from './expand.ts';
import { configFormat } from './formats/index.ts';
import { readJsonFile, sameJson, sameJsonIgnoringEmpty, serialize } from './json-file.ts';
import { hookmapMatcher } from './recognize.ts';
import { registrations, type Registration, type ShimKind } from './registrations.ts';
import { checkRequirements } from './requirements.ts';
import { setupSpec, type Scope } from './spec.ts';

export interface SetupOptions { scope: Scope; dir: string; uninstall: boolean; shim: ShimKind; env: NodeJS.ProcessEnv }

export interface SetupPlan {
  agent: string;
  scope: Scope;
  configPath: string;
  uninstall: boolean;
  /** Current text ('' when the file does not exist). */
  before: string;
  /** New text; null deletes the file; equal to `before` when nothing changes. */
  after: string | null;
  changed: boolean;
  backupPath: string;
  /** Set when this run creates the backup. */
  createsBackup: boolean;
  restoresBackup: boolean;
  registrations: Registration[];
  /** Shim files that would be (re)generated. */
  shimChanges: string[];
  notes: string[];
  warnings: string[];
}

export class SetupError extends Error {}

const BIN = fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url));

export function configPathFor(d: Descriptor, scope: Scope, dir: string, env: NodeJS.ProcessEnv): string | undefined {
  const spec = setupSpec(d);
  const template = spec?.scopes[scope];
  if (!template) return undefined;
  return expandPath(template, env, scope === 'project' ? dir : env.HOME || homedir());
}

export function planSetup(d: Descriptor, o: SetupOptions): SetupPlan {
  const spec = setupSpec(d);
  if (!spec) throw new SetupError(`${d.vendor}: its descriptor has no \`setup\` block (nothing to wire)`);
  const configPath = configPathFor(d, o.scope, o.dir, o.env);
  if (!configPath) throw new SetupError(`${d.vendor}: no ${o.scope} config file is known (setup.scopes.${o.scope}); try --${o.scope === 'user' ? 'project' : 'user'}`);
  const format = configFormat(spec.strategy);
  const file = readJsonFile(configPath);
  const ours = hookmapMatcher(d.vendor);
  const backupPath = `${configPath}.hookmap.bak`;
  const plan: SetupPlan = {
    agent: d.vendor,
    scope: o.scope,
    configPath,
    uninstall: o.uninstall,
    before: file.text,
    after: file.text,
    changed: false,
    backupPath,
    createsBackup: false,
    restoresBackup: false,
    registrations: [],
    shimChanges: [],
    notes: [],
    warnings: [],
  };
  if (o.uninstall) {
    const doc = format.remove(file.doc, ours);
    if (sameJson(doc, file.doc)) return plan;
    plan.changed = true;
    const backup = existsSync(backupPath) ? readJsonFile(backupPath) : undefined;
    if (backup && sameJsonIgnoringEmpty(doc, format.remove(backup.doc, ours))) {
      plan.after = backup.text;
      plan.restoresBackup = true;
    } else if (!backup && Object.keys(doc).length === 0) {
      plan.after = null; // no backup: the file did not exist before our first write
    } else {
      plan.after = serialize(doc, file);
    }
    return plan;
  }
  if (d.surface.kind !== 'command-hook' && d.surface.kind !== 'http-hook') {
    throw new SetupError(`${d.vendor}: surface kind '${d.surface.kind}' is wired by installing its ${d.surface.kind}, not by a hook config`);
  }
  const regs = registrations(d, {
    shim: o.shim,
    shPath: shimPaths(d.vendor, o.env).sh,
    nodeCommand: [process.execPath, BIN],
    baseUrl: baseUrl(o.env),
  });
  plan.registrations = regs;
  const doc = format.install(file.doc, regs, ours, { timeoutUnit: spec.timeoutUnit, timeouts: spec.timeouts, matcher: spec.matcher, matcherHooks: spec.matcherHooks, name: spec.name });
  if (regs.some((r) => r.kind === 'command')) plan.shimChanges = writeShims(d, o.env, { dryRun: true }).changed;
  plan.changed = !file.exists || !sameJson(doc, file.doc);
  plan.after = plan.changed ? serialize(doc, file) : file.text;
  plan.createsBackup = plan.changed && file.exists && !existsSync(backupPath);
  plan.notes = spec.notes;
  plan.warnings = checkRequirements(spec, o.env)
    .filter((r) => !r.met)
    .map((r) => `${r.path}: ${r.req.hint}`);
  return plan;
}

/** Writes what planSetup decided: backup first, then shims, then the config (in place: a symlinked config stays a symlink). */
export function commitSetup(d: Descriptor, plan: SetupPlan, env: NodeJS.ProcessEnv): string[] {
  const wrote: string[] = [];
  if (plan.createsBackup) {
    writeFileSync(plan.backupPath, plan.before, { flag: 'wx' });
    wrote.push(plan.backupPath);
  }
  if (!plan.uninstall && plan.registrations.some((r) => r.kind === 'command')) wrote.push(...writeShims(d, env).changed);
  if (plan.changed) {
    if (plan.after === null) rmSync(plan.configPath, { force: true });
    else {
      mkdirSync(dirname(plan.configPath), { recursive: true });
      writeFileSync(plan.configPath, plan.after);
    }
    wrote.push(plan.configPath);
  }
  if (plan.restoresBackup) rmSync(plan.backupPath, { force: true });
  return wrote;
}

export function planDiff(plan: SetupPlan): string {
  return unifiedDiff(plan.before, plan.after ?? '', plan.before === '' && !existsSync(plan.configPath) ? '/dev/null' : plan.configPath, plan.after === null ? '/dev/null' : plan.configPath);
}
