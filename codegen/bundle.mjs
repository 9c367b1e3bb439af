// The package's bundle, `npm run build` (so `prepare`, `npm ci` and `npm
// pack` make it): the CLI (engine/cli/main.ts and every module it can load,
// compiled by esbuild straight from the sources: no .js is ever written
// beside a .ts) as ESM chunks in dist/engine/, one chunk per
// command (engine/cli/command-modules.ts) and per lazy import, so a command
// still loads only what it needs, and the history's indexer
// (engine/person/history/index-worker.ts) as dist/engine/history-worker.js, the
// file its worker thread runs. Hundreds of small files cost a start more
// than their bytes (each one resolved, read and compiled on its own): `up`
// loads its graph from a few files. The packages `up` loads at start are
// inside (INLINE, with everything they require); every other package stays
// an import of node_modules, as do the ones that find files beside their own
// (web-tree-sitter's wasm, better-sqlite3's native module). A module names a
// shipped file (schemas/, vendors/, package.json) through the package root it
// finds by walking up (engine/core/io/package-root.mjs), so the path holds
// from engine/<layer>/<unit>/ and from dist/engine/ alike. bin/hookmap.mjs runs
// dist/engine/main.js in an installed package, and in a clone while the
// bundle is newer than every source it was built from: dist/engine/build.json
// lists them (the repository's files esbuild read, and package-lock.json for
// the packages inside) with the time the build started, so a source edited
// since then runs through tsx, never a stale bundle. Its `stamp` (the version
// and a digest of those sources) keys the caches below and a home's own.
//
// Then the caches a first start in a new home would otherwise fill (their
// keys name this hookmap's version, as an installed package's do): every
// shipped vendor's descriptor validated (engine/core/descriptor/descriptor-cache.ts)
// and the AEP hot-path validators' code (engine/core/aep/validator-cache.ts), in
// dist/cache/, read when the home has no entry yet. Outside engine/: the
// bundle holds codegen/ modules (the docs command) and the cache descriptor
// values, both of which name agents, which no engine/ file does.
//   tsx codegen/bundle.mjs   (npm run build)
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = 'dist/engine';
const CACHE = 'dist/cache';
const INLINE = new Set(['fastify', 'ws', 'ulid', 'zod']);

const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
// What fastify require()s only when it is used (a route's schema compiled, inject(), a pino logger): not in the bundle
// (their code, a third of what `up` would parse at every start) but loaded from node_modules at that first use, resolved
// from the installed fastify as its own require() would (fastify is a dependency: it is there).
const FASTIFY_LAZY = new Set(['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'light-my-request', 'pino']);
// and semver, which fastify requires at once but calls only for a plugin that names the fastify versions it takes (no hookmap
// plugin does): a stand-in that loads it at the first property read
const FASTIFY_DEFERRED = new Set(['semver']);
// zod's error messages in every language (`z.locales`, half of zod's bytes): hookmap's config errors are English, so
// the bundle holds only the English one (the one zod configures itself with); `z.locales.en` still works.
const ZOD_LOCALES = /[\\/]node_modules[\\/]zod[\\/]v4[\\/]/;
const loadFromFastify = (spec) => `require(require('node:module').createRequire(require.resolve('fastify')).resolve(${JSON.stringify(spec)}))`;
const externals = {
  name: 'hookmap-externals',
  setup(b) {
    b.onLoad({ filter: /.*/, namespace: 'fastify-lazy' }, (args) => ({ contents: `module.exports = ${loadFromFastify(args.path)};`, loader: 'js' }));
    b.onLoad({ filter: /.*/, namespace: 'fastify-deferred' }, (args) => ({
      contents: `let real; module.exports = new Proxy({}, { get: (_t, k) => (real ??= ${loadFromFastify(args.path)})[k] });`,
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      loader: 'js',
      resolveDir: ROOT,
    }));
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      ZOD_LOCALES.test(args.importer) ? { path: join(dirname(args.importer), '../locales/en.js'), namespace: 'zod-locales' } : undefined,
    );
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      if (FASTIFY_LAZY.has(packageOf(args.path)) && /[\\/]node_modules[\\/]fastify[\\/]/.test(args.importer))
        return { path: args.path, namespace: 'fastify-lazy' };
      if (FASTIFY_DEFERRED.has(packageOf(args.path)) && /[\\/]node_modules[\\/]fastify[\\/]/.test(args.importer))
        return { path: args.path, namespace: 'fastify-deferred' };
      // an INLINE package's own imports are bundled with it
      if (/[\\/]node_modules[\\/]/.test(args.importer) || INLINE.has(packageOf(args.path))) return undefined;
      return { external: true };
    });
  },
};

for (const d of [OUT, CACHE]) rmSync(new URL(`../${d}`, import.meta.url), { recursive: true, force: true });
// before esbuild reads a source: a file saved while it builds is newer than the build
const started = Date.now();
const { metafile } = await build({
  absWorkingDir: ROOT,
  // the history's indexer runs in a process of its own: a file of its own, beside the chunks (engine/person/history/worker-host.ts finds it)
  entryPoints: { main: 'engine/cli/main.ts', 'history-worker': 'engine/person/history/index-worker.ts' },
  metafile: true,
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  // the CommonJS packages inside call require() for Node's built-ins
  banner: { js: 'import { createRequire as __hookmapRequire } from "node:module"; const require = __hookmapRequire(import.meta.url);' },
  plugins: [externals],
  logLevel: 'warning',
});

// what the bundle was built from: the repository's own sources (the packages inside change only with the lock file)
const inputs = [...Object.keys(metafile.inputs).filter((f) => !/(^|\/)node_modules\//.test(f) && !f.includes(':')), 'package-lock.json'].sort();
const digest = createHash('sha256');
for (const f of inputs)
  digest
    .update(`${f}\0`)
    .update(readFileSync(new URL(`../${f}`, import.meta.url)))
    .update('\0');
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const stamp = `${version}+${digest.digest('hex').slice(0, 16)}`;
writeFileSync(new URL(`../${OUT}/build.json`, import.meta.url), `${JSON.stringify({ built: started, stamp, inputs }, null, 1)}\n`);

// the same modules from their sources (this script runs under tsx)
const { cacheDescriptorsIn } = await import('../engine/core/descriptor/descriptor-cache.ts');
const { cacheValidatorsIn } = await import('../engine/core/aep/validator-cache.ts');
const { listVendors, loadVendor } = await import('../engine/core/descriptor/registry.ts');
const { warmValidators } = await import('../engine/core/aep/schemas.ts');
const cache = (kind) => fileURLToPath(new URL(`../${CACHE}/${kind}`, import.meta.url));
cacheDescriptorsIn(cache('descriptors'), stamp);
for (const v of listVendors()) loadVendor(v);
cacheValidatorsIn(cache('validators'), stamp);
await warmValidators();
