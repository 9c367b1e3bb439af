// Issue 25, a real package: `npm pack` (which builds the JavaScript through
// `prepare`) ships what a user runs and nothing else (no test, bench,
// fixture, web source or TypeScript file); the tarball installed into an
// empty prefix and an empty home (nothing pointing back at this tree; npm's
// own cache is the only thing shared, so nothing is downloaded twice) runs
// `hookmap --version`, `hookmap capabilities` (from the generated copy:
// no fixtures ship), `hookmap up`, a hook through the shim `hookmap setup`
// installed, `hookmap tail` and `hookmap answer`, with no TypeScript loader
// installed at all. The install runs better-sqlite3's own install script
// (prebuild-install, else node-gyp), pointed at a local prebuild made from
// the module this checkout already built, so it unpacks and loads that
// instead of compiling SQLite again (minutes on a loaded machine); the
// history's queries below still run through it from the installed package.
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { runProcess } from '../runtime/shim/helpers.ts';
import { until } from '../runtime/daemon/helpers.ts';
import { localPrebuild, npm } from '../helpers/package-install.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-pack-'));
let up: ChildProcess | undefined;
afterAll(async () => {
  if (up && up.exitCode === null) await new Promise<void>((r) => (up!.once('exit', () => r()), up!.kill('SIGTERM')));
  rmSync(tmp, { recursive: true, force: true });
}, 120_000); // up's exit and the removal of an installed package tree (hundreds of folders), on a loaded machine

const npmCache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
// where node-gyp finds Node's headers to build better-sqlite3 when no prebuilt binary can be fetched (Debian: /usr), as npm here is configured
const nodedir = spawnSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8' }).stdout.trim();

/** Every file under a folder, relative. */
function files(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n), base) : [join(dir, n).slice(base.length + 1)]));
}

