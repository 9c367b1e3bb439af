// `npm run test:live`: install the pinned agent CLIs into a cache folder
// outside the repo (~/.cache/hookmap-live/<pkg>@<version>, or
// $HOOKMAP_LIVE_CACHE), check each one starts (`--version`), write the
// manifest the live tests read (a binary, or why the agent is skipped), then
// run vitest on test/live/**/*.live.ts (vitest.live.config.ts).
//   tsx test/live/run.ts [agent ...] [--no-install] [--require] [--save] [-- vitest args]
//   --no-install  use only what the cache already has (never reach a registry)
//   --require     every selected agent that has live scenarios and is not blocked must be ready (installed and
//                 starting), else exit 1 before any test runs (CI: a gate never passes by skipping an agent)
//   --save        copy one recorded payload per hook into fixtures/<agent>/recorded/
// Nothing here touches package.json or the repo's node_modules.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadVendor, ROOT } from '../../engine/core/descriptor/registry.ts';
import { AGENTS, CACHE, MANIFEST, binOf, manifest as readManifest, prefixOf, type Manifest } from './agents.ts';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const own = dash >= 0 ? argv.slice(0, dash) : argv;
const passthrough = dash >= 0 ? argv.slice(dash + 1) : [];
const noInstall = own.includes('--no-install') || !!process.env.HOOKMAP_LIVE_NO_INSTALL;
const save = own.includes('--save');
const requireReady = own.includes('--require');
const only = own.filter((a) => !a.startsWith('--'));
const unknown = only.filter((a) => !AGENTS.some((x) => x.id === a));
if (unknown.length) {
  console.error(`test:live: unknown agent(s) ${unknown.join(', ')}; known: ${AGENTS.map((a) => a.id).join(', ')}`);
  process.exit(2);
}
const chosen = AGENTS.filter((a) => !only.length || only.includes(a.id));

mkdirSync(CACHE, { recursive: true });
const manifest: Manifest = {};
for (const a of AGENTS) {
  if (!chosen.includes(a)) {
    manifest[a.id] = { skip: 'not selected on the command line' };
    continue;
  }
  if (a.blocked) {
    manifest[a.id] = { skip: a.blocked };
    continue;
  }
  if (!existsSync(join(ROOT, 'test/live', `${a.id}.live.ts`))) {
    const d = loadVendor(a.id);
    manifest[a.id] = {
      skip: d.setup
        ? `no live scenarios written for ${a.id} yet (test/live/${a.id}.live.ts)`
        : `\`hookmap setup ${a.id}\` cannot wire it yet (its descriptor has no setup block: the ${d.surface.kind} ` +
          `shim is not installed by setup), so there is nothing to drive live`,
    };
    continue;
  }
  const prefix = prefixOf(a);
  const bin = binOf(a);
  if (!existsSync(bin)) {
    if (noInstall) {
      manifest[a.id] = { skip: `${a.pkg}@${a.version} is not in ${CACHE} and --no-install was given` };
      continue;
    }
    mkdirSync(prefix, { recursive: true });
    console.error(`test:live: installing ${a.pkg}@${a.version} into ${prefix}`);
    // cwd = the prefix: a folder named like the spec must not be taken for a local package
    const r = spawnSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--loglevel', 'error', `${a.pkg}@${a.version}`], {
      cwd: prefix,
      encoding: 'utf8',
      timeout: 540_000,
    });
    if (r.status !== 0 || !existsSync(bin)) {
      const why = (r.stderr || r.error?.message || '').trim().split('\n').slice(-3).join(' | ');
      manifest[a.id] = { skip: `${a.pkg}@${a.version} could not be installed here: ${why || `npm exited ${r.status}`}` };
      continue;
    }
  }
  // cwd and HOME the probe's own folder: an agent may write into its working folder even for --version (Letta Code: .letta/)
  const probe = join(CACHE, '.probe-home');
  mkdirSync(probe, { recursive: true });
  const v = spawnSync(bin, ['--version'], { cwd: probe, encoding: 'utf8', timeout: 60_000, env: { ...process.env, HOME: probe, CI: '1' } });
  const out = `${v.stdout ?? ''}${v.stderr ?? ''}`.trim();
  if (v.status !== 0 || !out.includes(a.version)) {
    manifest[a.id] = {
      skip:
        `${a.pkg}@${a.version} does not start here: \`${a.bin} --version\` exited ${v.status}${v.error ? ` (${v.error.message})` : ''}: ` +
        `${out.split('\n').slice(-2).join(' | ')}`,
    };
    continue;
  }
  manifest[a.id] = { bin, version: a.version };
}
// this run's own manifest (two runs at once must not read each other's choice), and the cache's manifest.json for vitest run
// by hand: what this run resolved merged over what earlier runs did (an agent it did not select keeps its entry)
const ownManifest = join(CACHE, `manifest-${process.pid}.json`);
writeFileSync(ownManifest, `${JSON.stringify(manifest, null, 2)}\n`);
const shared = { ...readManifest(), ...Object.fromEntries(chosen.map((a) => [a.id, manifest[a.id]])) };
writeFileSync(MANIFEST, `${JSON.stringify(shared, null, 2)}\n`);
process.on('exit', () => rmSync(ownManifest, { force: true }));
for (const a of AGENTS) {
  const m = manifest[a.id];
  console.error(`test:live: ${a.id.padEnd(12)} ${m.bin ? `${a.pkg}@${a.version} ready` : `SKIPPED: ${m.skip}`}`);
}

// --require: an agent that could be driven here but is not ready fails the run (blocked ones and ones with no scenarios stay skipped, said above)
const unready = requireReady ? chosen.filter((a) => !a.blocked && existsSync(join(ROOT, 'test/live', `${a.id}.live.ts`)) && !manifest[a.id].bin) : [];
if (unready.length) {
  console.error(`test:live: --require: not ready: ${unready.map((a) => `${a.id} (${manifest[a.id].skip})`).join('; ')}`);
  process.exit(1);
}

const files = chosen.map((a) => `test/live/${a.id}.live.ts`).filter((f) => existsSync(join(ROOT, f)));
// only agents with no live file were named (e.g. a blocked one): nothing to run (an empty list would run them all)
if (only.length && !files.length) process.exit(0);
const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const child = spawn(process.execPath, [vitest, 'run', '--config', 'vitest.live.config.ts', ...(only.length ? files : []), ...passthrough], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, HOOKMAP_LIVE_MANIFEST: ownManifest, ...(save ? { HOOKMAP_LIVE_SAVE: '1' } : {}) },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => child.kill(s));
