// `hookmap setup <agent> [--user | --project] [--dir D] [--uninstall] [--dry-run] [--shim sh|node]`:
// merges hookmap's hook entries into the agent's own hook config (the file
// and format its descriptor's `setup` block names). A stdio-tee agent is
// wired in its EDITOR's config instead: `--wrap "<agent command>"` adds an
// agent entry that runs `hookmap tee <agent> -- <agent command>` (`--name`
// names it as the editor lists it). `--mcp` also registers `hookmap mcp
// --agent <agent>` (ask_human, emit_event) in the agent's own MCP config
// (the descriptor's setup.mcp; engine/runtime/setup/mcp.ts); with --uninstall it
// removes that entry too. Exit 0 done or nothing to do, 1 refused
// (unparseable config, no setup known, a foreign server of our name), 2 usage.
import { resolve } from 'node:path';
import { loadVendor } from '../../core/descriptor/registry.ts';
import { DescriptorLoadError } from '../../core/descriptor/errors.ts';
import { commitSetup, planDiff, planSetup, SetupError } from '../../runtime/setup/apply.ts';
import { ConfigParseError } from '../../runtime/setup/json-file.ts';
import { setupSpec } from '../../runtime/setup/spec.ts';
import { forgetWiring, recordWiring } from '../../runtime/setup/wirings.ts';
import { FormatError } from '../../runtime/setup/formats/types.ts';
import type { ShimKind } from '../../runtime/setup/registrations.ts';
import { shimPaths } from '../../runtime/shim/plan.mjs';
import { resolveTarget } from '../config.ts';
import { ArgError, parseArgs } from '../args.ts';
import { setupOtel } from './setup-otel.ts';
import { join } from 'node:path';
import type { Descriptor } from '../../core/descriptor/types.ts';
import type { SetupPlan } from '../../runtime/setup/plan.ts';
import { autostartEnabled, OFF_FILE, setAutostart, UP_LOG, writeLauncher } from '../../runtime/shim/autostart.mjs';
import { hookmapVersion } from '../../core/io/version.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';

const USAGE =
  'usage: hookmap setup <agent> [--user | --project] [--dir D] [--mcp] [--otel] [--uninstall] ' +
  '[--dry-run] [--shim sh|node] [--no-autostart | --autostart] [--wrap "<agent command>" ' +
  '[--name N]]';

/**
 * Start on demand (engine/runtime/shim/autostart.mjs): the launcher the shims start
 * `up` through, the opt-out, and the line that says which it is.
 */
function autostartSetup(d: Descriptor, plan: SetupPlan, flags: Record<string, unknown>, home: string, url: string): string | undefined {
  if (d.surface.kind === 'stdio-tee' || d.surface.kind === 'stream-subscriber') return undefined;
  writeLauncher(home, hookmapVersion());
  if (flags['no-autostart']) setAutostart(home, false);
  else if (flags.autostart) setAutostart(home, true);
  const shimmed = !!plan.plugin || plan.registrations.some((r) => r.kind === 'command');
  if (!shimmed)
    return `autostart: not for ${d.vendor}: its hooks POST straight to the daemon (no shim to start it); keep hookmap up running (hookmap service install)`;
  if (!autostartEnabled(home)) return `autostart: off (${join(home, OFF_FILE)}; --autostart turns it back on)`;
  return (
    `autostart: on: a hook that finds no hookmap up at ${url} starts one in the background ` +
    `(log: ${join(home, UP_LOG)}; off: --no-autostart, or HOOKMAP_AUTOSTART=0 in the agent's ` +
    `environment)`
  );
}

