// `hookmap check [agent|file.yaml]`: descriptors + fixtures + capability
// evidence. Prints every error (sorted, de-duplicated, one located line
// each: `vendors/x.yaml:42:7 code: path: message`), then one summary line per
// agent. Exit 0 when everything holds, 1 on any error, 2 on a usage error.
import { checkAgents } from '../../tools/check/check-all.ts';
import { summaryLine } from '../../tools/check/check-agent.ts';
import { formatError } from '../../core/descriptor/errors.ts';
import { ArgError, parseArgs } from '../args.ts';

export async function run(argv: string[]): Promise<number> {
  let agent: string | undefined;
  try {
    const { positionals } = parseArgs(argv, {});
    if (positionals.length > 1) throw new ArgError('usage: hookmap check [agent|descriptor.yaml]');
    agent = positionals[0];
  } catch (err) {
    process.stderr.write(`hookmap check: ${(err as Error).message}\n`);
    return 2;
  }
  let reports;
  try {
    // the shim cases run for real: the generated shims, as processes, against a daemon up, down, hung, erroring
    reports = await checkAgents(agent, { shims: { path: process.env.PATH } });
  } catch (err) {
    process.stderr.write(`hookmap check: ${(err as Error).message}\n`);
    return 2;
  }
  const out = (s: string) => process.stdout.write(`${s}\n`);
  for (const r of reports) for (const e of r.errors) out(formatError(e));
  for (const r of reports) out(summaryLine(r));
  const total = reports.reduce((n, r) => n + r.errors.length, 0);
  out(`hookmap check: ${reports.length} agent${reports.length === 1 ? '' : 's'}, ${total} error${total === 1 ? '' : 's'}`);
  return total ? 1 : 0;
}
