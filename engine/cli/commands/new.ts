// `hookmap new <agent> [--like <existing>] [--surface <kind>] [--hooks A,B] [--dir D]`: a
// descriptor and a fixture folder for a new agent, started from the closest
// existing one (engine/tools/scaffold/new-agent.ts): named with --like, or proposed
// from the surface kind. Writes vendors/<agent>.yaml and fixtures/<agent>/
// (or, with --dir, D/<agent>.yaml beside D/<agent>/), never over a file
// that exists, then says what `hookmap check` will list. The existing
// agent's hooks that no other agent has (or, with --hooks, that the list does
// not name) are left out with the fixture cases firing them, and said. Exit 0 written,
// 1 refused (a file exists), 2 usage.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FIXTURES_DIR, listVendors, loadVendor, VENDORS_DIR } from '../../core/descriptor/registry.ts';
import { closestAgent, hooksToDrop, scaffold, SURFACE_KINDS, writeScaffold } from '../../tools/scaffold/new-agent.ts';
import { ArgError, parseArgs } from '../args.ts';
import { descriptorFile } from '../../runtime/shim/generate.ts';

export async function run(argv: string[]): Promise<number> {
  const err = (m: string, code: number) => (process.stderr.write(`hookmap new: ${m}\n`), code);
  let agent: string, like: string | undefined, surface: string | undefined, dir: string | undefined, hooks: string[] | undefined;
  try {
    const spec = { like: { type: 'string' }, surface: { type: 'string' }, dir: { type: 'string' }, hooks: { type: 'string' } } as const;
    const { flags, positionals } = parseArgs(argv, spec);
    if (positionals.length !== 1) throw new ArgError('usage: hookmap new <agent> [--like <existing>] [--surface <kind>] [--hooks A,B] [--dir D]');
    hooks =
      flags.hooks === undefined
        ? undefined
        : String(flags.hooks)
            .split(',')
            .map((h) => h.trim())
            .filter(Boolean);
    agent = positionals[0];
    like = flags.like as string | undefined;
    surface = flags.surface as string | undefined;
    dir = flags.dir as string | undefined;
  } catch (e) {
    return err((e as Error).message, 2);
  }
  if (!/^[a-z][a-z0-9-]{0,39}$/.test(agent))
    return err(`'${agent}' is not an agent id: lower-case letters, digits and -, starting with a letter (it becomes the x.${agent}.* namespace)`, 2);
  const vendors = listVendors();
  if (vendors.includes(agent) && !dir)
    return err(`vendors/${agent}.yaml exists already (to start over: remove vendors/${agent}.yaml and fixtures/${agent}/)`, 1);
  if (surface !== undefined && !(SURFACE_KINDS as readonly string[]).includes(surface))
    return err(`--surface ${surface}: not a surface kind (one of ${SURFACE_KINDS.join(', ')})`, 2);
  if (like !== undefined && !vendors.includes(like)) return err(`--like ${like}: no such agent (one of ${vendors.join(', ')})`, 2);
  const all = vendors.map((v) => loadVendor(v));
  const lines = (d: (typeof all)[number]) => readFileSync(descriptorFile(d), 'utf8').split('\n').length;
  const base = like ? all.find((d) => d.vendor === like)! : closestAgent(surface ?? 'command-hook', all, lines);
  if (!base) return err(`no existing agent has surface ${surface}: start from one of another kind with --like`, 2);
  const say = (l: string) => process.stdout.write(`${l}\n`);
  if (!like)
    say(
      `hookmap new: starting from ${base.vendor} (${base.name}), the closest ${base.surface.kind} ` +
        `agent (${base.posture === 'control' ? 'control posture, ' : ''}the shortest descriptor); ` +
        `--like <agent> starts from another`,
    );
  else if (surface && surface !== base.surface.kind)
    say(`hookmap new: note: ${like} is a ${base.surface.kind} agent, not ${surface}: its surface is what you start from`);
  const descriptorPath = dir ? join(dir, `${agent}.yaml`) : join(VENDORS_DIR, `${agent}.yaml`);
  const fixturesDir = dir ? join(dir, agent) : join(FIXTURES_DIR, agent);
  const unknownHooks = (hooks ?? []).filter((h) => !base.hooks.has(h));
  if (unknownHooks.length) return err(`--hooks: ${base.vendor} has no hook ${unknownHooks.join(', ')} (its hooks: ${[...base.hooks.keys()].join(', ')})`, 2);
  const drop = hooksToDrop(base, all, hooks);
  const s = await scaffold(
    base,
    readFileSync(descriptorFile(base), 'utf8'),
    join(FIXTURES_DIR, base.vendor),
    agent,
    descriptorPath,
    fixturesDir,
    like ? undefined : (surface ?? 'command-hook'),
    drop,
  );
  const exists = writeScaffold(s);
  if (exists) return err(`${exists} exists already: nothing written (to start over, remove it)`, 1);
  const rel = (p: string) => relative(process.cwd(), p) || p;
  say(
    `wrote ${rel(descriptorPath)} and ${rel(fixturesDir)}/ (${s.files.size - 2} fixture file${s.files.size === 3 ? '' : 's'} ` +
      `from ${base.vendor}'s; its upstream pins and recorded payloads stay behind)`,
  );
  if (drop.length) {
    const why = hooks ? 'not in --hooks' : `only ${base.vendor} has them: add back the ones ${agent} has`;
    say(`left out ${drop.length} of ${base.vendor}'s hooks (${why}): ${drop.join(', ')}`);
    if (s.dropped.cases.length) say(`  and the fixture cases firing them: ${s.dropped.cases.join('; ')}`);
  }
  const target = dir ? rel(descriptorPath) : agent;
  say(`next:  hookmap check ${target}     lists, in order, every placeholder to fill in and every claim no fixture proves yet`);
  say(`       hookmap record ${agent}       ${dir ? '(once the descriptor is in vendors/) ' : ''}real payloads, redacted, to turn into cases`);
  say(`       docs/authoring.md     which surface, which hold kind, when decide, when register: false`);
  return 0;
}