describe('the npm package', () => {
  const home = join(tmp, 'home');
  const prefix = join(tmp, 'prefix');
  const hookmapHome = join(home, '.hookmap');
  // only this Node and the prefix's bin on PATH: no `hookmap` from anywhere else
  const env: NodeJS.ProcessEnv = {
    PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: home,
    npm_config_cache: npmCache,
    HOOKMAP_HOME: hookmapHome,
    HOOKMAP_AUTOSTART: '0',
    ...(nodedir && nodedir !== 'undefined' ? { npm_config_nodedir: nodedir } : {}),
    // how this machine reaches the registry (its CA bundle, a proxy): without them a dependency missing from npm's cache is
    // retried until the install is killed (SELF_SIGNED_CERT_IN_CHAIN behind a TLS-inspecting proxy)
    ...Object.fromEntries(
      ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']
        .filter((k) => process.env[k])
        .map((k) => [k, process.env[k]]),
    ),
  };
  let tarball = '';
  let pkgDir = '';

  it('packs what a user runs and nothing else', async () => {
    mkdirSync(home, { recursive: true });
    const r = await npm(['pack', '--json', '--pack-destination', tmp], ROOT, { ...process.env, npm_config_cache: npmCache });
    expect(r.status, r.stderr).toBe(0);
    const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')));
    tarball = join(tmp, info.filename);
    const listed: string[] = info.files.map((f: { path: string }) => f.path);
    expect(
      listed.filter((f) => /^(test|bench|fixtures|web|codegen|\.ci)\//.test(f) || /\.(ts|mts)$/.test(f) || /(^|\/)\.|tsconfig|vitest|eslint/.test(f)),
    ).toEqual([]);
    for (const f of [
      'bin/hookmap.mjs',
      // the bundle bin/hookmap.mjs runs (npm run build: codegen/bundle.mjs)
      'dist/engine/main.js',
      // the history's indexer, which up runs in a worker thread (engine/person/history/worker-host.ts)
      'dist/engine/history-worker.js',
      'engine/runtime/shim/node-shim.mjs',
      'engine/person/inbox/assets/index.html',
      // the floor's options table (engine/runtime/policy/shell/options.ts reads it at run time)
      'engine/runtime/policy/shell/option-table.yaml',
      'vendors/claude-code.yaml',
      'schemas/descriptor.schema.json',
      'capabilities/README.md',
      'LICENSE',
      'package.json',
    ])
      expect(listed).toContain(f);
    // the caches a first start in a new home reads (its vendors validated, the AEP validators' code: codegen/bundle.mjs)
    for (const kind of ['descriptors', 'validators'])
      expect(
        listed.some((f) => f.startsWith(`dist/cache/${kind}/`)),
        kind,
      ).toBe(true);
    // every command runs from the bundle: no per-module .js ships (the inbox's browser assets aside), but every plain-JS
    // module bin/hookmap.mjs runs itself (the hook shim, start on demand, the tee) and what they import
    expect(listed.filter((f) => f.startsWith('engine/') && f.endsWith('.js') && !f.startsWith('engine/person/inbox/assets/'))).toEqual([]);
    const plain = files(join(ROOT, 'engine')).filter((f) => f.endsWith('.mjs'));
    expect(plain.filter((f) => !listed.includes(`engine/${f}`))).toEqual([]);
  }, 240_000);

  it('installs into an empty prefix and home, with no TypeScript loader', async () => {
    const prebuild = localPrebuild(join(tmp, 'prebuilds'));
    const r = await npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], tmp, { ...env, ...prebuild });
    expect(r.status, r.stderr).toBe(0);
    pkgDir = join(prefix, 'lib', 'node_modules', 'hookmap');
    expect(existsSync(join(pkgDir, 'dist', 'engine', 'main.js'))).toBe(true);
    expect(files(join(pkgDir, 'engine')).filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect(existsSync(join(pkgDir, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(prefix, 'lib', 'node_modules', 'tsx'))).toBe(false);
    // the history's native module (a normal dependency) is built and loads
    const native = join(pkgDir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    expect(existsSync(native)).toBe(true);
    // reused, not compiled: the checkout's module, byte for byte, and no build tree beside it
    if (Object.keys(prebuild).length) {
      expect(readFileSync(native).equals(readFileSync(join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')))).toBe(true);
      expect(existsSync(join(pkgDir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'obj.target'))).toBe(false);
    }
  }, 600_000);

  it('runs --version, up, a hook through the installed shim, tail and answer', async () => {
    const hookmap = join(prefix, 'bin', 'hookmap');
    const cli = (args: string[]) => runProcess(hookmap, args, '', env);
    const version = await cli(['--version']);
    expect(version.stdout.toString()).toBe(`hookmap ${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
    // capabilities without fixtures to run: what `hookmap docs` generated, the same as the clone computes
    const caps = await cli(['capabilities', 'claude-code', '--json']);
    expect(caps.code, caps.stderr).toBe(0);
    const here = spawnSync(process.execPath, [join(ROOT, 'bin', 'hookmap.mjs'), 'capabilities', 'claude-code', '--json'], { encoding: 'utf8' });
    expect(JSON.parse(caps.stdout.toString())).toEqual(JSON.parse(here.stdout));
    up = spawn(hookmap, ['up', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      up!.stderr!.on('data', (c) => (err += c));
      up!.stdout!.on('data', (c) => {
        out += c;
        if (out.includes('\n')) resolve(out.split('\n')[0].trim());
      });
      up!.on('exit', (code) => reject(new Error(`up exited ${code}: ${err}`)));
    });
    const withUrl = { ...env, HOOKMAP_URL: url };
    const setup = await runProcess(hookmap, ['setup', 'claude-code'], '', withUrl);
    expect(setup.code, setup.stderr).toBe(0);
    // the registration runs the shim in the home, and the shim's launcher runs this package (no path into the source tree)
    const sh = join(hookmapHome, 'shims', 'claude-code.sh');
    const settings = readFileSync(join(home, '.claude', 'settings.json'), 'utf8');
    expect(settings).toContain(sh);
    expect(settings).not.toContain(ROOT);
    expect(readFileSync(join(hookmapHome, 'bin', 'hookmap'), 'utf8')).toContain(join(pkgDir, 'bin', 'hookmap.mjs'));
    const fired = await runProcess(
      'sh',
      [sh, 'SessionStart'],
      JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'pk1', cwd: tmp, transcript_path: '/dev/null', source: 'startup' }),
      withUrl,
    );
    expect(fired.code).toBe(0);
    const held = fetch(`${url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hookKeyHeaders(hookmapHome) },
      body: JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: 'pk1',
        transcript_path: '/dev/null',
        cwd: tmp,
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command: 'touch x' },
        permission_suggestions: [],
      }),
    }).then((r) => r.text());
    const stream = await runProcess(hookmap, ['tail', '--json', '--from', 'all', '--count', '2'], '', withUrl);
    expect(stream.code, stream.stderr).toBe(0);
    const events = stream.stdout
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => [e.type, e.session])).toEqual([
      ['session.started', 'pk1'],
      ['attention.requested', 'pk1'],
    ]);
    const answer = await runProcess(hookmap, ['answer', events[1].id, '--allow'], '', withUrl);
    expect(answer.code, answer.stderr.toString()).toBe(0);
    expect(await held).toBe('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}');
    // the history answers from the installed package (SQLite through the native module), the session indexed from its log
    const listed = await cli(['sessions', '--json']);
    expect(listed.code, listed.stderr.toString()).toBe(0);
    expect(JSON.parse(listed.stdout.toString()).map((s: { session: string }) => s.session)).toEqual(['pk1']);
    const usage = await cli(['usage', '--json']);
    expect(usage.code, usage.stderr.toString()).toBe(0);
    expect(JSON.parse(usage.stdout.toString()).prices).toMatchObject({ table: '@pydantic/genai-prices' });
    // up's own indexer runs from the bundle's worker file (no TypeScript loader here) and finds the session
    const owner = { authorization: `Bearer ${readFileSync(join(hookmapHome, 'token'), 'utf8').trim()}` };
    const found = await until('up indexed the session', async () => {
      const r = (await (await fetch(`${url}/history/search?q=bash`, { headers: owner })).json()) as { hits: { session: { session: string } }[] };
      return r.hits.length ? r.hits : undefined;
    });
    expect(found.map((h) => h.session.session)).toEqual(['pk1']);
    expect(await (await fetch(`${url}/history/status`, { headers: owner })).json()).toMatchObject({ indexer: { state: 'running', restarts: 0 } });
  }, 120_000);
});
