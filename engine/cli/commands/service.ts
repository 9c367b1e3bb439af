// `hookmap service install|uninstall|status [--dry-run] [--platform P]`:
// `hookmap up` as a user service that survives a reboot (engine/tools/service/):
// a systemd user unit on Linux, a launchd agent on macOS; Windows is not
// automated (docs/service.md says how with Task Scheduler). Exit 0 done, 1
// refused or the service manager failed, 2 usage.
import { join } from 'node:path';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { install, render, servicePath, ServiceError, status, uninstall, type ManagerCall, type ServiceContext } from '../../tools/service/manage.ts';
import type { ServicePlatform, ServiceSpec } from '../../tools/service/units.ts';
import { listenAddress } from '../../runtime/shim/autostart.mjs';
import { ArgError, parseArgs } from '../args.ts';
import { carriedEnv, resolveConfig, resolveTarget } from '../config.ts';
import { hookmapVersion } from '../../core/io/version.ts';
import { PACKAGE_ROOT } from '../../core/io/package-root.mjs';

const USAGE = 'usage: hookmap service install|uninstall|status [--dry-run] [--platform linux|darwin]';
const BIN = join(PACKAGE_ROOT, 'bin', 'hookmap.mjs');
const WINDOWS = 'not automated on Windows: create a Task Scheduler task that runs `hookmap up` at log-on (docs/service.md shows the command)';

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let action: string;
  let flags: Record<string, unknown>;
  try {
    const p = parseArgs(argv, { 'dry-run': { type: 'boolean', short: 'n' }, platform: { type: 'string' } });
    flags = p.flags;
    if (p.positionals.length !== 1 || !['install', 'uninstall', 'status'].includes(p.positionals[0])) throw new ArgError(USAGE);
    if (flags.platform !== undefined && !['linux', 'darwin', 'win32'].includes(flags.platform as string))
      throw new ArgError('--platform must be linux, darwin or win32');
    if (flags.platform !== undefined && !flags['dry-run'] && flags.platform !== process.platform)
      throw new ArgError('--platform other than this one only with --dry-run (print what it would write there)');
    action = p.positionals[0];
  } catch (err) {
    process.stderr.write(`hookmap service: ${(err as Error).message}\n`);
    return 2;
  }
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const platform = (flags.platform as string | undefined) ?? process.platform;
  if (platform !== 'linux' && platform !== 'darwin') {
    (action === 'status' ? out : (s: string) => process.stderr.write(`${s}\n`))(`hookmap service: ${WINDOWS}`);
    return action === 'status' ? 0 : 1;
  }
  const addr = listenAddress(config.url);
  if (!addr) {
    process.stderr.write(`hookmap service: HOOKMAP_URL ${config.url} is not a plain-http loopback address; the service runs hookmap up on loopback\n`);
    return 2;
  }
  const c: ServiceContext = { platform: platform as ServicePlatform, target: resolveTarget(process.env), uid: process.getuid?.() ?? 0 };
  const spec: ServiceSpec = {
    node: process.execPath,
    bin: BIN,
    host: addr.host,
    port: addr.port,
    env: carriedEnv(process.env, config.home),
    home: config.home,
    version: hookmapVersion(),
  };
  const manager = platform === 'darwin' ? 'launchctl' : 'systemctl --user';
  const report = (calls: ManagerCall[], hint: string): number => {
    for (const r of calls) out(`  ${r.ok ? 'ran' : 'failed'}: ${r.argv.join(' ')}${r.ok || !r.output ? '' : `: ${r.output.split('\n')[0]}`}`);
    const failed = calls.find((r) => !r.ok);
    if (failed?.missing) out(`  ${failed.argv[0]} is not on PATH here: ${hint}`);
    else if (failed) out(`  the service manager refused (no user session bus? a container?): ${hint}`);
    return failed && !failed.missing ? 1 : 0;
  };
  try {
    if (action === 'install') {
      if (flags['dry-run']) {
        out(`would write ${servicePath(c)}:`);
        process.stdout.write(render(c, spec));
        out('dry run: nothing written, nothing started');
        return 0;
      }
      const r = install(c, spec);
      out(`${r.changed ? 'wrote' : 'unchanged:'} ${r.path}: hookmap up on http://${addr.host}:${addr.port}, HOOKMAP_HOME ${config.home}, restarted on failure`);
      const start =
        platform === 'darwin'
          ? `launchctl bootstrap gui/${c.uid} ${r.path}`
          : 'systemctl --user daemon-reload && systemctl --user enable --now hookmap.service';
      const code = report(r.calls, `start it with \`${start}\` in a log-in session`);
      if (!code && r.calls.every((x) => x.ok))
        out(`  enabled and started with ${manager}; logs: ${platform === 'darwin' ? `${config.home}/up.log` : 'journalctl --user -u hookmap'}`);
      return code;
    }
    if (action === 'uninstall') {
      if (flags['dry-run']) {
        out(`would stop and disable the service and remove ${servicePath(c)}`);
        return 0;
      }
      const r = uninstall(c);
      if (!r.removed) {
        out(`not installed: no ${r.path}`);
        return 0;
      }
      const code = report(r.calls, 'stop it by hand if it still runs');
      out(`removed ${r.path}`);
      return code;
    }
    const s = status(c);
    if (!s.installed) out(`not installed (no ${s.path}): hookmap service install`);
    else {
      out(`installed: ${s.path}${s.ours ? '' : ' (not written by hookmap)'}`);
      if (s.runs) out(`  runs: ${s.runs}`);
      if (s.state) out(`  ${manager}: ${s.state.missing ? 'not on PATH here' : s.state.output.split('\n')[0] || (s.state.ok ? 'active' : 'not active')}`);
    }
    return 0;
  } catch (e) {
    if (e instanceof ServiceError) {
      process.stderr.write(`hookmap service: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