export async function run(argv: string[], config?: RuntimeConfig): Promise<number> {
  let agent: string;
  let flags: Record<string, unknown>;
  try {
    const p = parseArgs(argv, {
      user: { type: 'boolean' },
      project: { type: 'boolean' },
      dir: { type: 'string' },
      uninstall: { type: 'boolean' },
      'dry-run': { type: 'boolean', short: 'n' },
      shim: { type: 'string' },
      wrap: { type: 'string', multiple: true },
      name: { type: 'string' },
      mcp: { type: 'boolean' },
      otel: { type: 'boolean' },
      autostart: { type: 'boolean' },
      'no-autostart': { type: 'boolean' },
    });
    flags = p.flags;
    if (p.positionals.length !== 1) throw new ArgError(USAGE);
    if (flags.user && flags.project) throw new ArgError('--user and --project are exclusive');
    if (flags.autostart && flags['no-autostart']) throw new ArgError('--autostart and --no-autostart are exclusive');
    if (flags.shim !== undefined && flags.shim !== 'sh' && flags.shim !== 'node') throw new ArgError('--shim must be sh or node');
    if (flags.dir !== undefined && !flags.project) throw new ArgError('--dir names the project: use it with --project');
    agent = p.positionals[0];
  } catch (err) {
    process.stderr.write(`hookmap setup: ${(err as Error).message}\n`);
    return 2;
  }
  const out = (s = '') => process.stdout.write(`${s}\n`);
  try {
    const d = loadVendor(agent);
    const target = resolveTarget(process.env);
    if (flags.otel)
      return setupOtel(d, {
        uninstall: !!flags.uninstall,
        dryRun: !!flags['dry-run'],
        url: config?.url ?? target.url,
        target,
        dir: (flags.dir as string | undefined) ?? process.cwd(),
        out,
      });
    const plan = planSetup(d, {
      scope: flags.project ? 'project' : flags.user ? 'user' : (setupSpec(d)?.defaultScope ?? 'user'),
      dir: (flags.dir as string | undefined) ?? process.cwd(),
      uninstall: !!flags.uninstall,
      shim: (flags.shim as ShimKind | undefined) ?? 'sh',
      target,
      wrap: flags.wrap as string[] | undefined,
      name: flags.name as string | undefined,
      mcp: !!flags.mcp,
    });
    const where = `${plan.configPath} (${plan.scope})`;
    const tee = d.surface.kind === 'stdio-tee';
    const what = plan.plugin
      ? 'the generated plugin'
      : tee
        ? plan.registrations.map((r) => `"${r.hook}"`).join(', ') || 'its agent entries'
        : `${plan.registrations.length} hooks`;
    const mcp = plan.mcp;
    const server = mcp && `the hookmap MCP server "${mcp.name}"`;
    // did the hook config change (beside the MCP registration, when that is another file)?
    const hooksChanged = plan.files.some((f) => !mcp || mcp.sameFile || f.path !== mcp.path) || !!plan.removesDir;
    // doctor looks wherever setup wired, from any folder (engine/runtime/setup/wirings.ts)
    const remember = () => {
      const home = target.home;
      if (plan.uninstall) forgetWiring(home, { agent: plan.agent, scope: plan.scope, path: plan.configPath });
      else
        recordWiring(home, {
          agent: plan.agent,
          scope: plan.scope,
          path: plan.configPath,
          ...(plan.scope === 'project' ? { dir: resolve((flags.dir as string | undefined) ?? process.cwd()) } : {}),
        });
    };
    if (!plan.changed && !plan.shimChanges.length) {
      const auto = !flags['dry-run'] && !plan.uninstall ? autostartSetup(d, plan, flags, target.home, config?.url ?? target.url) : undefined;
      if (!flags['dry-run']) remember();
      out(
        plan.uninstall
          ? `no changes: no hookmap entries for ${plan.agent} in ${where}${mcp ? ` nor an MCP server in ${mcp.path}` : ''}`
          : `no changes: ${plan.agent} is already wired in ${where} (${what})${mcp ? `; ${server} is registered in ${mcp.path}` : ''}`,
      );
      if (auto) out(auto);
      for (const w of plan.warnings) out(`warning: ${w}`);
      return 0;
    }
    if (flags['dry-run']) {
      const diff = planDiff(plan);
      if (diff) process.stdout.write(diff);
      for (const f of plan.shimChanges) out(`would generate ${f}`);
      if (plan.createsBackup) out(`would back up the original to ${plan.backupPath}`);
      if (mcp?.createsBackup) out(`would back up the original to ${mcp.backupPath}`);
      if (mcp && !mcp.changed) out(`${server} is already ${plan.uninstall ? 'absent from' : 'registered in'} ${mcp.path}`);
      if (plan.removesDir) out(`would remove the then-empty ${plan.removesDir}`);
      for (const n of plan.notes) out(`note: ${n}`);
      for (const w of plan.warnings) out(`warning: ${w}`);
      out('dry run: nothing written');
      return 0;
    }
    commitSetup(d, plan, target);
    remember();
    if (plan.uninstall) {
      out(hooksChanged ? `removed hookmap's ${plan.agent} entries from ${where}` : `no hookmap entries for ${plan.agent} in ${where}`);
      if (plan.files.length > 1 || plan.removesDir) for (const f of plan.files) out(`  ${f.after === null ? 'deleted' : 'rewrote'} ${f.path}`);
      else if (plan.after === null) out("  nothing but hookmap's was in it: deleted");
      else if (plan.restoresBackup) out(`  restored the original bytes from ${plan.backupPath} (backup removed)`);
      if (mcp?.changed) out(`  removed ${server} from ${mcp.path}${mcp.restoresBackup ? ` (restored the original bytes from ${mcp.backupPath})` : ''}`);
      if (d.surface.kind !== 'stdio-tee') out(`  shims stay in ${shimPaths(plan.agent, target.home).dir} (harmless; delete by hand if unused)`);
      for (const w of plan.warnings) out(`warning: ${w}`);
      return 0;
    }
    const http = plan.registrations.filter((r) => r.kind === 'http');
    const cmd = plan.registrations.filter((r) => r.kind === 'command');
    out(`${hooksChanged ? 'wired' : plan.shimChanges.length ? 'regenerated shims for' : 'already wired:'} ${plan.agent} in ${where}: ${what}`);
    if (plan.files.length > 1) for (const f of plan.files) out(`  ${f.after === null ? 'removed' : 'wrote'} ${f.path}`);
    if (http.length) out(`  native HTTP (no shim): ${http.map((r) => r.hook).join(', ')}`);
    if (tee) for (const r of cmd) out(`  "${r.hook}" runs: ${r.target}`);
    else if (cmd.length) {
      const names = cmd.map((r) => (r.fields ? `${r.hook} (the next-turn waiter, in the background)` : r.hook));
      out(`  via the ${flags.shim === 'node' ? 'Node' : 'sh'} shim: ${names.join(', ')}`);
    }
    for (const f of plan.shimChanges) out(`  generated ${f}`);
    if (plan.createsBackup) out(`  original backed up to ${plan.backupPath}`);
    if (mcp) out(`  ${server} ${mcp.changed ? 'registered' : 'already registered'} in ${mcp.path}: ${mcp.argv.join(' ')}`);
    if (mcp?.createsBackup) out(`  original backed up to ${mcp.backupPath}`);
    const auto = autostartSetup(d, plan, flags, target.home, config?.url ?? target.url);
    if (auto) out(auto);
    for (const n of plan.notes) out(`note: ${n}`);
    for (const w of plan.warnings) out(`warning: ${w}`);
    return 0;
  } catch (err) {
    if (err instanceof DescriptorLoadError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    if (err instanceof SetupError || err instanceof ConfigParseError || err instanceof FormatError) {
      process.stderr.write(`hookmap setup: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
