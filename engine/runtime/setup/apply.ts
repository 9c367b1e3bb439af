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
import { ensureHookKey, hookKeyPath, newHookKey, readHookKey } from '../auth/hook-key.mjs';
import { mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { descriptorHash, SHIM_VERSION, shimPaths } from '../shim/plan.mjs';
import type { Target } from '../../core/io/target.ts';
import { LAUNCHER as LAUNCHER_FILE, writeLauncher } from '../shim/autostart.mjs';
import { hookmapVersion } from '../../core/io/version.ts';
import { descriptorFile, writeShims } from '../shim/generate.ts';
import { pluginFileName, renderPlugin } from '../shim/plugin/generate.ts';
import { unifiedDiff } from '../../core/text/diff.ts';
import { expandPath } from './expand.ts';
import { configFormat } from './formats/index.ts';
import { pluginStamp } from './formats/plugin-file.ts';
import type { ConfigFormat, Entry, FormatOptions } from './formats/types.ts';
import { readJsonFile } from './json-file.ts';
import { hookmapMatcher } from './recognize.ts';
import { registrations, teeRegistrations, type Registration } from './registrations.ts';
import { checkRequirements } from './requirements.ts';
import { addMcp, mcpLeft } from './mcp-plan.ts';
import { planDir, planJson, planText, readDir, readText, SetupError, type SetupOptions, type SetupPlan } from './plan.ts';
import { setupSpec, type Scope, type SetupSpec } from './spec.ts';

export { readDir, SetupError } from './plan.ts';
export type { FileChange, McpPlan, SetupOptions, SetupPlan } from './plan.ts';

/**
 * The command line setup writes into agents' configs (the Node shim, the
 * tee, the MCP server): the launcher $HOOKMAP_HOME/bin/hookmap, the one the
 * sh shims start `up` through. It runs this Node and this hookmap, `hookmap
 * up` and `setup` rewrite it after an upgrade or a move (and when what it
 * names is gone it runs the `hookmap` on PATH), so a registration naming it
 * outlives the checkout or package path it was set up from.
 */
export function launcherArgv(t: Pick<Target, 'home'>): string[] {
  return [join(t.home, LAUNCHER_FILE)];
}

/** The path a scope's template names (a file, or a directory for dir/plugin formats). */
function scopePath(d: Descriptor, spec: SetupSpec, scope: Scope, dir: string, t: Target): string | undefined {
  const template = spec.scopes[scope];
  if (!template) return undefined;
  return expandPath(template, t, scope === 'project' ? dir : t.userHome);
}

export function configPathFor(d: Descriptor, scope: Scope, dir: string, t: Target): string | undefined {
  const spec = setupSpec(d);
  if (!spec) return undefined;
  const p = scopePath(d, spec, scope, dir, t);
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
    handler: spec.handler,
    entry: spec.entry,
    fileNames: spec.fileNames,
    artifact: withArtifact ? stampedPlugin(d) : undefined,
  };
}

/** Every handler of the agent's config at `path`, in the format's view (doctor). */
export function readEntries(format: ConfigFormat, path: string, opts: FormatOptions): Entry[] {
  if (format.kind === 'json') return format.entries(readJsonFile(path).doc);
  if (format.kind === 'text') return format.entries(readText(path) ?? '', opts);
  return format.entries(readDir(path), opts);
}

