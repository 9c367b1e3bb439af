// `hookmap config check <file>...`: load each `up` config file the way `hookmap
// up --config` does (its one schema, engine/app/up-schema.ts, then what each
// block checks beyond it) and print every finding with its code and position
// (docs/reference/up-config.md). Exit 0: every file loads; 1: findings; 2:
// usage (or a file that cannot be read).
import { ArgError, parseArgs } from '../args.ts';
import { ConfigError, loadUpConfig } from '../../app/up-config.ts';
import type { ConfigProblem } from '../../core/config/config-error.ts';

const SPEC = { json: { type: 'boolean' } } as const;
const USAGE = 'usage: hookmap config check <file>... [--json]';

export async function run(argv: string[]): Promise<number> {
  let json: boolean, files: string[];
  try {
    const p = parseArgs(argv, SPEC);
    if (p.positionals.length < 2 || p.positionals[0] !== 'check') throw new ArgError(USAGE);
    json = Boolean(p.flags.json);
    files = p.positionals.slice(1);
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap config: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const findings: ConfigProblem[] = [];
  let unreadable = false;
  for (const file of files) {
    try {
      // the CLI edge: a `key_env` / `*_env` the file names is looked up where up would look it up
      loadUpConfig(file, process.env);
      if (!json) process.stdout.write(`ok: ${file}\n`);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      // no findings: the file could not be read (the argument is wrong, not the config)
      if (!e.findings.length) unreadable = true;
      if (!e.findings.length) process.stderr.write(`hookmap config: ${e.message}\n`);
      findings.push(...e.findings);
      if (!json) for (const f of e.findings) process.stdout.write(`${f.file}:${f.line}:${f.col} ${f.code}: ${f.message}\n`);
    }
  }
  if (json) process.stdout.write(`${JSON.stringify({ ok: !findings.length && !unreadable, findings })}\n`);
  else if (findings.length) {
    const n = findings.length;
    process.stderr.write(`hookmap config: ${n} finding${n === 1 ? '' : 's'}; up would refuse ${files.length === 1 ? 'the file' : 'such a file'}\n`);
  }
  return unreadable ? 2 : findings.length ? 1 : 0;
}
