// `hookmap setup --mcp` inside a setup plan: where the agent's MCP config is
// for this run's scope (the descriptor's setup.mcp), and the registration's
// file change folded into the plan: its own planned file (with its own
// backup), or, when the MCP config IS the hook config, one change of that
// file holding both (engine/runtime/setup/mcp.ts writes the entry).
import { existsSync } from 'node:fs';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { expandPath } from './expand.ts';
import { FormatError, type FormatOptions } from './formats/types.ts';
import { mcpArgv, mcpEntry, mcpFormat } from './mcp.ts';
import { planText, readText, SetupError, type McpPlan, type SetupOptions, type SetupPlan } from './plan.ts';
import type { SetupSpec } from './spec.ts';

/** Where `setup.mcp` puts the agent's MCP config for this run's scope. */
function mcpPath(d: Descriptor, o: SetupOptions, spec: SetupSpec): string {
  const m = spec.mcp;
  if (!m)
    throw new SetupError(
      `${d.vendor}: its MCP config is not known (no setup.mcp in its descriptor): register \`hookmap mcp --agent ${d.vendor}\` in the agent by hand`,
    );
  const template = m.scopes[o.scope];
  if (!template)
    throw new SetupError(`${d.vendor}: no ${o.scope} MCP config is known (setup.mcp.scopes.${o.scope}); try --${o.scope === 'user' ? 'project' : 'user'}`);
  return expandPath(template, o.target, o.scope === 'project' ? o.dir : o.target.userHome);
}

/** The MCP config still holding our server (uninstall without --mcp says so), else undefined. */
export function mcpLeft(d: Descriptor, o: SetupOptions, spec: SetupSpec, opts: FormatOptions): string | undefined {
  try {
    const path = mcpPath(d, o, spec);
    const text = readText(path);
    if (text === null) return undefined;
    const format = mcpFormat(d, spec.mcp!, {});
    return format.remove(text, () => false, opts) !== text ? path : undefined;
  } catch {
    return undefined;
  }
}

/** `--mcp`: plan the MCP server's registration (or removal) and fold it into the plan. */
export function addMcp(d: Descriptor, o: SetupOptions, spec: SetupSpec, plan: SetupPlan, opts: FormatOptions, launcher: string[]): void {
  const m = spec.mcp!;
  const path = mcpPath(d, o, spec);
  const argv = mcpArgv(d.vendor, launcher, o.target);
  const format = mcpFormat(d, m, mcpEntry(m, argv, o.target));
  const none = () => false;
  const fail = (e: unknown): never => {
    if (e instanceof FormatError) throw new SetupError(`${path}: ${e.message}`);
    throw e;
  };
  const mp: McpPlan = {
    path,
    name: m.name,
    argv,
    changed: false,
    sameFile: path === plan.configPath,
    backupPath: `${path}.hookmap.bak`,
    createsBackup: false,
    restoresBackup: false,
    notes: o.uninstall ? [] : m.notes,
  };
  plan.mcp = mp;
  if (mp.sameFile) {
    // one file holds hooks and servers: the MCP edit applies to what the hook plan leaves
    if (plan.after === null && o.uninstall) return;
    const exists = existsSync(path);
    let next: string | null;
    try {
      const base = plan.after ?? '';
      next = o.uninstall ? format.remove(base, none, opts) : format.install(base, [], none, opts);
      if (o.uninstall && !plan.restoresBackup && !existsSync(plan.backupPath) && format.empty!(next)) next = null;
    } catch (e) {
      return fail(e);
    }
    mp.changed = next !== plan.after;
    plan.after = next;
    plan.changed = next !== plan.before || (next !== null && !exists);
    plan.files = plan.changed ? [{ path, before: exists ? plan.before : null, after: next }] : [];
    if (!plan.changed) plan.createsBackup = false;
    return;
  }
  let sub: SetupPlan;
  try {
    sub = planText(d, o, path, format, [], none, opts);
  } catch (e) {
    return fail(e);
  }
  mp.changed = sub.changed;
  mp.createsBackup = sub.createsBackup;
  mp.restoresBackup = sub.restoresBackup;
  if (sub.changed) {
    plan.files.push(...sub.files);
    plan.changed = true;
  }
}
