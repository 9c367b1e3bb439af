// This checkout as a user installs it: `npm pack` (its prepare builds the
// bundle), then the tarball installed into an empty prefix. Used by the
// package test and by bench/startup (the clone and the installed package
// side by side). better-sqlite3's install script (prebuild-install, else
// node-gyp) is pointed at a local prebuild made from the module this
// checkout already built, so it unpacks that instead of compiling SQLite
// again (minutes on a loaded machine); the module is the same bytes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `npm <args>` in `cwd`, its output kept. */
export function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn('npm', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c) => (stdout += c));
    p.stderr.on('data', (c) => (stderr += c));
    // bounded: an install that cannot reach what it needs must not hang a test or a bench
    const t = setTimeout(() => p.kill('SIGKILL'), 560_000);
    p.on('close', (status) => (clearTimeout(t), resolve({ status, stdout, stderr })));
  });
}

/**
 * The checkout's built better-sqlite3 as the prebuild its install script looks
 * for first (prebuild-install's `npm_config_<pkg>_local_prebuilds` folder,
 * named as its download would be); the env that points the install at it, or
 * none (then the install builds from source, as a user's without a prebuild would).
 */
export function localPrebuild(dir: string): NodeJS.ProcessEnv {
  const pkg = join(ROOT, 'node_modules', 'better-sqlite3');
  const built = join(pkg, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(built) || process.platform !== 'linux') return {};
  const { name, version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const musl = spawnSync('ldd', ['--version'], { encoding: 'utf8' }).stderr?.includes('musl');
  if (musl) return {};
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
  const t = spawnSync('tar', ['-czf', file, '-C', pkg, 'build/Release/better_sqlite3.node'], { encoding: 'utf8' });
  if (t.status !== 0) throw new Error(`tar of the built better-sqlite3 failed: ${t.stderr}`);
  return { [`npm_config_${String(name).replace(/[^a-zA-Z0-9]/g, '_')}_local_prebuilds`]: dir };
}

/** Pack this checkout into `dir` and install the tarball into `dir/prefix`; the installed bin/hookmap.mjs. */
export async function packAndInstall(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const pack = await npm(['pack', '--json', '--pack-destination', dir], ROOT, env);
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')));
  const prefix = join(dir, 'prefix');
  const inst = await npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(dir, info.filename)], dir, {
    ...env,
    ...localPrebuild(join(dir, 'prebuilds')),
  });
  if (inst.status !== 0) throw new Error(`npm install of the tarball failed: ${inst.stderr}`);
  return join(prefix, 'lib', 'node_modules', 'hookmap', 'bin', 'hookmap.mjs');
}
