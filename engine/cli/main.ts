// The CLI dispatcher: one module per command under ./commands, loaded lazily
// (command-modules.ts) so a command only pays for what it imports. The runtime configuration is
// resolved here, once (engine/cli/config.ts), and handed to the command.
import type { RuntimeConfig } from '../core/config/schema.ts';
import { resolveConfig } from './config.ts';
import { join } from 'node:path';
import { cacheYamlIn } from '../core/descriptor/yaml-cache.ts';
import { cacheDescriptorsIn } from '../core/descriptor/descriptor-cache.ts';
import { cacheValidatorsIn } from '../core/aep/validator-cache.ts';
import { PACKAGE_ROOT } from '../core/io/package-root.mjs';
import { hookmapStamp, setRunStamp } from './stamp.ts';
import { existsSync } from 'node:fs';
import { commandHelp, printUsage, COMMANDS } from './usage.ts';
import { COMMAND_MODULES } from './command-modules.ts';

/** A clone (the sources beside whatever runs: they, or the data the bundle reads, can change after a build), not a package. */
const IN_CLONE = existsSync(join(PACKAGE_ROOT, 'engine', 'cli', 'main.ts'));

/** Commands whose files belong to a repository or to an agent's own settings (their modes are the user's). */
const KEEPS_UMASK = new Set(['setup', 'new', 'docs', 'codegen']);

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    printUsage(process.stdout);
    return 0;
  }
  if (cmd === '--version' || cmd === '-v') {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    process.stdout.write(`hookmap ${pkg.version}\n`);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === cmd);
  if (!entry) {
    process.stderr.write(`hookmap: unknown command '${cmd}' (try 'hookmap --help')\n`);
    return 2;
  }
  // `--help` / `-h` anywhere before a `--` (after it, the words belong to another program)
  const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(commandHelp(entry));
    return 0;
  }
  // what a command creates in the home is for its owner alone, whatever the user's umask (engine/core/io/home-modes.ts); the
  // commands that write into a repository or an agent's own config keep the user's
  if (!KEEPS_UMASK.has(cmd)) process.umask(0o077);
  let config: RuntimeConfig;
  try {
    config = resolveConfig(process.env);
  } catch (err) {
    process.stderr.write(`hookmap ${cmd}: ${(err as Error).message}\n`);
    return 2;
  }
  // descriptors' parsed YAML, kept by content hash (engine/core/descriptor/yaml-cache.ts)
  cacheYamlIn(join(config.home, 'cache', 'yaml'));
  const stamp = hookmapStamp(IN_CLONE);
  setRunStamp(stamp);
  // what the package was built with (npm run build: codegen/bundle.mjs), found when the home has nothing yet
  const shipped = (kind: string) => join(PACKAGE_ROOT, 'dist', 'cache', kind);
  // descriptors validated by this hookmap before, by content hash (engine/core/descriptor/descriptor-cache.ts)
  cacheDescriptorsIn(join(config.home, 'cache', 'descriptors'), stamp, shipped('descriptors'));
  // the AEP hot-path validators' code, by content hash (engine/core/aep/validator-cache.ts)
  cacheValidatorsIn(join(config.home, 'cache', 'validators'), stamp, shipped('validators'));
  if (!config.fastExpr) (await import('../core/expr/compile.ts')).useFastExpressions(false);
  const mod = await COMMAND_MODULES[entry.module]();
  try {
    return await mod.run(rest, config);
  } catch (err) {
    process.stderr.write(`hookmap ${cmd}: ${(err as Error)?.stack ?? String(err)}\n`);
    return 2;
  }
}