export function planSetup(d: Descriptor, o: SetupOptions): SetupPlan {
  const spec = setupSpec(d);
  if (!spec) throw new SetupError(`${d.vendor}: its descriptor has no \`setup\` block (nothing to wire)`);
  const configPath = configPathFor(d, o.scope, o.dir, o.target);
  if (!configPath)
    throw new SetupError(`${d.vendor}: no ${o.scope} config is known (setup.scopes.${o.scope}); try --${o.scope === 'user' ? 'project' : 'user'}`);
  const format = configFormat(spec.strategy);
  const owned = format.kind === 'text' && !!format.owned;
  const ours = hookmapMatcher(d.vendor, spec.handler.recognize);
  const opts = formatOptions(d, spec, owned && !o.uninstall);
  // the home's hook key (engine/runtime/auth/hook-key.mjs): the one there, or the one the commit will create (a dry run writes nothing)
  const hookKey = readHookKey(o.target.home) ?? newHookKey();
  let regs: Registration[] = [];
  if (!o.uninstall && d.surface.kind === 'stdio-tee') {
    if (!o.wrap?.length)
      throw new SetupError(
        `${d.vendor}: a stdio-tee agent is wired by wrapping the agent command the editor starts: pass --wrap "<agent command>" (e.g. --wrap "my-agent --acp")`,
      );
    try {
      regs = teeRegistrations(d, o.wrap, o.name, launcherArgv(o.target));
    } catch (e) {
      throw new SetupError(`${d.vendor}: ${(e as Error).message}`);
    }
  } else if (!o.uninstall && !owned) {
    if (d.surface.kind !== 'command-hook' && d.surface.kind !== 'http-hook') {
      throw new SetupError(`${d.vendor}: surface kind '${d.surface.kind}' is wired by installing its ${d.surface.kind}, not by a hook config`);
    }
    regs = registrations(d, {
      shim: o.shim,
      shPath: shimPaths(d.vendor, o.target.home).sh,
      nodeCommand: launcherArgv(o.target),
      baseUrl: o.target.url,
      hookKey: o.scope === 'user' ? hookKey : undefined, // a project's config may be committed: its native HTTP hooks run the shim
    });
  }

  let plan: SetupPlan;
  if (format.kind === 'dir') plan = planDir(d, o, configPath, format, regs, ours, opts);
  else if (format.kind === 'text') plan = planText(d, o, configPath, format, regs, ours, opts);
  else plan = planJson(d, o, configPath, format, regs, ours, opts);
  if (o.mcp) addMcp(d, o, spec, plan, opts, launcherArgv(o.target));
  else if (o.uninstall && spec.mcp) {
    // uninstall without --mcp leaves the MCP registration; say so when there is one
    const left = mcpLeft(d, o, spec, opts);
    if (left) plan.warnings.push(`the hookmap MCP server stays registered in ${left}: \`hookmap setup ${d.vendor} --uninstall --mcp\` removes it`);
  }
  if (o.uninstall) return plan;
  plan.registrations = regs;
  plan.hookKey = hookKey;
  if (owned) plan.plugin = configPath;
  if (regs.some((r) => r.kind === 'command') && d.surface.kind !== 'stdio-tee') plan.shimChanges = writeShims(d, o.target, { dryRun: true }).changed;
  plan.notes = [...spec.notes, ...(plan.mcp?.notes ?? [])];
  plan.warnings = checkRequirements(spec, o.target)
    .filter((r) => !r.met)
    .map((r) => `${r.path}: ${r.req.hint}`);
  return plan;
}

/** Writes what planSetup decided: backup first, then shims, then the files (in place: a symlinked config stays a symlink). */
export function commitSetup(d: Descriptor, plan: SetupPlan, t: Target): string[] {
  const wrote: string[] = [];
  // every wiring presents the home's key: there before the agent's first hook
  if (!plan.uninstall && plan.hookKey && ensureHookKey(t.home, plan.hookKey).created) wrote.push(hookKeyPath(t.home));
  if (plan.createsBackup) {
    writeFileSync(plan.backupPath, plan.before, { flag: 'wx' });
    wrote.push(plan.backupPath);
  }
  if (plan.mcp?.createsBackup) {
    writeFileSync(plan.mcp.backupPath, readFileSync(plan.mcp.path, 'utf8'), { flag: 'wx' });
    wrote.push(plan.mcp.backupPath);
  }
  if (!plan.uninstall && d.surface.kind !== 'stdio-tee' && plan.registrations.some((r) => r.kind === 'command')) wrote.push(...writeShims(d, t).changed);
  // what the Node shim, tee and MCP registrations run (launcherArgv): there before the agent first runs them
  const launcher = launcherArgv(t)[0];
  if (!plan.uninstall && (plan.mcp || plan.registrations.some((r) => r.kind === 'command' && r.target.includes(launcher))))
    writeLauncher(t.home, hookmapVersion());
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
  if (plan.mcp?.restoresBackup) rmSync(plan.mcp.backupPath, { force: true });
  return wrote;
}

/** The plan's changes as a unified diff; the hook key a native HTTP hook carries is shown masked (a diff gets pasted). */
export function planDiff(plan: SetupPlan): string {
  const text = plan.files
    .map((f) => unifiedDiff(f.before ?? '', f.after ?? '', f.before === null ? '/dev/null' : f.path, f.after === null ? '/dev/null' : f.path, 2))
    .join('');
  return plan.hookKey ? text.split(plan.hookKey).join('[hook key]') : text;
}
