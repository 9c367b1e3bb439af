// `hookmap doctor [agent...] [--json] [--dir D] [--url U]`: which agents are
// wired (user config, and the project config of --dir, default the cwd),
// whether the daemon and the relay answer, stale or duplicated
// registrations, shim and log health. Exit 0 healthy, 1 problems, 2 usage.
import { runDoctor } from '../../tools/doctor/index.ts';
import { renderReport } from '../../tools/doctor/render.ts';
import { ArgError, parseArgs } from '../args.ts';
import { discoverToken } from '../../runtime/auth/discover.ts';
import { hookmapVersion } from '../../core/io/version.ts';
import { resolveTarget, tokenSources } from '../config.ts';

export async function run(argv: string[]): Promise<number> {
  let flags: Record<string, unknown>;
  let agents: string[];
  try {
    const p = parseArgs(argv, { json: { type: 'boolean' }, dir: { type: 'string' }, url: { type: 'string' } });
    flags = p.flags;
    agents = p.positionals;
  } catch (err) {
    process.stderr.write(`hookmap doctor: ${(err as ArgError).message}\n`);
    return 2;
  }
  const target = resolveTarget(process.env);
  const url = ((flags.url as string | undefined) ?? target.url).replace(/\/+$/, '');
  let token: string | undefined;
  try {
    token = discoverToken({ url, from: tokenSources(process.env) }).token;
  } catch (e) {
    process.stderr.write(`hookmap doctor: ${(e as Error).message} (relay state not checked)\n`);
  }
  const report = await runDoctor({
    target,
    dir: (flags.dir as string | undefined) ?? process.cwd(),
    url,
    token,
    version: hookmapVersion(),
    agents: agents.length ? agents : undefined,
  });
  process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
  return report.healthy ? 0 : 1;
}
