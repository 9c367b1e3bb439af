// `hookmap codegen [--check]`: regenerates the TypeScript types from the
// schemas, the imported upstream pins (fixtures/<agent>/pins.yaml) and the
// web inbox's built assets (engine/person/inbox/assets/, from web/).
// --check regenerates in memory and exits 1 listing every drifted file
// (changed, missing, or generated but untracked) with the command that fixes it.
import { pinAgents, syncPins } from '../../../codegen/import-pins.ts';
import { formatDrift, syncFiles, untracked, type Drift } from '../../../codegen/drift.ts';
import { generateTypes } from '../../../codegen/types.ts';
import { listVendors } from '../../core/descriptor/registry.ts';
import { buildInbox } from '../../../codegen/inbox-build.ts';
import { parseArgs } from '../args.ts';

export async function run(argv: string[]): Promise<number> {
  let check: boolean;
  try {
    const { flags, positionals } = parseArgs(argv, { check: { type: 'boolean' } });
    if (positionals.length) throw new Error('usage: hookmap codegen [--check]');
    check = !!flags.check;
  } catch (err) {
    process.stderr.write(`hookmap codegen: ${(err as Error).message}\n`);
    return 2;
  }
  const types = await generateTypes();
  const inbox = await buildInbox();
  const drift: Drift[] = syncFiles(new Map([...types, ...inbox]), check);
  const vendors = listVendors();
  for (const path of syncPins(vendors, check)) drift.push({ path, why: 'changed' });
  const generated = [...types.keys(), ...inbox.keys(), ...pinAgents(vendors).map((a) => `fixtures/${a}/pins.yaml`)];
  const driftPaths = new Set(drift.map((d) => d.path));
  for (const path of untracked(generated)) if (!driftPaths.has(path)) drift.push({ path, why: 'untracked' });

  if (check) {
    if (!drift.length) {
      process.stdout.write(`hookmap codegen: ${generated.length} generated files up to date\n`);
      return 0;
    }
    process.stdout.write(`hookmap codegen: generated files drifted:\n${drift.map(formatDrift).join('\n')}\nrun \`npx hookmap codegen\` and commit\n`);
    return 1;
  }
  const written = drift.filter((d) => d.why !== 'untracked');
  process.stdout.write(`hookmap codegen: ${written.length ? `wrote ${written.map((d) => d.path).join(', ')}` : 'nothing changed'}\n`);
  const fresh = drift.filter((d) => d.why === 'untracked' || d.why === 'missing').map((d) => d.path);
  if (fresh.length) process.stdout.write(`new files to commit: ${fresh.join(', ')}\n`);
  return 0;
}
